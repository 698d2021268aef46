import type { ChunkId } from '../core/ids.ts';

import type { IndexEntry } from '../core/types.ts';

export type { IndexEntry };

export interface Hit {
  chunkId: ChunkId;
  score: number;
}

/** What a question is to the indexes: its text, and its vector once the embedder has made one. */
export interface SearchQuery {
  text: string;
  /** The question embedded by the index's model; an index that needs one returns nothing without it. */
  vector?: Float32Array;
}

/** A question as hybrid search takes it: the vector may still be on its way (embedded in another worker). */
export interface PendingQuery {
  text: string;
  vector?: Float32Array | Promise<Float32Array | undefined>;
}

/** Allowed chunks: excluded chunks are skipped before scoring. Built by `ChunkOwners.ownedBy`. */
export type ChunkFilter = (chunkId: ChunkId) => boolean;

/**
 * The one contract of every index (lexical BM25, dense vectors). Indexes hold chunks, never documents:
 * which documents own a chunk is kept once for all of them (`chunk-owners.ts`). Fusion sees only the
 * ranked hits, so a new index joins without changing anything else. `add` is the one part that differs:
 * each index takes what it indexes (text and title, or a vector) as `E`.
 */
export interface SearchIndex<E = unknown> {
  /** Shown in "Why this passage" ("BM25", "Dense"). */
  readonly name: string;
  /** Searches by the question's vector: a hybrid search waits for the vector for this index only. */
  readonly needsVector?: boolean;
  /** Adds chunks; a chunk already present is replaced. */
  add(entries: readonly E[]): void;
  /** Removes chunks by id (ids not present are ignored). Resolves once searches see exactly the rest. */
  remove(chunkIds: readonly ChunkId[]): Promise<void>;
  has(chunkId: ChunkId): boolean;
  /** The best `k` chunks for the query, best first; ties by chunk id. */
  search(query: SearchQuery, k: number, filter?: ChunkFilter): Promise<Hit[]>;
  /** Number of distinct chunks indexed. */
  readonly size: number;
  /** A versioned snapshot that the index type's `load` accepts (text or binary). */
  serialize(): string | Uint8Array;
}
