import type { ChunkId, DocId } from '../core/ids.ts';

import type { IndexEntry } from '../core/types.ts';

export type { IndexEntry };

export interface Hit {
  chunkId: ChunkId;
  score: number;
}

/** Only chunks owned by at least one of these documents are returned. */
export interface IndexFilter {
  docIds?: ReadonlySet<DocId>;
}

/**
 * The one interface every index implements (lexical now, vector next). Fusion sees only ranked hits,
 * so a new index joins without changing anything else.
 */
export interface SearchIndex {
  /** Adds owners of chunks; a chunk already present gains an owner and is not indexed twice. */
  add(entries: readonly IndexEntry[]): void;
  /** Removes owners; a chunk leaves the index when its last owner goes. */
  remove(entries: readonly IndexEntry[]): void;
  /** The best `k` chunks for `query`, best first. */
  search(query: string, k: number, filter?: IndexFilter): Hit[];
  /** Documents that own at least one indexed chunk. */
  docIds(): Set<DocId>;
  /** For each document, how many distinct chunks it owns here (start-up checks them against the store). */
  chunkCounts(): Map<DocId, number>;
  /** Number of distinct chunks indexed. */
  readonly size: number;
  /** A versioned snapshot that `load` of the same index type accepts. */
  serialize(): string;
}
