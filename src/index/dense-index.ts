import type { ChunkId, ModelId } from '../core/ids.ts';
import type { ChunkFilter, Hit, SearchIndex, SearchQuery } from './search-index.ts';
import { VectorIndex, type VectorEntry, type VectorStorage } from './vector-index.ts';

/**
 * How the app stores chunk vectors in memory: chosen on real embeddings by `npm run bench -- vector
 * --real <model folder>` (106k real passages, bge-small q8, 1,225 real questions): `binary-int8`, the
 * float query scored against 1-bit sign codes and a shortlist of k × 50 re-scored from int8 codes, no
 * floats kept: recall@10 0.9956 against exact search at 100k, p50 7.6 ms (binary with its floats 7.4 ms,
 * f32 73 ms, on the same run), 628 bytes a vector against binary's 1,584 (decision 0012).
 */
export const DEFAULT_VECTOR_STORAGE: VectorStorage = 'binary-int8';

/** Any dense index (the flat one, voy's): the common contract, for one embedding model's vectors. */
export type DenseRetriever = SearchIndex<VectorEntry> & { readonly model: ModelId };

/**
 * The dense retriever: a {@link VectorIndex} of one embedding model's chunk vectors behind the common
 * index contract. A question without a vector (no model loaded yet, or the embedder failed) finds
 * nothing here; BM25 still answers it.
 */
export class DenseIndex implements SearchIndex<VectorEntry> {
  readonly name = 'Dense';
  readonly needsVector = true;

  constructor(
    /** The model whose vectors these are: vectors of two models are never compared. */
    readonly model: ModelId,
    readonly vectors: VectorIndex,
  ) {}

  static create(model: ModelId, dimensions: number, storage: VectorStorage = DEFAULT_VECTOR_STORAGE): DenseIndex {
    return new DenseIndex(model, new VectorIndex({ dimensions, storage }));
  }

  get dimensions(): number {
    return this.vectors.dimensions;
  }

  get size(): number {
    return this.vectors.size;
  }

  has(chunkId: ChunkId): boolean {
    return this.vectors.has(chunkId);
  }

  add(entries: readonly VectorEntry[]): void {
    this.vectors.add(entries);
  }

  remove(chunkIds: readonly ChunkId[]): Promise<void> {
    this.vectors.remove(chunkIds);
    return Promise.resolve();
  }

  search(query: SearchQuery, k: number, filter?: ChunkFilter): Promise<Hit[]> {
    if (!query.vector || this.vectors.size === 0) return Promise.resolve([]);
    return Promise.resolve(this.vectors.search(query.vector, k, filter));
  }

  serialize(): Uint8Array {
    return this.vectors.serialize();
  }
}
