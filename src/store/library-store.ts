import type { ChunkId, DocId, QueueId } from '../core/ids.ts';
import { asQueueId } from '../core/ids.ts';
import { DocQaError, forFile, isQuotaError, serializeError, type SerializedError } from '../core/errors.ts';
import { headerTitleOf } from '../core/doc-title.ts';
import type { BlockRecord, ChunkLocation, ChunkRecord, DequeueOutcome, DocRecord, IndexEntry, Manifest, PreparedDocument, QueueEntry } from '../core/types.ts';
import type { IDBPTransaction } from 'idb';
import type { LibraryDb, LibrarySchema, Snapshot } from './schema.ts';

const WRITE_STORES = ['documents', 'manifests', 'blocks', 'chunks', 'queue', 'entryStatus', 'originals', 'vectors'] as const;
type WriteTx = IDBPTransaction<LibrarySchema, typeof WRITE_STORES, 'readwrite'>;

/** A file to add to the persisted queue. */
export interface NewQueueItem {
  name: string;
  folder: string;
  path: string;
  blob: Blob;
}

/** 64 random bits as hex: two tabs dropping in the same millisecond never produce the same key. */
function randomTag(): string {
  const words = crypto.getRandomValues(new Uint32Array(2));
  return [...words].map((w) => w.toString(16).padStart(8, '0')).join('');
}

/** Queue keys sort by time, then by position in the drop; a random part makes them unique across tabs. */
function queueKey(now: number, i: number, tag: string): QueueId {
  return asQueueId(`${now.toString().padStart(15, '0')}-${String(i).padStart(7, '0')}-${tag}`);
}

/** What removing a queue row did (see {@link DequeueOutcome}), with what to take out of the index. */
export type DequeueResult = { outcome: Exclude<DequeueOutcome, 'deleted'> } | { outcome: 'deleted'; docId: DocId; removed: IndexEntry[] };

/** Failures worth keeping the file's bytes for, so Try again can read it again. */
const RETRIABLE: ReadonlySet<string> = new Set(['read-limit', 'too-slow', 'interrupted', 'storage-full', 'internal']);

/** Index entries of a document's chunks, headed by its real title (never the file-name stand-in). */
function entriesFor(chunks: Iterable<{ id: ChunkId; text: string }>, doc: DocRecord): IndexEntry[] {
  const title = headerTitleOf(doc);
  return [...chunks].map((c) => ({ chunkId: c.id, docId: doc.id, text: c.text, title }));
}

/**
 * Waits for a transaction's requests, then for the transaction itself, and throws the transaction's own
 * error: when a transaction aborts (quota exceeded, say) its requests fail first with a generic
 * AbortError, and the real cause is only on the transaction.
 */
async function settle(done: Promise<void>, writes: ReadonlyArray<Promise<unknown>>): Promise<void> {
  done.catch(() => undefined);
  await Promise.allSettled(writes);
  await done;
}

/**
 * Rolls back a write transaction after an error. A request that throws synchronously (a value that
 * cannot be cloned, say) does not abort the transaction by itself: without this, the writes issued
 * before it would commit, leaving half a document (or, when replacing, the old version deleted and
 * the new one missing). Pending requests and `done` reject with AbortError; those are expected here.
 */
function abortQuietly(tx: { abort(): void; done: Promise<void> }, pending: ReadonlyArray<Promise<unknown>>): void {
  for (const p of [...pending, tx.done]) p.catch(() => undefined);
  try {
    tx.abort();
  } catch {
    // Already committed or aborted.
  }
}

/**
 * All reads and writes of the library. Every change that must be all-or-nothing is one IndexedDB
 * transaction: a document, its blocks, manifest and chunk locations, and the removal of its queue entry
 * commit together or not at all.
 */
export class LibraryStore {
  constructor(readonly db: LibraryDb) {}

