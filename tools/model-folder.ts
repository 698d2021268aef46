/**
 * Loads a transformers.js model folder from disk, in Node, through the app's own loader (the folder
 * source: nothing remote). Used by `npm run eval -- --model <folder>` and the embedding bench and tests.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { chunkEmbedderOf, type ChunkEmbedder } from '../src/embed/chunk-embedder.ts';
import { loadEmbedder } from '../src/embed/embedder.ts';
import { modelFromFolder } from '../src/models/catalogue.ts';

const readJson = (path: string): unknown => JSON.parse(readFileSync(path, 'utf8'));

/** The embedder of the model in `folder` (which holds config.json, tokenizer.json, onnx/...). */
export async function loadFolderEmbedder(folder: string, batchSize?: number): Promise<ChunkEmbedder> {
  const path = resolve(folder);
  const configPath = join(path, 'config.json');
  if (!existsSync(configPath)) throw new Error(`${path}: no config.json here; pass the folder that holds the model's config.json, tokenizer.json and onnx/`);
  const poolingPath = join(path, '1_Pooling', 'config.json');
  const model = modelFromFolder({
    folder: basename(path),
    config: readJson(configPath) as { hidden_size?: number },
    pooling: existsSync(poolingPath) ? (readJson(poolingPath) as { pooling_mode_cls_token?: boolean }) : undefined,
    hasFp32: existsSync(join(path, 'onnx', 'model.onnx')),
  });
  const embedder = await loadEmbedder(model, { source: { kind: 'folder', root: dirname(path) } });
  return chunkEmbedderOf(embedder, { batchSize });
}
