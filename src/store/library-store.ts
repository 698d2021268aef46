import type { ChunkId, DocId, QueueId } from '../core/ids.ts';
import { DocQaError } from '../core/errors.ts';
import { headerTitleOf } from '../core/doc-title.ts';
import type { BlockRecord, ChunkLocation, ChunkRecord, DequeueOutcome, DocRecord, IndexEntry, Manifest, PreparedDocument } from '../core/types.ts';
import type { IDBPTransaction } from 'idb';
import type { LibrarySchema, Snapshot } from './schema.ts';
import { QueueStore } from './queue-store.ts';
import { abortQuietly, settle } from './transactions.ts';

const WRITE_STORES = ['documents', 'manifests', 'blocks', 'chunks', 'queue', 'entryStatus', 'originals', 'vectors'] as const;
type WriteTx = IDBPTransaction<LibrarySchema, typeof WRITE_STORES, 'readwrite'>;

/** What removing a queue row did (see {@link DequeueOutcome}), with what to take out of the index. */
export type DequeueResult = { outcome: Exclude<DequeueOutcome, 'deleted'> } | { outcome: 'deleted'; docId: DocId; removed: IndexEntry[] };

/** The fields of `doc` among `keys` that are set: `{ ...doc, ...definedFields(old, keys) }` takes them from `old`. */
function definedFields(doc: DocRecord, keys: ReadonlyArray<keyof DocRecord>): Partial<DocRecord> {
  return Object.fromEntries(keys.filter((k) => doc[k] !== undefined).map((k) => [k, doc[k]]));
}

/** Index entries of a document's chunks, headed by its real title (never the file-name stand-in). */
function entriesFor(chunks: Iterable<{ id: ChunkId; text: string }>, doc: DocRecord): IndexEntry[] {
  const title = headerTitleOf(doc);
  return [...chunks].map((c) => ({ chunkId: c.id, docId: doc.id, text: c.text, title }));
}

/**
 * All reads and writes of the library. Every change that must be all-or-nothing is one IndexedDB
 * transaction: a document, its blocks, manifest and chunk locations, and the removal of its queue entry
 * commit together or not at all. The queue's own reads and writes come from {@link QueueStore}; the
 * transactions that span the queue and the documents ({@link commitDocument}, {@link dequeue}) are here.
 */
export class LibraryStore extends QueueStore {
  /**
   * The document list as last read, kept until a document changes: every question reads it (for its
   * filters, its whole-document reading and its passages), and at 6,623 documents one read is 30-100 ms
   * of a worker's time in Chromium. Forgotten by every write here that touches a document, and by
   * {@link forgetDocuments} when another tab says it changed one.
   */
  private documents: Promise<DocRecord[]> | undefined;

  /**
   * Removes a queue row, whatever became of it: a waiting or failed entry is dequeued; an entry that was
   * committed meanwhile (its row still said "Indexing 95%") has its document deleted, in one transaction.
   */
  async dequeue(id: QueueId): Promise<DequeueResult> {
    return this.changingDocuments(async () => {
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
    });
  }

  getDocument(id: DocId): Promise<DocRecord | undefined> {
    return this.db.get('documents', id);
  }

  async findByPath(path: string): Promise<DocRecord[]> {
    return this.db.getAllFromIndex('documents', 'by-path', path);
  }

  /**
   * Every document, in a new array each call (the records are shared between callers: read them, never
   * change them). `fresh`: read from the database even when a list is kept (reconciling the index with
   * the store, which is the truth); what it reads is kept for the next callers.
   */
  listDocuments(options: { fresh?: boolean } = {}): Promise<DocRecord[]> {
    if (!this.documents || options.fresh) {
      const read = this.db.getAll('documents');
      this.documents = read;
      // A failed read is not kept. (A read that overlaps a write is not kept either: the write forgets
      // the list when it ends.)
      read.catch(() => {
        if (this.documents === read) this.documents = undefined;
      });
    }
    return this.documents.then((list) => list.slice());
  }