  /**
   * Adds files to the persisted queue in one transaction. When storage is too full to hold them all,
   * each file is tried alone, and a file that does not fit is recorded as failed with "storage full"
   * (without its contents), so the person sees which files to add again.
   */
  async enqueue(items: readonly NewQueueItem[], now = Date.now(), onRefused?: (entry: QueueEntry, error: SerializedError) => void): Promise<QueueEntry[]> {
    const tag = randomTag();
    const entries = items.map<QueueEntry>((item, i) => ({
      id: queueKey(now, i, tag),
      name: item.name,
      folder: item.folder,
      path: item.path,
      size: item.blob.size,
      blob: item.blob,
      addedAt: now,
      state: 'queued',
    }));
    try {
      await this.putQueueEntries(entries);
      return entries;
    } catch (err) {
      if (!isQuotaError(err)) throw err;
    }
    const stored: QueueEntry[] = [];
    for (const entry of entries) {
      try {
        await this.putQueueEntries([entry]);
        stored.push(entry);
      } catch (err) {
        if (!isQuotaError(err)) throw err;
        const { blob: _blob, ...rest } = entry;
        const error = forFile(serializeError(err), entry.name);
        // Over its quota the browser may refuse even this small record: then the caller says so instead.
        await this.putQueueEntries([{ ...rest, state: 'failed', error }]).catch((e: unknown) => {
          if (!isQuotaError(e)) throw e;
          onRefused?.(entry, error);
        });
      }
    }
    return stored;
  }

  private async putQueueEntries(entries: readonly QueueEntry[]): Promise<void> {
    const tx = this.db.transaction('queue', 'readwrite');
    const writes: Array<Promise<unknown>> = [];
    try {
      for (const e of entries) writes.push(tx.store.put(e));
      await settle(tx.done, writes);
    } catch (err) {
      abortQuietly(tx, writes);
      throw err;
    }
  }

  /** The oldest entry still waiting (after entry `after`, when given), if any. */
  async nextQueued(after?: QueueId): Promise<QueueEntry | undefined> {
    const tx = this.db.transaction(['queue', 'entryStatus']);
    const statuses = new Map((await tx.objectStore('entryStatus').getAll()).map((s) => [s.queueId, s]));
    let cursor = await tx.objectStore('queue').openCursor(after === undefined ? undefined : IDBKeyRange.lowerBound(after, true));
    while (cursor) {
      const status = statuses.get(cursor.value.id);
      if (cursor.value.state === 'queued' && !status?.error) return status?.insist ? { ...cursor.value, insist: true } : cursor.value;
      cursor = await cursor.continue();
    }
    return undefined;
  }

  /** How many files (and bytes) wait in the queue, failed ones left out. */
  async waitingTotals(): Promise<{ files: number; bytes: number }> {
    const queue = await this.listQueue();
    const waiting = queue.filter((q) => q.state === 'queued');
    return { files: waiting.length, bytes: waiting.reduce((s, q) => s + q.size, 0) };
  }

  /** Queue entries without their file contents (only whether they are kept), in drop order. */
  async listQueue(): Promise<Array<QueueEntry & { hasContents: boolean }>> {
    const tx = this.db.transaction(['queue', 'entryStatus']);
    const [all, statuses] = await Promise.all([tx.objectStore('queue').getAll(), tx.objectStore('entryStatus').getAll()]);
    const errors = new Map(statuses.flatMap((s) => (s.error ? [[s.queueId, s.error] as const] : [])));
    return all.map(({ blob, ...rest }) => {
      const error = errors.get(rest.id);
      return { ...rest, ...(error ? { state: 'failed' as const, error } : {}), hasContents: !!blob };
    });
  }

  /** Removes a queue entry (its file was found to be in the library already). */
  async removeQueued(id: QueueId): Promise<void> {
    const tx = this.db.transaction(['queue', 'entryStatus'], 'readwrite');
    await Promise.all([tx.objectStore('queue').delete(id), tx.objectStore('entryStatus').delete(id), tx.done]);
  }

  /**
   * Removes a queue row, whatever became of it: a waiting or failed entry is dequeued; an entry that was
   * committed meanwhile (its row still said "Indexing 95%") has its document deleted, in one transaction.
   */
  async dequeue(id: QueueId): Promise<DequeueResult> {
    const tx: WriteTx = this.db.transaction(WRITE_STORES, 'readwrite');
    try {
      let result: DequeueResult = { outcome: 'none' };
      if (await tx.objectStore('queue').get(id)) {
        await tx.objectStore('queue').delete(id);
        result = { outcome: 'dequeued' };
      } else {
        const docId = (await tx.objectStore('documents').index('by-queue').getKey(id)) as DocId | undefined;
        if (docId) result = { outcome: 'deleted', docId, removed: await this.deleteInTx(tx, docId) };
      }
      await tx.objectStore('entryStatus').delete(id);
      await tx.done;
      return result;
    } catch (err) {
      abortQuietly(tx, []);
      throw err;
    }
  }

