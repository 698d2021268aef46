import { DocQaError } from '../core/errors.ts';
import { asChunkId, type ChunkId, type DocId } from '../core/ids.ts';
import type { IndexEntry } from '../core/types.ts';

/** Snapshot format version; unknown versions are refused and the indexes are rebuilt from the store. */
export const OWNERS_SNAPSHOT_VERSION = 1;

/** A chunk whose indexed title changes (its owner with the smallest id changed). */
export interface Retitle {
  chunkId: ChunkId;
  /** Title before and after; the lexical index re-indexes the chunk's header. */
  before: string;
  after: string;
}

/** What a change of ownership means for the indexes. */
export interface OwnershipChange {
  /** Chunks that gained their first owner: every index adds them. */
  fresh: IndexEntry[];
  /** Chunks that lost their last owner: every index removes them. */
  gone: ChunkId[];
  retitled: Retitle[];
}

interface Snapshot {
  version: number;
  /** chunk id → [owner doc id, owner title][] */
  owners: Array<[string, Array<[string, string]>]>;
}

/**
 * Which documents hold each chunk, in one place every index shares (chunk ids are content hashes, so two
 * documents with the same paragraph share a chunk). Indexes hold chunks, never documents: a chunk enters
 * them with its first owner and leaves with its last, and a filter by document is turned into a chunk
 * predicate here. A chunk's title (its header line in the lexical index) is that of the owner with the
 * smallest id, so the indexes are the same whatever order documents were added and removed in.
 */
export class ChunkOwners {
  private owners = new Map<ChunkId, Map<DocId, string>>();

  /** Distinct chunks with at least one owner. */
  get size(): number {
    return this.owners.size;
  }

  has(chunkId: ChunkId): boolean {
    return this.owners.has(chunkId);
  }

  chunkIds(): IterableIterator<ChunkId> {
    return this.owners.keys();
  }

  /** The title a chunk is indexed under ('' when it has no owner). */
  titleOf(chunkId: ChunkId): string {
    const owners = this.owners.get(chunkId);
    return owners ? smallestTitle(owners) : '';
  }

  /** Owners of a chunk, sorted. */
  ownersOf(chunkId: ChunkId): DocId[] {
    return [...(this.owners.get(chunkId)?.keys() ?? [])].sort();
  }

  /** Adds owners of chunks; a chunk already owned gains an owner and is not fresh. */
  add(entries: readonly IndexEntry[]): OwnershipChange {
    const fresh: IndexEntry[] = [];
    const retitled: Retitle[] = [];
    for (const e of entries) {
      const owners = this.owners.get(e.chunkId);
      if (!owners) {
        this.owners.set(e.chunkId, new Map([[e.docId, e.title]]));
        fresh.push(e);
        continue;
      }
      const before = smallestTitle(owners);
      owners.set(e.docId, e.title);
      const after = smallestTitle(owners);
      if (after !== before) retitled.push({ chunkId: e.chunkId, before, after });
    }
    return { fresh, gone: [], retitled: lastPerChunk(retitled) };
  }

  /** Removes owners; a chunk whose last owner goes is `gone`. */
  remove(entries: ReadonlyArray<{ chunkId: ChunkId; docId: DocId }>): OwnershipChange {
    const gone: ChunkId[] = [];
    const retitled: Retitle[] = [];
    for (const e of entries) {
      const owners = this.owners.get(e.chunkId);
      if (!owners?.has(e.docId)) continue;
      const before = smallestTitle(owners);
      owners.delete(e.docId);
      if (owners.size === 0) {
        this.owners.delete(e.chunkId);
        gone.push(e.chunkId);
      } else {
        const after = smallestTitle(owners);
        if (after !== before) retitled.push({ chunkId: e.chunkId, before, after });
      }
    }
    return { fresh: [], gone, retitled: lastPerChunk(retitled) };
  }

  /** Removes documents whole, without their entries (another tab deleted them, their chunks may be gone). */
  removeDocuments(docIds: ReadonlySet<DocId>): OwnershipChange {
    const entries: Array<{ chunkId: ChunkId; docId: DocId }> = [];
    for (const [chunkId, owners] of this.owners) for (const docId of owners.keys()) if (docIds.has(docId)) entries.push({ chunkId, docId });
    return this.remove(entries);
  }

  /** A chunk predicate for a set of allowed documents: chunks owned by at least one of them. */
  ownedBy(docIds: ReadonlySet<DocId>): (chunkId: ChunkId) => boolean {
    return (chunkId) => {
      const owners = this.owners.get(chunkId);
      if (!owners) return false;
      for (const d of owners.keys()) if (docIds.has(d)) return true;
      return false;
    };
  }

  /** Each document's chunks; a chunk shared by several documents is listed under each. */
  chunksByDocument(): Map<DocId, ChunkId[]> {
    const out = new Map<DocId, ChunkId[]>();
    for (const [chunkId, owners] of this.owners) {
      for (const d of owners.keys()) {
        const list = out.get(d);
        if (list) list.push(chunkId);
        else out.set(d, [chunkId]);
      }
    }
    return out;
  }

  docIds(): Set<DocId> {
    return new Set(this.chunkCounts().keys());
  }

  /** For each document, how many distinct chunks it owns (start-up checks them against the store). */
  chunkCounts(): Map<DocId, number> {
    const out = new Map<DocId, number>();
    for (const owners of this.owners.values()) for (const d of owners.keys()) out.set(d, (out.get(d) ?? 0) + 1);
    return out;
  }

  serialize(): string {
    const snapshot: Snapshot = { version: OWNERS_SNAPSHOT_VERSION, owners: [...this.owners].map(([c, o]) => [c, [...o]]) };
    return JSON.stringify(snapshot);
  }

  /** Rebuilds from {@link serialize}'s output; throws `schema-version` on an unknown version. */
  static load(json: string): ChunkOwners {
    const snapshot = JSON.parse(json) as Snapshot;
    if (snapshot.version !== OWNERS_SNAPSHOT_VERSION) {
      throw new DocQaError('schema-version', `chunk owners snapshot version ${snapshot.version} is not supported (expected ${OWNERS_SNAPSHOT_VERSION}); the indexes will be rebuilt`);
    }
    const owners = new ChunkOwners();
    owners.owners = new Map(snapshot.owners.map(([c, o]) => [asChunkId(c), new Map(o as Array<[DocId, string]>)]));
    return owners;
  }
}

function smallestTitle(owners: Map<DocId, string>): string {
  let best: DocId | undefined;
  for (const id of owners.keys()) if (best === undefined || id < best) best = id;
  return best === undefined ? '' : (owners.get(best) ?? '');
}

/** One retitle per chunk: from its first `before` to its last `after` (dropped when they are equal). */
function lastPerChunk(retitled: readonly Retitle[]): Retitle[] {
  const byChunk = new Map<ChunkId, Retitle>();
  for (const r of retitled) {
    const seen = byChunk.get(r.chunkId);
    byChunk.set(r.chunkId, seen ? { ...seen, after: r.after } : r);
  }
  return [...byChunk.values()].filter((r) => r.before !== r.after);
}