  /** Another tab changed the documents: the next list is read from the database. */
  forgetDocuments(): void {
    this.documents = undefined;
  }

  /** Runs a write that may change documents: the kept list is forgotten before it starts and after it ends. */
  private async changingDocuments<T>(write: () => Promise<T>): Promise<T> {
    this.forgetDocuments();
    try {
      return await write();
    } finally {
      this.forgetDocuments();
    }
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

  /**
   * Index entries of stored documents (for rebuilding the index from the store), read in one transaction:
   * a library of 10,000 documents opened without its index snapshot is read in batches, not a transaction
   * per document.
   */
  async indexEntriesOf(docIds: readonly DocId[]): Promise<IndexEntry[]> {
    const tx = this.db.transaction(['documents', 'manifests', 'chunks']);
    const perDoc = await Promise.all(
      docIds.map(async (docId) => {
        const [doc, manifest] = await Promise.all([tx.objectStore('documents').get(docId), tx.objectStore('manifests').get(docId)]);
        if (!doc || !manifest) return [];
        const chunks = await Promise.all([...new Set(manifest.chunkIds)].map((id) => tx.objectStore('chunks').get(id)));
        return entriesFor(chunks.filter((c): c is ChunkRecord => !!c), doc);
      }),
    );
    return perDoc.flat();
  }


  /**
   * Commits a prepared document atomically, replacing the documents in `replaces` (older versions of the
   * same path) and removing queue entry `queueId`. Returns the index entries added and removed. Throws
   * `cancelled` (and writes nothing) when `queueId` is no longer in the queue.
   */
  async commitDocument(prepared: PreparedDocument, queueId: QueueId | undefined, replaces: readonly DocId[] = [], original?: Blob): Promise<{ added: IndexEntry[]; removed: IndexEntry[] }> {
    return this.changingDocuments(async () => {
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
    });
  }

  private async commitInTx(tx: WriteTx, writes: Array<Promise<unknown>>, prepared: PreparedDocument, queueId: QueueId | undefined, replaces: readonly DocId[]): Promise<{ added: IndexEntry[]; removed: IndexEntry[] }> {
    const { doc, blocks, chunks } = prepared;
    // Removed from the queue (Delete) while it was being prepared: commit nothing.
    const queued = queueId ? await tx.objectStore('queue').get(queueId) : undefined;
    if (queueId && !queued) throw new DocQaError('cancelled', `${doc.name}: removed before it was indexed`);
    const chunkStore = tx.objectStore('chunks');
    const removed: IndexEntry[] = [];
    // Chunks the new version shares with the old one keep their vectors: they are not embedded again.
    const kept = new Set(chunks.map((c) => c.id));
    const older = (await Promise.all(replaces.map((id) => tx.objectStore('documents').get(id)))).filter((d): d is DocRecord => !!d);
    // The same file read again (`QueueEntry.readAgain`): its kept file stays, and so do the chunks it still has in the index.
    const again = older.find((d) => d.id === doc.id);
    for (const oldId of replaces) {
      const gone = await this.deleteInTx(tx, oldId, kept, oldId === doc.id);
      removed.push(...(oldId === doc.id ? gone.filter((e) => !kept.has(e.chunkId)) : gone));
    }

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
    // The person's tags go with the file to its new version; a document read again is the same document,
    // added when it was (and a Delete on the row of its reading again must not delete it).
    const tags = [...new Set([...older.flatMap((d) => d.tags), ...doc.tags])];
    const record: DocRecord = again
      ? { ...doc, tags, addedAt: again.addedAt, ...definedFields(again, ['queueId', 'modified', 'addedAgainAt']) }
      : // The file's own time (folder sync tells an unchanged file by its size and time without reading it).
        { ...doc, tags, ...(queueId && { queueId }), ...(queued?.modified !== undefined && { modified: queued.modified }) };
    writes.push(tx.objectStore('documents').put(record));
    writes.push(tx.objectStore('manifests').put({ docId: doc.id, chunkIds: chunks.map((c) => c.id), blockCount: blocks.length }));
    blocks.forEach((b, index) => writes.push(tx.objectStore('blocks').put({ ...b, docId: doc.id, index })));
    if (queueId) writes.push(tx.objectStore('queue').delete(queueId), tx.objectStore('entryStatus').delete(queueId));
    await settle(tx.done, writes);
    const added = entriesFor([...byChunk].map(([id, v]) => ({ id, text: v.text })), doc);
    return { added, removed };
  }

  /**
   * Deletes a document, its blocks and its chunk locations (chunks shared with others stay). With
   * `unlessAddedSince` (when the person pressed Delete), a document whose file was added again since
   * (see {@link settleDuplicate}) is kept: `kept` is then true and nothing is removed. `found`: the
   * document was there.
   */
  async deleteDocument(docId: DocId, unlessAddedSince?: number): Promise<{ removed: IndexEntry[]; kept: boolean; found: boolean }> {
    return this.changingDocuments(async () => {
      const tx: WriteTx = this.db.transaction(WRITE_STORES, 'readwrite');
      try {
        const doc = await tx.objectStore('documents').get(docId);
        const kept = unlessAddedSince !== undefined && (doc?.addedAgainAt ?? -Infinity) >= unlessAddedSince;
        const removed = kept ? [] : await this.deleteInTx(tx, docId);
        await tx.done;
        return { removed, kept, found: !!doc };
      } catch (err) {
        abortQuietly(tx, []);
        throw err;
      }
    });
  }

  /**
   * A queued file turned out to be stored already (document `docId`): its queue row goes and the
   * document records that it was added again now, in one transaction, so a Delete pressed before (still
   * inside its Undo window) keeps it. False, changing nothing, when the document is gone meanwhile (that
   * Delete ran between the read and now): the file must then be read and committed after all. The same
   * file at the same path with a new time (touched, saved unchanged) takes that time, so the next folder
   * sync knows it unchanged without reading it.
   */
  async settleDuplicate(queueId: QueueId, docId: DocId, now = Date.now()): Promise<boolean> {
    return this.changingDocuments(async () => {
      const tx = this.db.transaction(['documents', 'queue', 'entryStatus'], 'readwrite');
      try {
        const doc = await tx.objectStore('documents').get(docId);
        if (doc) {
          const entry = await tx.objectStore('queue').get(queueId);
          const modified = entry?.path === doc.path && entry.modified !== undefined ? { modified: entry.modified } : {};
          await tx.objectStore('documents').put({ ...doc, addedAgainAt: now, ...modified });
          await tx.objectStore('queue').delete(queueId);
          await tx.objectStore('entryStatus').delete(queueId);
        }
        await tx.done;
        return !!doc;
      } catch (err) {
        abortQuietly(tx, []);
        throw err;
      }
    });
  }

  /**
   * Deletes a document in `t`; chunks left with no location lose their vectors, unless `keep` holds them.
   * `keepOriginal`: its kept file stays (the document is being read again from it).
   */
  private async deleteInTx(t: WriteTx, docId: DocId, keep: ReadonlySet<ChunkId> = new Set(), keepOriginal = false): Promise<IndexEntry[]> {
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
    if (!keepOriginal) await t.objectStore('originals').delete(docId);
    return removed;
  }

  /** The documents whose original file was kept. */
  async originalIds(): Promise<Set<DocId>> {
    return new Set((await this.db.getAllKeys('originals')) as DocId[]);
  }

  /** The file a document was read from, when it was kept ("Keep original files"). */
  async getOriginal(docId: DocId): Promise<Blob | undefined> {
    return this.db.get('originals', docId);
  }

  async setTags(docId: DocId, tags: string[]): Promise<void> {
    return this.changingDocuments(async () => {
      const tx = this.db.transaction('documents', 'readwrite');
      const doc = await tx.store.get(docId);
      if (doc) await tx.store.put({ ...doc, tags });
      await tx.done;
    });
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
