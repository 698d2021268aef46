/**
 * Tiny random-weight BERT models for tests, in the transformers.js folder layout:
 *
 * ```
 * <dir>/tiny-encoder/        config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx
 * <dir>/tiny-cross-encoder/  the same, with a sequence-classification head (one logit) and id2label
 * <dir>/tiny-decoder/        a Llama-style causal LM with a KV cache, generation_config.json and a chat
 *                            template (`tiny-decoder.ts`)
 * <dir>/tiny-gguf/           the same decoder as one GGUF file, for llama.cpp (`tiny-gguf.ts`)
 * ```
 *
 * Pure and deterministic: the same bytes on every run and machine. Test tooling, never imported by the
 * app. Written by `npm run fixtures:models -- <dir>`.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { buildBertOnnx, type BertHead, type BertSpec } from './bert-graph.ts';
import { generateTinyDecoder } from './tiny-decoder.ts';
import { generateTinyGguf, TINY_GGUF_FILE } from './tiny-gguf.ts';
import { tokenizerConfig, tokenizerJson } from './tokenizer-files.ts';
import { buildVocabulary } from './vocabulary.ts';

/** The models this module writes. */
export const TINY_MODEL_NAMES = ['tiny-encoder', 'tiny-cross-encoder', 'tiny-decoder', 'tiny-gguf'] as const;
export type TinyModelName = (typeof TINY_MODEL_NAMES)[number];
/** The two BERT models (the ones a `shape` applies to). */
type BertModelName = Exclude<TinyModelName, 'tiny-decoder' | 'tiny-gguf'>;

/** Shared shape of both models (vocab size comes from the vocabulary). */
export const TINY_SPEC: Omit<BertSpec, 'vocabSize'> = {
  hidden: 32,
  layers: 2,
  heads: 4,
  intermediate: 64,
  maxPositions: 512,
  typeVocabSize: 2,
  layerNormEps: 1e-12,
};

/**
 * The shape of all-MiniLM-L6-v2 and bge-small (384 hidden, 6 layers, 12 heads): random weights of a real
 * model's size, for `npm run bench -- embed` (~42 MB; not written by `fixtures:models`).
 */
export const MINILM_SHAPE: Omit<BertSpec, 'vocabSize'> = { ...TINY_SPEC, hidden: 384, layers: 6, heads: 12, intermediate: 1536 };

const HEADS: Record<BertModelName, BertHead> = {
  'tiny-encoder': { kind: 'none' },
  'tiny-cross-encoder': { kind: 'sequence-classification', labels: 1 },
};

/** Bump to change every weight on purpose (pinned test outputs then change too). */
const SEED_VERSION = 'v1';

/**
 * One model's files, keyed by path inside its folder (`config.json`, `onnx/model.onnx`, ...). `shape`
 * applies to the BERT models only (the decoder has one shape, `TINY_DECODER_SPEC`).
 *
 * @example generateTinyModel('tiny-encoder').get('onnx/model.onnx') // Uint8Array, ~260 KB
 */
export function generateTinyModel(name: TinyModelName, shape: Omit<BertSpec, 'vocabSize'> = TINY_SPEC): Map<string, Uint8Array> {
  if (name === 'tiny-decoder') return generateTinyDecoder();
  if (name === 'tiny-gguf') return new Map([[TINY_GGUF_FILE, generateTinyGguf()]]);
  const vocab = buildVocabulary();
  const spec: BertSpec = { ...shape, vocabSize: vocab.length };
  const head = HEADS[name];
  const json = (value: object) => new TextEncoder().encode(`${JSON.stringify(value, null, 2)}\n`);
  return new Map([
    ['config.json', json(modelConfig(name, spec, head))],
    ['tokenizer.json', json(tokenizerJson(vocab))],
    ['tokenizer_config.json', json(tokenizerConfig())],
    ['onnx/model.onnx', buildBertOnnx(spec, head, `docqa/${name}/${SEED_VERSION}`)],
  ]);
}

/** Every model's files, keyed by `<model>/<path>`. */
export function generateTinyModels(): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  for (const name of TINY_MODEL_NAMES) {
    for (const [path, bytes] of generateTinyModel(name)) files.set(`${name}/${path}`, bytes);
  }
  return files;
}

/** Writes every model under `dir` (created if missing) and returns the paths written, with sizes. */
export async function writeTinyModels(dir: string): Promise<{ path: string; bytes: number }[]> {
  const written: { path: string; bytes: number }[] = [];
  for (const [relative, bytes] of generateTinyModels()) {
    const path = join(dir, relative);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, bytes);
    written.push({ path, bytes: bytes.length });
  }
  return written;
}

/** `config.json` in the Hugging Face layout; `transformers.js_config.dtype` makes fp32 the default file. */
function modelConfig(name: BertModelName, spec: BertSpec, head: BertHead): object {
  const classifier = head.kind === 'sequence-classification'
    ? {
        id2label: Object.fromEntries(Array.from({ length: head.labels }, (_, i) => [String(i), `LABEL_${i}`])),
        label2id: Object.fromEntries(Array.from({ length: head.labels }, (_, i) => [`LABEL_${i}`, i])),
      }
    : {};
  return {
    _name_or_path: `docqa/${name}`,
    architectures: [head.kind === 'none' ? 'BertModel' : 'BertForSequenceClassification'],
    model_type: 'bert',
    hidden_size: spec.hidden,
    num_hidden_layers: spec.layers,
    num_attention_heads: spec.heads,
    intermediate_size: spec.intermediate,
    hidden_act: 'gelu',
    vocab_size: spec.vocabSize,
    max_position_embeddings: spec.maxPositions,
    type_vocab_size: spec.typeVocabSize,
    layer_norm_eps: spec.layerNormEps,
    pad_token_id: 0,
    position_embedding_type: 'absolute',
    ...classifier,
    'transformers.js_config': { dtype: 'fp32' },
  };
}
