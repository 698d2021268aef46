import type { QueueId } from '../core/ids.ts';
import { asQueueId } from '../core/ids.ts';
import { forFile, isQuotaError, serializeError, type SerializedError } from '../core/errors.ts';
import type { DocRecord, PageReading, QueueEntry } from '../core/types.ts';
import type { LibraryDb } from './schema.ts';
import { abortQuietly, settle } from './transactions.ts';

/** A file to add to the persisted queue. */
export interface NewQueueItem {
  name: string;
  folder: string;
  path: string;
  blob: Blob;
  modified?: number;
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

/** Failures worth keeping the file's bytes for, so Try again can read it again. */
const RETRIABLE: ReadonlySet<string> = new Set(['read-limit', 'too-slow', 'interrupted', 'storage-full', 'internal']);

/**
 * The persisted ingest queue: files waiting to be read (with their contents), and failed ones (with their
 * messages), in drop order; `entryStatus` beside it records reads started and failures recorded without
 * rewriting the file's contents. Transactions that also touch documents (committing a file, removing a
 * row whose file was just committed) are in {@link LibraryStore}.
 */
export class QueueStore {
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
      ...(item.modified !== undefined && { modified: item.modified }),
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

  /**
   * Queues stored documents to be read again from their kept files (`QueueEntry.readAgain`), in one
   * transaction, without a copy of the file: the entry reads the document's original when its turn comes.
   * Documents without a kept file, and those already waiting to be read again (or failed to), are passed
   * over. Returns the entries queued.
   */
  async enqueueReadAgain(docs: readonly DocRecord[], now = Date.now()): Promise<QueueEntry[]> {
    const tag = randomTag();
    const tx = this.db.transaction(['queue', 'originals'], 'readwrite');
    const writes: Array<Promise<unknown>> = [];
    try {
      // Waiting, or failed (its row says why; Try again reads it once more).
      const waiting = new Set((await tx.objectStore('queue').getAll()).flatMap((e) => (e.readAgain ? [e.readAgain] : [])));
      const entries: QueueEntry[] = [];
      for (const doc of docs) {
        if (waiting.has(doc.id) || (await tx.objectStore('originals').getKey(doc.id)) === undefined) continue;
        const { name, folder, path, size, modified } = doc;
        const entry: QueueEntry = { id: queueKey(now, entries.length, tag), name, folder, path, size, readAgain: doc.id, addedAt: now, state: 'queued', ...(modified !== undefined && { modified }) };
        entries.push(entry);
        writes.push(tx.objectStore('queue').put(entry));
      }
      await settle(tx.done, writes);
      return entries;
    } catch (err) {
      abortQuietly(tx, writes);
      throw err;
    }
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

  /**
   * Whether the connection still takes transactions: false once it was closed (by this app, or by the
   * browser: site data cleared), which tells a failed write that it was not the data's fault.
   */
  isOpen(): boolean {
    try {
      this.db.transaction('entryStatus');
      return true;
    } catch {
      return false;
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

  /**
   * Queue entries without their file contents (only whether they are kept: a reading again's, whether its
   * document's original still is), in drop order.
   */
  async listQueue(): Promise<Array<QueueEntry & { hasContents: boolean }>> {
    const tx = this.db.transaction(['queue', 'entryStatus', 'originals']);
    const [all, statuses] = await Promise.all([tx.objectStore('queue').getAll(), tx.objectStore('entryStatus').getAll()]);
    const errors = new Map(statuses.flatMap((s) => (s.error ? [[s.queueId, s.error] as const] : [])));
    const originals = tx.objectStore('originals');
    const kept = new Set(await Promise.all(all.flatMap((e) => (e.readAgain ? [originals.getKey(e.readAgain)] : []))));
    return all.map(({ blob, ...rest }) => {
      const error = errors.get(rest.id);
      return { ...rest, ...(error ? { state: 'failed' as const, error } : {}), hasContents: !!blob || (!!rest.readAgain && kept.has(rest.readAgain)) };
    });
  }

  /** The PDF pages OCR read for entry `id` in reads of it that did not finish. */
  async recognisedPages(id: QueueId): Promise<PageReading[]> {
    const kept = await this.db.getAll('recognisedPages', IDBKeyRange.bound([id, 0], [id, Infinity]));
    return kept.map(({ queueId: _queueId, ...reading }) => reading);
  }

  /** Keeps a page OCR read for entry `id`, until the entry leaves the queue ({@link sweepRecognisedPages}). */
  async keepRecognisedPage(id: QueueId, reading: PageReading): Promise<void> {
    await this.db.put('recognisedPages', { queueId: id, ...reading });
  }

  /** Whether entry `id` is still in the queue (waiting, or failed with its row kept). */
  async isQueued(id: QueueId): Promise<boolean> {
    return (await this.db.count('queue', id)) > 0;
  }

  /** Removes the pages kept for entry `id` (it was stored, or dismissed). */
  async dropRecognisedPages(id: QueueId): Promise<void> {
    await this.db.delete('recognisedPages', IDBKeyRange.bound([id, 0], [id, Infinity]));
  }

  /** Removes the kept pages of entries no longer queued (stored, deleted or dismissed); returns for how many entries. */
  async sweepRecognisedPages(): Promise<number> {
    const tx = this.db.transaction(['queue', 'recognisedPages'], 'readwrite');
    const [queued, kept] = await Promise.all([tx.objectStore('queue').getAllKeys(), tx.objectStore('recognisedPages').getAllKeys()]);
    const live = new Set<string>(queued);
    const gone = new Set(kept.map(([queueId]) => queueId).filter((queueId) => !live.has(queueId)));
    await Promise.all([...gone].map((queueId) => tx.objectStore('recognisedPages').delete(IDBKeyRange.bound([queueId, 0], [queueId, Infinity]))));
    await tx.done;
    return gone.size;
  }

  /** Removes a queue entry (its file was found to be in the library already). */
  async removeQueued(id: QueueId): Promise<void> {
    const tx = this.db.transaction(['queue', 'entryStatus'], 'readwrite');
    await Promise.all([tx.objectStore('queue').delete(id), tx.objectStore('entryStatus').delete(id), tx.done]);
  }

  /** Puts a failed entry back in the queue, to be read with relaxed limits (Try again). False when its contents are gone. */
  async retryQueued(id: QueueId): Promise<boolean> {
    const tx = this.db.transaction(['queue', 'entryStatus', 'originals'], 'readwrite');
    const entry = await tx.objectStore('queue').get(id);
    // A document's reading again reads its kept file, never copied into the queue.
    const ok = !!entry?.blob || (!!entry?.readAgain && (await tx.objectStore('originals').getKey(entry.readAgain)) !== undefined);
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
   * Records that reading an entry starts, in session `session` (one library worker's life), and returns
   * how many earlier reads the app did not survive. A read still marked as started was cut short: it
   * counts unless `endedCleanly` says its session ended with a page unload (a reload, a closed tab), and
   * `cut` tells whether it just counted. See {@link endAttempt}; the record goes when the entry is
   * committed, failed or removed.
   */
  async startAttempt(id: QueueId, session: string, endedCleanly: (session: string) => boolean | Promise<boolean> = () => false): Promise<{ interrupted: number; cut: boolean }> {
    const earlier = await this.db.get('entryStatus', id);
    const cut = !!earlier?.reading && !(await endedCleanly(earlier.reading.session));
    const tx = this.db.transaction('entryStatus', 'readwrite');
    const writes: Array<Promise<unknown>> = [];
    try {
      const status = await tx.store.get(id);
      const interrupted = (status?.reads ?? 0) + (cut ? 1 : 0);
      writes.push(tx.store.put({ ...status, queueId: id, reads: interrupted, reading: { session, startedAt: Date.now() } }));
      await settle(tx.done, writes);
      return { interrupted, cut };
    } catch (err) {
      // A refused put (storage full) must not leave the transaction's rejection unobserved.
      abortQuietly(tx, writes);
      throw err;
    }
  }

  /**
   * Reading an entry ended (read, or failed): a crash from now on, while it waits for its commit, is not
   * its doing. Only the read this session started is ended (Try again may have reset the record). Never
   * throws.
   */
  async endAttempt(id: QueueId, session: string): Promise<void> {
    const tx = this.db.transaction('entryStatus', 'readwrite');
    const writes: Array<Promise<unknown>> = [];
    try {
      const status = await tx.store.get(id);
      if (status?.reading?.session === session) {
        const { reading: _reading, ...rest } = status;
        writes.push(tx.store.put(rest));
      }
      await settle(tx.done, writes);
    } catch (err) {
      abortQuietly(tx, writes);
      // Best effort (storage full, say): the read itself went well; at worst a crash before its commit
      // counts against the file.
      console.warn('end of read not recorded', err);
    }
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
}
