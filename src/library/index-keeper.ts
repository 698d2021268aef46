import type { DocId } from '../core/ids.ts';
import type { DocRecord, IndexEntry } from '../core/types.ts';
import { ChunkOwners } from '../index/chunk-owners.ts';
import { IndexSet } from '../index/index-set.ts';
import { LexicalIndex } from '../index/lexical-index.ts';
import type { LibraryStore } from '../store/library-store.ts';

const OWNERS_SNAPSHOT = 'owners';
const LEXICAL_SNAPSHOT = 'lexical';
/** Chunks added to the index between two chances for questions to run (~0.5 s of work). */
const INDEX_SLICE = 2000;
/** Documents read from the store per transaction when the index is rebuilt or caught up. */
const REBUILD_BATCH = 100;
/**
 * Milliseconds the lexical index merges segments at a time (in the change that sets it off, then in
 * tasks of their own until done): a question waits at most about this long behind a merge, which at
 * 500k chunks would otherwise hold the worker for seconds.
 */
const MERGE_SLICE_MS = 30;

/**
 * The in-memory indexes kept in line with the store, which is the truth: chunk ownership and the lexical
 * index loaded from their snapshots, brought up to date at start-up and on other tabs' changes (every
 * document whole: partial ones are re-added), fed a committed document a slice at a time, and saved only
 * between whole documents. The dense index, when a model is in use, follows the same ownership: a chunk
 * that leaves the library leaves it too (its vectors are loaded and added by `Embedding`).
 */
export class IndexKeeper {
  private indexSet = slicedMerges(IndexSet.create());
  private mergeTimer: ReturnType<typeof setTimeout> | undefined;
  private snapshotTimer: ReturnType<typeof setTimeout> | undefined;
  /** The indexes changed since the last saved snapshot. */
  dirty = false;
  /** How long the last snapshot took to serialise. */
  private lastSaveMs = 0;
  /** Documents being added to the index slice by slice; a snapshot or a reconcile now would see half of one. */
  private inserting = new Map<DocId, { cancelled: boolean }>();
  /** Told when chunks join the library (the embedding queue wakes up). */
  onChunksAdded: () => void = () => {};

  constructor(
    private readonly store: LibraryStore,
    /** Only the writer tab saves snapshots. */
    private readonly isWriter: () => boolean,
    /** See `LibraryOptions.snapshotDelayMs`. */
    private readonly snapshotDelayMs = 5000,
  ) {}

  /** The indexes; their lexical index merges in slices ({@link MERGE_SLICE_MS}), the rest in tasks of their own. */
  get set(): IndexSet {
    return this.indexSet;
  }

  set set(set: IndexSet) {
    this.indexSet = slicedMerges(set);
  }

  /** Goes on merging the lexical index's segments a slice per task, questions answered in between. */
  private keepMerging(): void {
    if (this.mergeTimer || !this.lexical.needsMerging) return;
    this.mergeTimer = setTimeout(() => {
      this.mergeTimer = undefined;
      if (!this.lexical.maintainFor(MERGE_SLICE_MS)) this.keepMerging();
    }, 0);
  }

  get owners(): ChunkOwners {
    return this.set.owners;
  }

  get lexical(): LexicalIndex {
    return this.set.lexical;
  }

  /** Loads the snapshots (or builds the indexes) and brings them in line with the store. */
  async open(): Promise<void> {
    const [owners, lexical] = await Promise.all([this.store.loadSnapshot(OWNERS_SNAPSHOT), this.store.loadSnapshot(LEXICAL_SNAPSHOT)]);
    if (owners && lexical && typeof owners.data === 'string') {
      try {
        const loadedOwners = ChunkOwners.load(owners.data);
        const loadedLexical = LexicalIndex.load(lexical.data);
        // Saved in one transaction, so they agree; anything else is rebuilt rather than trusted.
        if (loadedOwners.size !== loadedLexical.size) throw new Error(`${loadedOwners.size} owned chunks but ${loadedLexical.size} indexed`);
        this.set = new IndexSet(loadedOwners, loadedLexical);
      } catch (err) {
        // Snapshots are a cache: rebuilt from the store below.
        console.warn('index snapshot unreadable; rebuilding the index from the store', err);
      }
    }
    await this.reconcile();
  }

