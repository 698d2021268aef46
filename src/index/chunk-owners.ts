import { DocQaError } from '../core/errors.ts';
import { asChunkId, chunkSetPrint, type ChunkId, type DocId } from '../core/ids.ts';
import type { IndexEntry } from '../core/types.ts';

/** Snapshot format version; unknown versions are refused and the indexes are rebuilt from the store. */
/** 2: chunks listed under their owners (1 listed owners under each chunk). */
export const OWNERS_SNAPSHOT_VERSION = 2;

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
  /** One entry per document (and title): [doc id, title, the chunk ids it owns under that title]. */
  owners: Array<[string, string, string[]]>;
  /** Distinct chunks (absent in snapshots written before it was kept: the map is then made at load). */
  chunks?: number;
}

/** A document as the owner of chunks, with the title they are indexed under: one object shared by all its chunks. */
interface Owner {
  docId: DocId;
  title: string;
}

type Owners = Owner | Owner[];

const ownerList = (owners: Owners): Owner[] => (Array.isArray(owners) ? owners : [owners]);

/**
 * Which documents hold each chunk, in one place every index shares (chunk ids are content hashes, so two
 * documents with the same paragraph share a chunk). Indexes hold chunks, never documents: a chunk enters
 * them with its first owner and leaves with its last, and a filter by document is turned into a chunk
 * predicate here. A chunk's title (its header line in the lexical index) is that of the owner with the
 * smallest id, so the indexes are the same whatever order documents were added and removed in.
 * A chunk with one owner (nearly all) maps to that document's owner object, shared by its chunks, so a
 * chunk costs one map entry (at 100k chunks a map per chunk held about 15 MB more and its JSON snapshot
 * was 2.3 times the size).
 */
export class ChunkOwners {
  private table = new Map<ChunkId, Owners>();
  /** The owner object chunks of a document share (its latest title). */
  private shared = new Map<DocId, Owner>();
  /**
   * A loaded snapshot's entries, not yet made into the map: a cold start needs only the size and each
   * document's chunk count (reconciling with the store), and 100k map entries are ~30 ms of it.
   */
  private unread: { entries: Snapshot['owners']; chunks: number } | undefined;

  /** Chunk → owners, made from a loaded snapshot on first use. */
  private get owners(): Map<ChunkId, Owners> {
    if (this.unread) {
      const { entries } = this.unread;
      this.unread = undefined;
      for (const [docId, title, chunks] of entries) {
        const owner: Owner = { docId: docId as DocId, title };
        this.shared.set(owner.docId, owner);
        for (const c of chunks) {
          const id = asChunkId(c);
          const known = this.table.get(id);
          this.table.set(id, known ? [...ownerList(known), owner] : owner);
        }
      }
    }
    return this.table;
  }

  private ownerFor(docId: DocId, title: string): Owner {
    let owner = this.shared.get(docId);
    if (owner?.title !== title) this.shared.set(docId, (owner = { docId, title }));
    return owner;
  }

  /** Distinct chunks with at least one owner. */
  get size(): number {
    return this.unread ? this.unread.chunks : this.owners.size;
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
    const owners = this.owners.get(chunkId);
    return owners ? ownerList(owners).map((o) => o.docId).sort() : [];
  }

  /** Adds owners of chunks; a chunk already owned gains an owner and is not fresh. */
  add(entries: readonly IndexEntry[]): OwnershipChange {
    const fresh: IndexEntry[] = [];
    const retitled: Retitle[] = [];
    for (const e of entries) {
      const owners = this.owners.get(e.chunkId);
      const owner = this.ownerFor(e.docId, e.title);
      if (!owners) {
        this.owners.set(e.chunkId, owner);
        fresh.push(e);
        continue;
      }
      const before = smallestTitle(owners);
      const next = [...ownerList(owners).filter((o) => o.docId !== e.docId), owner];
      this.owners.set(e.chunkId, next.length === 1 ? next[0]! : next);
      const after = smallestTitle(next);
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
      if (!owners || !ownerList(owners).some((o) => o.docId === e.docId)) continue;
      const before = smallestTitle(owners);
      const next = ownerList(owners).filter((o) => o.docId !== e.docId);
      if (next.length === 0) {
        this.owners.delete(e.chunkId);
        gone.push(e.chunkId);
      } else {
        this.owners.set(e.chunkId, next.length === 1 ? next[0]! : next);
        const after = smallestTitle(next);
        if (after !== before) retitled.push({ chunkId: e.chunkId, before, after });
      }
    }
    // Chunks still owned keep their owner object; a later add makes a new one (same document, same title).
    for (const e of entries) this.shared.delete(e.docId);
    return { fresh: [], gone, retitled: lastPerChunk(retitled) };
  }