  /** Puts a failed entry back in the queue, to be read with relaxed limits (Try again). False when its contents are gone. */
  async retryQueued(id: QueueId): Promise<boolean> {
    const tx = this.db.transaction(['queue', 'entryStatus'], 'readwrite');
    const entry = await tx.objectStore('queue').get(id);
    const ok = !!entry?.blob;
    if (ok) await tx.objectStore('entryStatus').put({ queueId: id, reads: 0, insist: true });
    await tx.done;
    return ok;
  }

  /** Removes every failed entry (their messages) from the queue; returns how many. */
  async removeFailed(): Promise<number> {
    const tx = this.db.transaction(['queue', 'entryStatus'], 'readwrite');
    const statuses = tx.objectStore('entryStatus');
    const failed = new Set((await statuses.getAll()).flatMap((s) => (s.error ? [s.queueId] : [])));
    let removed = 0;
    for (let cursor = await tx.objectStore('queue').openCursor(); cursor; cursor = await cursor.continue()) {
      if (cursor.value.state !== 'failed' && !failed.has(cursor.value.id)) continue;
      await cursor.delete();
      await statuses.delete(cursor.value.id);
      removed++;
    }
    await tx.done;
    return removed;
  }

  /**
   * Removes the failed entries (failed at enqueue or when read) of the given paths: the same file dropped
   * again replaces its failed row instead of adding one beside it. Entries in `alsoFailed` count as
   * failed too (failures storage was too full to record). Returns the ids removed.
   */
  async removeFailedAt(paths: ReadonlySet<string>, alsoFailed: ReadonlySet<QueueId> = new Set()): Promise<QueueId[]> {
    if (!paths.size) return [];
    const tx = this.db.transaction(['queue', 'entryStatus'], 'readwrite');
    const statuses = tx.objectStore('entryStatus');
    const failed = new Set((await statuses.getAll()).flatMap((s) => (s.error ? [s.queueId] : [])));
    const removed: QueueId[] = [];
    for (let cursor = await tx.objectStore('queue').openCursor(); cursor; cursor = await cursor.continue()) {
      const { id, path, state } = cursor.value;
      if (!paths.has(path) || (state !== 'failed' && !failed.has(id) && !alsoFailed.has(id))) continue;
      await cursor.delete();
      await statuses.delete(id);
      removed.push(id);
    }
    await tx.done;
    return removed;
  }

  /**
   * Records that reading an entry starts, and returns how many earlier reads started and never ended
   * (the app stopped during them). The record goes when the entry is committed, failed or removed.
   */
  async startAttempt(id: QueueId): Promise<number> {
    const tx = this.db.transaction('entryStatus', 'readwrite');
    const status = await tx.store.get(id);
    const before = status?.reads ?? 0;
    await tx.store.put({ ...status, queueId: id, reads: before + 1 });
    await tx.done;
    return before;
  }

  /**
   * Marks an entry failed, keeping the message for the Library list. When Try again could succeed (too
   * large or too slow to read, storage full, unexpected errors) the entry keeps its contents and the
   * failure is a small record beside it (the Blob is never written again, which a full disk would refuse);
   * otherwise the contents are dropped. Returns false, changing nothing, when storage is too full for
   * even that (over its quota, every write fails, however small): the entry stays queued with its
   * contents, and the caller keeps the failure in memory (deleting the entry would lose the file).
   */
  async failQueued(id: QueueId, error: SerializedError): Promise<boolean> {
    const attempts = RETRIABLE.has(error.code) ? [() => this.recordFailure(id, error), () => this.dropContents(id, error)] : [() => this.dropContents(id, error)];
    for (const attempt of attempts) {
      try {
        await attempt();
        return true;
      } catch (err) {
        if (!isQuotaError(err)) throw err;
      }
    }
    return false;
  }

  private async recordFailure(id: QueueId, error: SerializedError): Promise<void> {
    await this.db.put('entryStatus', { queueId: id, reads: 0, error });
  }