  /**
   * Makes the indexes hold exactly the committed documents, each whole (after a crash, or another tab's
   * writes): documents the store no longer has are discarded, missing ones added, and any whose chunk
   * count or print (`DocRecord.chunkPrint`) differs from the store's is re-added from the store.
   */
  async reconcile(): Promise<void> {
    // From the database, not the list kept for questions: the store is the truth here.
    const docs = await this.store.listDocuments({ fresh: true });
    const stored = new Set(docs.map((d) => d.id));
    const counts = this.owners.chunkCounts();
    const prints = this.owners.chunkPrints();
    const gone = new Set([...counts.keys()].filter((id) => !stored.has(id) && !this.inserting.has(id)));
    const partial: DocId[] = [];
    const missing: DocId[] = [];
    for (const doc of docs) {
      if (this.inserting.has(doc.id)) continue;
      const have = counts.get(doc.id);
      if (have === undefined) missing.push(doc.id);
      // A document read again may hold as many chunks as before, all different: its print tells.
      else if (have !== (await this.expectedChunks(doc, have)) || (doc.chunkPrint !== undefined && prints.get(doc.id) !== doc.chunkPrint)) partial.push(doc.id);
    }
    for (const id of partial) gone.add(id);
    if (gone.size) {
      // Deleted since the snapshot, or by another tab: their chunk texts may be gone from the store.
      await this.set.removeDocuments(gone, async (id) => (await this.store.getChunks([id]))[0]?.text);
    }
    const toAdd = [...partial, ...missing];
    for (let at = 0; at < toAdd.length; at += REBUILD_BATCH) await this.set.add(await this.store.indexEntriesOf(toAdd.slice(at, at + REBUILD_BATCH)));
    this.keepMerging();
    if (gone.size || missing.length) this.scheduleSnapshot();
    if (partial.length || missing.length) this.onChunksAdded();
  }

  /** Distinct chunks a stored document has (older records do not say: read from its manifest unless `have` matches). */
  private async expectedChunks(doc: DocRecord, have: number): Promise<number> {
    if (doc.distinctChunks !== undefined) return doc.distinctChunks;
    if (have === doc.chunkCount) return doc.chunkCount;
    const manifest = await this.store.getManifest(doc.id);
    return new Set(manifest?.chunkIds ?? []).size;
  }

  /**
   * Adds a committed document's entries a slice at a time, letting questions through in between: a
   * 50 MB text file has ~35k chunks, several seconds of indexing. No snapshot is taken and no reconcile
   * looks at the document meanwhile; a Delete meanwhile stops it, and a document deleted by another tab
   * meanwhile is taken out again at the end.
   */
  async add(docId: DocId, entries: readonly IndexEntry[]): Promise<void> {
    const state = { cancelled: false };
    this.inserting.set(docId, state);
    try {
      for (let i = 0; i < entries.length && !state.cancelled; i += INDEX_SLICE) {
        await this.set.add(entries.slice(i, i + INDEX_SLICE));
        if (i + INDEX_SLICE < entries.length) await new Promise((resolve) => setTimeout(resolve, 0));
      }
    } finally {
      this.inserting.delete(docId);
      this.keepMerging();
    }
    if (state.cancelled || !(await this.store.getDocument(docId))) {
      await this.set.remove(entries);
    } else this.onChunksAdded();
  }

  /** Takes a deleted document's chunks out; stops its insertion if it is still running. */
  async drop(docId: DocId, removed: readonly IndexEntry[]): Promise<void> {
    const insertion = this.inserting.get(docId);
    if (insertion) insertion.cancelled = true;
    await this.remove(removed);
  }

  /** Takes owners out (a deleted document, or the older version a new one replaced). */
  async remove(removed: readonly IndexEntry[]): Promise<void> {
    if (!removed.length) return;
    await this.set.remove(removed);
    this.keepMerging();
    this.scheduleSnapshot();
  }

  scheduleSnapshot(): void {
    this.dirty = true;
    // Serialising blocks this worker (≈0.3 s at 20k chunks, ≈7 s at 100k): never spend more than about
    // a tenth of the time saving, however large the library grows.
    const delay = Math.max(this.snapshotDelayMs ?? 5000, this.lastSaveMs * 10);
    this.snapshotTimer ??= setTimeout(() => void this.saveSnapshot(), delay);
  }

  /** Persists chunk ownership and the lexical index, together, so the next start-up does not re-index. */
  async saveSnapshot(): Promise<void> {
    if (this.snapshotTimer) clearTimeout(this.snapshotTimer);
    this.snapshotTimer = undefined;
    if (!this.isWriter() || !this.dirty) return;
    if (this.inserting.size) {
      // Only whole documents go into a snapshot: try again once the insertion ends.
      this.scheduleSnapshot();
      return;
    }
    this.dirty = false;
    try {
      const t0 = Date.now();
      const owners = this.owners.serialize();
      const lexical = this.lexical.serialize();
      this.lastSaveMs = Date.now() - t0;
      const savedAt = Date.now();
      await this.store.saveSnapshots([
        { name: OWNERS_SNAPSHOT, version: 1, data: owners, savedAt },
        { name: LEXICAL_SNAPSHOT, version: 1, data: lexical, savedAt },
      ]);
    } catch (err) {
      // A snapshot is a cache: when it cannot be saved the index is brought up to date from the store next time.
      this.dirty = true;
      console.warn('index snapshot not saved', err);
    }
  }
}

/** The library's indexes merge in slices ({@link MERGE_SLICE_MS}); `IndexKeeper` runs the rest between questions. */
function slicedMerges(set: IndexSet): IndexSet {
  set.lexical.mergeSliceMs = MERGE_SLICE_MS;
  return set;
}