  /** Removes documents whole, without their entries (another tab deleted them, their chunks may be gone). */
  removeDocuments(docIds: ReadonlySet<DocId>): OwnershipChange {
    const entries: Array<{ chunkId: ChunkId; docId: DocId }> = [];
    for (const [chunkId, owners] of this.owners) for (const o of ownerList(owners)) if (docIds.has(o.docId)) entries.push({ chunkId, docId: o.docId });
    return this.remove(entries);
  }

  /** A chunk predicate for a set of allowed documents: chunks owned by at least one of them. */
  ownedBy(docIds: ReadonlySet<DocId>): (chunkId: ChunkId) => boolean {
    return (chunkId) => {
      const owners = this.owners.get(chunkId);
      if (!owners) return false;
      if (!Array.isArray(owners)) return docIds.has(owners.docId);
      for (const o of owners) if (docIds.has(o.docId)) return true;
      return false;
    };
  }

  /** Each document's chunks; a chunk shared by several documents is listed under each. */
  chunksByDocument(): Map<DocId, ChunkId[]> {
    const out = new Map<DocId, ChunkId[]>();
    for (const [chunkId, owners] of this.owners) {
      for (const { docId } of ownerList(owners)) {
        const list = out.get(docId);
        if (list) list.push(chunkId);
        else out.set(docId, [chunkId]);
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
    if (this.unread) {
      // A chunk has at most one owner object per document, so a document's entries list each of its chunks once.
      for (const [docId, , chunks] of this.unread.entries) out.set(docId as DocId, (out.get(docId as DocId) ?? 0) + chunks.length);
      return out;
    }
    for (const owners of this.owners.values()) for (const { docId } of ownerList(owners)) out.set(docId, (out.get(docId) ?? 0) + 1);
    return out;
  }

  /** For each document, the {@link chunkSetPrint} of the distinct chunks it owns (start-up checks it against the store's). */
  chunkPrints(): Map<DocId, number> {
    const out = new Map<DocId, number>();
    if (this.unread) {
      for (const [docId, , chunks] of this.unread.entries) out.set(docId as DocId, (out.get(docId as DocId) ?? 0) ^ chunkSetPrint(chunks));
      return out;
    }
    for (const [chunkId, owners] of this.owners) {
      const print = chunkSetPrint([chunkId]);
      for (const { docId } of ownerList(owners)) out.set(docId, (out.get(docId) ?? 0) ^ print);
    }
    return out;
  }

  serialize(): string {
    const byOwner = new Map<Owner, string[]>();
    for (const [chunkId, owners] of this.owners) {
      for (const o of ownerList(owners)) {
        const list = byOwner.get(o);
        if (list) list.push(chunkId);
        else byOwner.set(o, [chunkId]);
      }
    }
    const snapshot: Snapshot = { version: OWNERS_SNAPSHOT_VERSION, owners: [...byOwner].map(([o, chunks]) => [o.docId, o.title, chunks]), chunks: this.owners.size };
    return JSON.stringify(snapshot);
  }

  /** Rebuilds from {@link serialize}'s output; throws `schema-version` on an unknown version. */
  static load(json: string): ChunkOwners {
    const snapshot = JSON.parse(json) as Snapshot;
    if (snapshot.version !== OWNERS_SNAPSHOT_VERSION) {
      throw new DocQaError('schema-version', `chunk owners snapshot version ${snapshot.version} is not supported (expected ${OWNERS_SNAPSHOT_VERSION}); the indexes will be rebuilt`);
    }
    // Checked whole now (the map is made later, when nothing could fall back to rebuilding any more).
    const wellFormed =
      Array.isArray(snapshot.owners) &&
      (snapshot.chunks === undefined || Number.isInteger(snapshot.chunks)) &&
      snapshot.owners.every((e) => Array.isArray(e) && typeof e[0] === 'string' && typeof e[1] === 'string' && Array.isArray(e[2]) && e[2].every((c) => typeof c === 'string'));
    if (!wellFormed) throw new DocQaError('internal', 'chunk owners snapshot is damaged; the indexes will be rebuilt');
    const owners = new ChunkOwners();
    owners.unread = { entries: snapshot.owners, chunks: snapshot.chunks ?? 0 };
    // Written before the count was kept: made now, which counts them.
    if (snapshot.chunks === undefined) void owners.owners;
    return owners;
  }
}

function smallestTitle(owners: Owners): string {
  if (!Array.isArray(owners)) return owners.title;
  let best: Owner | undefined;
  for (const o of owners) if (best === undefined || o.docId < best.docId) best = o;
  return best?.title ?? '';
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