  private async dropContents(id: QueueId, error: SerializedError): Promise<void> {
    const tx = this.db.transaction(['queue', 'entryStatus'], 'readwrite');
    try {
      const entry = await tx.objectStore('queue').get(id);
      if (entry) {
        const { blob: _blob, insist: _insist, ...rest } = entry;
        await tx.objectStore('queue').put({ ...rest, state: 'failed', error });
      }
      await tx.objectStore('entryStatus').delete(id);
      await tx.done;
    } catch (err) {
      abortQuietly(tx, []);
      throw err;
    }
  }

  getDocument(id: DocId): Promise<DocRecord | undefined> {
    return this.db.get('documents', id);
  }

  async findByPath(path: string): Promise<DocRecord[]> {
    return this.db.getAllFromIndex('documents', 'by-path', path);
  }

  listDocuments(): Promise<DocRecord[]> {
    return this.db.getAll('documents');
  }

  async listDocumentIds(): Promise<DocId[]> {
    return (await this.db.getAllKeys('documents')) as DocId[];
  }

  async getChunks(ids: readonly ChunkId[]): Promise<Array<ChunkRecord | undefined>> {
    const tx = this.db.transaction('chunks');
    return Promise.all(ids.map((id) => tx.store.get(id)));
  }

  getBlock(docId: DocId, index: number): Promise<BlockRecord | undefined> {
    return this.db.get('blocks', [docId, index]);
  }

  getManifest(docId: DocId): Promise<Manifest | undefined> {
    return this.db.get('manifests', docId);
  }

  /** Index entries of a stored document (for rebuilding the index from the store). */
  async indexEntriesOf(docId: DocId): Promise<IndexEntry[]> {
    const tx = this.db.transaction(['documents', 'manifests', 'chunks']);
    const [doc, manifest] = await Promise.all([tx.objectStore('documents').get(docId), tx.objectStore('manifests').get(docId)]);
    if (!doc || !manifest) return [];
    const chunks = await Promise.all([...new Set(manifest.chunkIds)].map((id) => tx.objectStore('chunks').get(id)));
    return entriesFor(chunks.filter((c): c is ChunkRecord => !!c), doc);
  }

  /**
   * Commits a prepared document atomically, replacing the documents in `replaces` (older versions of the
   * same path) and removing queue entry `queueId`. Returns the index entries added and removed. Throws
   * `cancelled` (and writes nothing) when `queueId` is no longer in the queue.
   */
  async commitDocument(prepared: PreparedDocument, queueId: QueueId | undefined, replaces: readonly DocId[] = [], original?: Blob): Promise<{ added: IndexEntry[]; removed: IndexEntry[] }> {
    const tx: WriteTx = this.db.transaction(WRITE_STORES, 'readwrite');
    const writes: Array<Promise<unknown>> = [];
    try {
      // Before the rest, so its quota error aborts the whole commit: nothing half-written stays.
      if (original) writes.push(tx.objectStore('originals').put(original, prepared.doc.id));
      return await this.commitInTx(tx, writes, prepared, queueId, replaces);
    } catch (err) {
      abortQuietly(tx, writes);
      throw err;
    }
  }

