/**
 * What the library needs of an embedder: one vector per chunk text (whatever its length) and one per
 * question. Implemented in-process over an {@link Embedder} (Node: evaluation, tests; the embed worker)
 * and by the embed worker's client in the browser.
 */
import type { EmbeddingModel } from '../models/catalogue.ts';
import type { Embedder } from '../models/encoder/embedder.ts';
import { fitChunks } from './fit-chunks.ts';

export interface ChunkEmbedder {
  readonly model: EmbeddingModel;
  /**
   * One L2-normalised vector per text, `texts.length × dims` floats in input order. A text longer than
   * the model's input is split where it fits (`fit-chunks.ts`) and its pieces' vectors are averaged and
   * normalised again: never silently truncated.
   */
  embedChunks(texts: readonly string[]): Promise<Float32Array>;
  /** The question's vector (with the model's query prefix). */
  embedQuery(text: string): Promise<Float32Array>;
}

export interface ChunkEmbedderOptions {
  /** Texts per inference call. Default 16; range 1–256 (see `npm run bench -- embed`). */
  batchSize?: number;
}

/** A {@link ChunkEmbedder} over a loaded {@link Embedder}, in this thread. */
export function chunkEmbedderOf(embedder: Embedder, options: ChunkEmbedderOptions = {}): ChunkEmbedder {
  const { model } = embedder;
  return {
    model,
    async embedChunks(texts) {
      const { pieces, split } = fitChunks(texts, (t) => embedder.countTokens(t, 'passage'), model.maxTokens);
      const embedded = await embedder.embedPassages(
        pieces.map((p) => p.text),
        { batchSize: options.batchSize },
      );
      if (!split) return embedded.data;
      return averagePieces(embedded.vectors, pieces.map((p) => p.source), texts.length, model.dims);
    },
    embedQuery: (text) => embedder.embedQuery(text),
  };
}

/** Mean of each text's piece vectors, L2-normalised (pieces are in text order, each text has ≥ 1). */
export function averagePieces(vectors: readonly Float32Array[], sources: readonly number[], count: number, dims: number): Float32Array {
  const out = new Float32Array(count * dims);
  vectors.forEach((v, i) => {
    const row = sources[i]! * dims;
    for (let d = 0; d < dims; d++) out[row + d]! += v[d]!;
  });
  for (let t = 0; t < count; t++) {
    let norm = 0;
    for (let d = 0; d < dims; d++) norm += out[t * dims + d]! ** 2;
    const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    for (let d = 0; d < dims; d++) out[t * dims + d]! *= scale;
  }
  return out;
}
