/**
 * Vectors kept on disk between runs of the eval and the benches, by model and text: a second run of the
 * same collection and model embeds nothing. The key of a model is the SHA-256 of its weights file and of
 * every catalogue field that changes a vector (pooling, normalisation, longest input, weights variant),
 * so a changed model or rule never reads stale vectors. A text's key is the SHA-256 of its role, the
 * role's prefix and the text.
 *
 * One append-only file per model under the cache folder: `<model key>.vectors`.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ChunkEmbedder } from '../src/embed/chunk-embedder.ts';
import type { EmbeddingModel } from '../src/models/catalogue.ts';

const hex = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

/** The cache folder: `DOCQA_VECTOR_CACHE`, else ~/.cache/docqa-vectors. */
export function vectorCacheDir(): string {
  return process.env.DOCQA_VECTOR_CACHE || join(homedir(), '.cache', 'docqa-vectors');
}

/**
 * A model's cache key: its weights and the fields of its catalogue entry that shape a vector. The
 * prefixes are part of each text's key instead, so a question rule can change without re-embedding
 * every passage.
 */
export function modelCacheKey(model: EmbeddingModel, weightsPath: string): string {
  // `batching` names how texts are grouped: an 8-bit model's vectors depend slightly on a text's batch-mates.
  const rule = { batching: 'length-sorted', dims: model.dims, pooling: model.pooling, normalize: model.normalize, maxTokens: model.maxTokens, dtype: model.dtype };
  return hex(`${hex(readFileSync(weightsPath))}\n${JSON.stringify(rule)}`).slice(0, 32);
}

export interface CachingEmbedder extends ChunkEmbedder {
  /** Texts embedded by the model in this run (cache misses), passages and questions together. */
  readonly embedded: number;
  /** Texts read from the cache in this run. */
  readonly reused: number;
}

/**
 * `inner` with its vectors kept in `dir/<key>.vectors`, appended as soon as they are made; with no
 * `key`, nothing is kept and the embedder only counts. Each record is the text key's 32 bytes and the
 * vector, written with one append, so runs in parallel never interleave halves of a record; a record
 * cut short by a crash is ignored on load.
 */
export function cachingEmbedder(inner: ChunkEmbedder, key: string | undefined, dir = vectorCacheDir()): CachingEmbedder {
  const dims = inner.model.dims;
  const recordBytes = 32 + dims * 4;
  const path = key && join(dir, `${key}.vectors`);
  const known = new Map<string, Float32Array>();
  if (path && existsSync(path)) {
    const bytes = readFileSync(path);
    for (let at = 0; at + recordBytes <= bytes.byteLength; at += recordBytes) {
      const floats = new Float32Array(bytes.buffer.slice(bytes.byteOffset + at + 32, bytes.byteOffset + at + recordBytes));
      known.set(bytes.subarray(at, at + 32).toString('hex'), floats);
    }
  }
  let embedded = 0;
  let reused = 0;
  const keep = (entries: [string, Float32Array][]) => {
    for (const [k, v] of entries) known.set(k, v);
    if (!path || !entries.length) return;
    mkdirSync(dir, { recursive: true });
    const out = new Uint8Array(entries.length * recordBytes);
    entries.forEach(([k, v], i) => {
      out.set(Buffer.from(k, 'hex'), i * recordBytes);
      out.set(new Uint8Array(v.buffer, v.byteOffset, v.byteLength), i * recordBytes + 32);
    });
    appendFileSync(path, out);
  };
  return {
    model: inner.model,
    get embedded() {
      return embedded;
    },
    get reused() {
      return reused;
    },
    async embedChunks(texts) {
      const keys = texts.map((t) => hex(`passage\0${inner.model.passagePrefix}${t}`));
      const missing = [...new Set(keys.filter((k) => !known.has(k)))];
      if (missing.length) {
        const textOf = new Map(keys.map((k, i) => [k, texts[i]!]));
        const data = await inner.embedChunks(missing.map((k) => textOf.get(k)!));
        keep(missing.map((k, i) => [k, data.slice(i * dims, (i + 1) * dims)]));
      }
      embedded += missing.length;
      reused += texts.length - missing.length;
      const out = new Float32Array(texts.length * dims);
      keys.forEach((k, i) => out.set(known.get(k)!, i * dims));
      return out;
    },
    async embedQuery(text) {
      const k = hex(`query\0${inner.model.queryPrefix}${text}`);
      const hit = known.get(k);
      if (hit) {
        reused++;
        return hit.slice();
      }
      const vector = await inner.embedQuery(text);
      embedded++;
      keep([[k, vector.slice()]]);
      return vector;
    },
  };
}