  private async commitInTx(tx: WriteTx, writes: Array<Promise<unknown>>, prepared: PreparedDocument, queueId: QueueId | undefined, replaces: readonly DocId[]): Promise<{ added: IndexEntry[]; removed: IndexEntry[] }> {
    const { doc, blocks, chunks } = prepared;
    // Removed from the queue (Delete) while it was being prepared: commit nothing.
    if (queueId && !(await tx.objectStore('queue').get(queueId))) {
      throw new DocQaError('cancelled', `${doc.name}: removed before it was indexed`);
    }
    const chunkStore = tx.objectStore('chunks');
    const removed: IndexEntry[] = [];
    // Chunks the new version shares with the old one keep their vectors: they are not embedded again.
    const kept = new Set(chunks.map((c) => c.id));
    for (const oldId of replaces) removed.push(...(await this.deleteInTx(tx, oldId, kept)));

    // Group locations by chunk: a chunk may repeat inside one document.
    const byChunk = new Map<ChunkId, { text: string; locations: ChunkLocation[] }>();
    for (const c of chunks) {
      const entry = byChunk.get(c.id) ?? { text: c.text, locations: [] };
      entry.locations.push(c.location);
      byChunk.set(c.id, entry);
    }
    const existing = await Promise.all([...byChunk.keys()].map((id) => chunkStore.get(id)));
    [...byChunk].forEach(([id, { text, locations }], i) => {
      const prior = existing[i]?.locations.filter((l) => l.docId !== doc.id) ?? [];
      writes.push(chunkStore.put({ id, text, locations: [...prior, ...locations] }));
    });
    writes.push(tx.objectStore('documents').put(queueId ? { ...doc, queueId } : doc));
    writes.push(tx.objectStore('manifests').put({ docId: doc.id, chunkIds: chunks.map((c) => c.id), blockCount: blocks.length }));
    blocks.forEach((b, index) => writes.push(tx.objectStore('blocks').put({ ...b, docId: doc.id, index })));
    if (queueId) writes.push(tx.objectStore('queue').delete(queueId), tx.objectStore('entryStatus').delete(queueId));
    await settle(tx.done, writes);
    const added = entriesFor([...byChunk].map(([id, v]) => ({ id, text: v.text })), doc);
    return { added, removed };
  }

  /** Deletes a document, its blocks and its chunk locations (chunks shared with others stay). */
  async deleteDocument(docId: DocId): Promise<IndexEntry[]> {
    const tx: WriteTx = this.db.transaction(WRITE_STORES, 'readwrite');
    try {
      const removed = await this.deleteInTx(tx, docId);
      await tx.done;
      return removed;
    } catch (err) {
      abortQuietly(tx, []);
      throw err;
    }
  }

  /** Deletes a document in `t`; chunks left with no location lose their vectors, unless `keep` holds them. */
  private async deleteInTx(t: WriteTx, docId: DocId, keep: ReadonlySet<ChunkId> = new Set()): Promise<IndexEntry[]> {
    const doc = await t.objectStore('documents').get(docId);
    const manifest = await t.objectStore('manifests').get(docId);
    if (!doc || !manifest) return [];
    const chunkStore = t.objectStore('chunks');
    const removed: IndexEntry[] = [];
    for (const id of new Set(manifest.chunkIds)) {
      const chunk = await chunkStore.get(id);
      if (!chunk) continue;
      removed.push({ chunkId: id, docId, text: chunk.text, title: headerTitleOf(doc) });
      const locations = chunk.locations.filter((l) => l.docId !== docId);
      if (locations.length) await chunkStore.put({ ...chunk, locations });
      else {
        await chunkStore.delete(id);
        if (!keep.has(id)) for (const key of await t.objectStore('vectors').index('by-chunk').getAllKeys(id)) await t.objectStore('vectors').delete(key);
      }
    }
    await t.objectStore('blocks').delete(IDBKeyRange.bound([docId, 0], [docId, Number.MAX_SAFE_INTEGER]));
    await t.objectStore('manifests').delete(docId);
    await t.objectStore('documents').delete(docId);
    await t.objectStore('originals').delete(docId);
    return removed;
  }

  /** The file a document was read from, when it was kept ("Keep original files"). */
  async getOriginal(docId: DocId): Promise<Blob | undefined> {
    return this.db.get('originals', docId);
  }

  async setTags(docId: DocId, tags: string[]): Promise<void> {
    const tx = this.db.transaction('documents', 'readwrite');
    const doc = await tx.store.get(docId);
    if (doc) await tx.store.put({ ...doc, tags });
    await tx.done;
  }

  saveSnapshot(snapshot: Snapshot): Promise<unknown> {
    return this.db.put('snapshots', snapshot);
  }

  /** Saves snapshots that must agree with each other (the chunk owners and an index) in one transaction. */
  async saveSnapshots(snapshots: readonly Snapshot[]): Promise<void> {
    const tx = this.db.transaction('snapshots', 'readwrite');
    const writes = snapshots.map((s) => tx.store.put(s));
    try {
      await settle(tx.done, writes);
    } catch (err) {
      abortQuietly(tx, writes);
      throw err;
    }
  }

  loadSnapshot(name: string): Promise<Snapshot | undefined> {
    return this.db.get('snapshots', name);
  }
}
