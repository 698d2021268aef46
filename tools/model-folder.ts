/**
 * Loads a transformers.js model folder from disk, in Node, through the app's own loaders (the folder
 * source: nothing remote). Used by `npm run eval -- --model <folder> --reranker <folder> --generator <folder>` and the
 * benches and tests.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { chunkEmbedderOf, type ChunkEmbedder } from '../src/embed/chunk-embedder.ts';
import { loadEmbedder } from '../src/models/encoder/embedder.ts';
import { modelFromFolder, rerankerFromFolder, type EmbeddingModel, type FolderFacts } from '../src/models/catalogue.ts';
import { loadReranker, type Reranker } from '../src/models/cross-encoder/reranker.ts';
import { loadTransformersGenerator, type TransformersGenerator } from '../src/models/generator/transformers-generator.ts';
import { localGenerator } from '../src/models/generator-catalogue.ts';

const readJson = (path: string): unknown => JSON.parse(readFileSync(path, 'utf8'));

/** The folder's JSON file at `relative`, or undefined when it has none. */
const optionalJson = <T>(path: string, relative: string): T | undefined => (existsSync(join(path, relative)) ? (readJson(join(path, relative)) as T) : undefined);

/**
 * What the model folder says about itself, read as the app's folder import reads it: config.json and
 * the sentence-transformers files (pooling, prompts, longest input) when present. `dtype` picks the
 * weights when the folder has both (default fp32 when `onnx/model.onnx` is there).
 */
export function embeddingModelOfFolder(folder: string, dtype?: 'q8' | 'fp32'): { model: EmbeddingModel; root: string } {
  const { path, configPath } = modelFolder(folder);
  const model = modelFromFolder({
    folder: basename(path),
    config: readJson(configPath) as FolderFacts['config'],
    pooling: optionalJson<FolderFacts['pooling']>(path, '1_Pooling/config.json'),
    prompts: optionalJson<{ prompts?: FolderFacts['prompts'] }>(path, 'config_sentence_transformers.json')?.prompts,
    sentenceBert: optionalJson<FolderFacts['sentenceBert']>(path, 'sentence_bert_config.json'),
    hasFp32: existsSync(join(path, 'onnx', 'model.onnx')),
    dtype,
  });
  return { model, root: dirname(path) };
}

/** The weights file a folder's model loads for `dtype`. */
export function weightsOfFolder(folder: string, dtype: 'q8' | 'fp32'): string {
  return join(resolve(folder), 'onnx', dtype === 'q8' ? 'model_quantized.onnx' : 'model.onnx');
}

/** The embedder of the model in `folder` (which holds config.json, tokenizer.json, onnx/...). */
export async function loadFolderEmbedder(folder: string, batchSize?: number, dtype?: 'q8' | 'fp32', queryPrefix?: string): Promise<ChunkEmbedder> {
  const read = embeddingModelOfFolder(folder, dtype);
  const { root } = read;
  // A query prefix other than the card's, to measure what the card's instruction is worth.
  const model = queryPrefix === undefined ? read.model : { ...read.model, queryPrefix };
  const embedder = await loadEmbedder(model, { source: { kind: 'folder', root } });
  return chunkEmbedderOf(embedder, { batchSize });
}

/** The folder's absolute path and its config.json, which must exist. */
function modelFolder(folder: string): { path: string; configPath: string } {
  const path = resolve(folder);
  const configPath = join(path, 'config.json');
  if (!existsSync(configPath)) throw new Error(`${path}: no config.json here; pass the folder that holds the model's config.json, tokenizer.json and onnx/`);
  return { path, configPath };
}

/** The reranker of the cross-encoder in `folder` (config.json with a one-label classification head, tokenizer.json, onnx/...). */
export async function loadFolderReranker(folder: string): Promise<Reranker> {
  const { path, configPath } = modelFolder(folder);
  const model = rerankerFromFolder({
    folder: basename(path),
    config: readJson(configPath) as { max_position_embeddings?: number },
    hasFp32: existsSync(join(path, 'onnx', 'model.onnx')),
  });
  return loadReranker(model, { source: { kind: 'folder', root: dirname(path) } });
}

/** Most context tokens a folder's generator is given when `--context-tokens` is not set. */
const DEFAULT_GENERATOR_CONTEXT = 4096;

/**
 * The transformers.js text generator of the causal LM in `folder` (config.json, tokenizer.json and
 * tokenizer_config.json with a chat template, onnx/model.onnx or onnx/model_quantized.onnx), loaded with
 * the app's `loadTransformersGenerator`. `contextTokens`: default the model's `max_position_embeddings`,
 * at most 4,096.
 */
export async function loadFolderGenerator(folder: string, contextTokens?: number): Promise<TransformersGenerator> {
  const { path, configPath } = modelFolder(folder);
  const config = readJson(configPath) as { max_position_embeddings?: number };
  const dtype = existsSync(join(path, 'onnx', 'model.onnx')) ? 'fp32' : 'q8';
  const entry = localGenerator({ folder: basename(path), contextTokens: contextTokens ?? Math.min(DEFAULT_GENERATOR_CONTEXT, config.max_position_embeddings ?? DEFAULT_GENERATOR_CONTEXT), dtype });
  return loadTransformersGenerator(entry, { source: { kind: 'folder', root: dirname(path) } });
}
