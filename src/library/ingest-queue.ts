import { DocQaError, forFile, isQuotaError, isStorageFailure, serializeError, type SerializedError } from '../core/errors.ts';
import type { DocId, QueueId } from '../core/ids.ts';
import type { LibraryEvent, PageReading, QueueEntry, ReadingStage } from '../core/types.ts';
import { DEFAULT_CHUNK_OPTIONS, type ChunkOptions } from '../ingest/chunk.ts';
import { detectType } from '../ingest/file-kinds.ts';
import { docIdOf } from '../ingest/hash.ts';
import type { PreparedDocument } from '../ingest/prepare-document.ts';
import { DEFAULT_READ_LIMITS, relaxedLimits, type ReadLimits } from '../ingest/read-limits.ts';
import type { IndexEntry } from '../index/search-index.ts';
import type { LibraryStore } from '../store/library-store.ts';
import type { IndexKeeper } from './index-keeper.ts';
import { inProcessPreparer, type Preparer } from './preparer.ts';
import { QueueProgress } from './queue-progress.ts';

/** Default for {@link IngestOptions.maxFileBytes}. */
const DEFAULT_MAX_FILE_BYTES = 256 * 2 ** 20;
/** How long a failed commit waits for the database's `close` event before blaming the file (ms). */
const CLOSE_EVENT_WAIT_MS = 200;
/** A file whose reading was interrupted this many times (the app stopped meanwhile) is not read again unasked. */
const MAX_INTERRUPTED_READS = 2;

/** What preparing a queued file produced, kept until its turn to commit. */
type EntryResult = { kind: 'prepared'; prepared: PreparedDocument } | { kind: 'duplicate'; docId: DocId; matches: string } | { kind: 'failed'; error: unknown };

/** How the queue reads files (part of {@link LibraryOptions}). */
export interface IngestOptions {
  chunk?: ChunkOptions;
  /** Largest file indexed, in bytes. Default 256 MB; larger files fail with "too large". */
  maxFileBytes?: number;
  /** Reads files into prepared documents. Default: in this thread (Node); the browser passes a parse worker. */
  preparer?: Preparer;
  /** Size caps checked before decompressing. Default {@link DEFAULT_READ_LIMITS}; Try again quadruples them. */
  readLimits?: ReadLimits;
  /** Pause before the queue loop starts again after an unexpected failure (a storage error, say). Default 2000 ms. */
  queueRetryMs?: number;
  /**
   * Most memory the parse worker may use, where the page can measure it ({@link IngestQueue.reportReaderMemory}).
   * Default 1 GiB; Try again doubles it.
   */
  maxReaderBytes?: number;
  /** This library's session (one worker's life), recorded with each read it starts. Default: a random id. */
  session?: string;
  /**
   * Whether a session ended with a page unload (a reload, a closed tab) rather than a crash: a read it left
   * unfinished is then read again without counting against the file. Default: never (every one counts).
   */
  endedCleanly?: (session: string) => boolean | Promise<boolean>;
}

/** An image that came with a folder, in which OCR found no text: not a document, and not a failure either. */
function isPictureWithoutText(entry: QueueEntry, error: unknown): boolean {
  return !!entry.folder && !entry.readAgain && detectType(entry.name) === 'image' && error instanceof DocQaError && error.code === 'no-text-layer';
}

/**
 * The ingest queue runner of the writer tab: reads the persisted queue's files in order (the next one
 * prepared while the one before it commits), commits each with its index entries, reports progress, and
 * records failures (in memory when storage is too full to record them). The {@link Library} owns it.
 */
export class IngestQueue {
  private processing: Promise<void> | undefined;
  private progress = new QueueProgress();
  /** What each file being read last reported (its percentage and stage), so that only changes are sent. */
  private percents = new Map<QueueId, string>();
  private lookAgain = false;
  private readonly preparer: Preparer;
  /** The queue entry whose file is being read now (the one a Delete or the memory limit stops). */
  private reading: QueueEntry | undefined;
  /** Whether this queue swept the OCR pages kept for entries no longer queued (once, at its first run). */
  private swept = false;
  /** Entries with OCR pages kept (read before, or this session): their pages are dropped once they leave the queue. */
  private withKeptPages = new Set<QueueId>();
  /**
   * Failures that storage was too full to record (see {@link QueueStore.failQueued}): their entries
   * stay queued, with their contents, and are listed as failed from here until Try again, Delete or a
   * restart (which reads them again). The {@link Library}'s Delete, Try again and a drop of the same
   * path forget entries from it.
   */
  readonly unrecorded = new Map<QueueId, SerializedError>();
  /** "Keep original files": each committed document keeps the file it was read from. Default on. */
  keepOriginals = true;
  /**
   * This tab became the writer when another tab let go while open (it closed, reloaded or crashed): a read
   * that tab's crash cut short is then failed, not read again here, so one file cannot take every open tab
   * down in turn. A fresh start (no other tab was writing) reads it once more.
   */
  tookOver = false;
  private readonly session: string;
  /** Set when the database was closed under the queue (site data cleared, say): nothing more is tried. */
  private stoppedBy: DocQaError | undefined;

  constructor(
    private readonly store: LibraryStore,
    private readonly keeper: IndexKeeper,
    private readonly emit: (event: LibraryEvent) => void,
    /** Only the writer tab indexes: the loop starts again after a failure only while this holds. */
    private readonly isWriter: () => boolean,
    private readonly options: IngestOptions = {},
  ) {
    this.preparer = options.preparer ?? inProcessPreparer();
    this.session = options.session ?? crypto.randomUUID();
  }

  /** Counts files just added to the queue in the current run's progress. */
  countAdded(entries: readonly QueueEntry[]): void {
    this.progress.add(entries.length, entries.reduce((s, e) => s + e.size, 0));
  }

  /**
   * The database was closed under the queue: the file being read is stopped, the run ends without
   * recording failures (there is nowhere to record them, and the files are not at fault), and no retry
   * is scheduled. The files stay queued in whatever store the next start opens.
   */
  stop(error: DocQaError): void {
    this.stoppedBy = error;
    this.preparer.abort(error);
  }

  /** Stops reading entry `id`, if its file is the one being read (Delete on its row). */
  stopReading(id: QueueId): void {
    if (this.reading?.id === id) this.preparer.abort(new DocQaError('cancelled', 'removed while it was being read'));
  }

  /**
   * Indexes queued files in order until the queue is empty. While one file is being committed, the next
   * one is already read, parsed and hashed (hashing is asynchronous and committing is I/O, so the two
   * overlap). Safe to call repeatedly: a call during a run makes the run look at the queue once more
   * before it ends, so a file enqueued just as the run found the queue empty is never left waiting.
   */
  processQueue(): Promise<void> {
    if (this.stoppedBy) return this.processing ?? Promise.resolve();
    if (this.processing) {
      this.lookAgain = true;
      void this.countWaiting();
      return this.processing;
    }
    this.processing = (async () => {
      try {
        await this.runQueue();
      } catch (err) {
        if (this.stoppedBy) return;
        // The loop itself failed (a storage error, say): no file is lost, they are still queued.
        console.error('ingest queue stopped; starting it again shortly', err);
        setTimeout(() => {
          if (this.isWriter() && !this.stoppedBy) void this.processQueue();
        }, this.options.queueRetryMs ?? 2000);
      } finally {
        this.processing = undefined;
        this.progress.reset();
        if (this.keeper.dirty && !this.stoppedBy) void this.keeper.saveSnapshot();
      }
    })();
    return this.processing;
  }

  private async runQueue(): Promise<void> {
    let ahead: Promise<EntryResult> | undefined;
    // Pages kept for entries that left the queue while no run was there to drop them (dismissed, say).
    if (!this.swept) {
      this.swept = true;
      await this.store.sweepRecognisedPages().catch((err: unknown) => console.warn('kept OCR pages not swept', err));
    }
    try {
      do {
        this.lookAgain = false;
        await this.countWaiting();
        let entry = await this.nextQueued();
        ahead = entry && this.prepareEntry(entry);
        while (entry && ahead && !this.stoppedBy) {
          const result = await ahead;
          ahead = undefined;
          const next = await this.nextQueued(entry.id);
          ahead = next && this.prepareEntry(next);
          await this.finishEntry(entry, result);
          entry = next;
        }
      } while (this.lookAgain && !this.stoppedBy);
    } finally {
      // Never leave a read running unobserved: the next run must not start a second one beside it.
      await ahead;
    }
  }

  /** Brings the overall progress up to the files waiting in the persisted queue (whichever tab added them). */
  private async countWaiting(): Promise<void> {
    try {
      const waiting = await this.store.waitingTotals();
      this.progress.expect(waiting.files, waiting.bytes);
      this.emitQueue();
    } catch (err) {
      console.warn('queue totals not read', err);
    }
  }

  /** The next queued entry after `after`, passing over those whose failure is only {@link unrecorded}. */
  private async nextQueued(after?: QueueId): Promise<QueueEntry | undefined> {
    let entry = await this.store.nextQueued(after);
    while (entry && this.unrecorded.has(entry.id)) entry = await this.store.nextQueued(entry.id);
    return entry;
  }

  private emitQueue(): void {
    if (this.stoppedBy) return;
    this.emit({ type: 'queue', ...this.progress.figures() });
  }

  /** Reads, hashes, parses and chunks a queued file. Never throws: a failure is returned, for its turn. */
  private async prepareEntry(entry: QueueEntry): Promise<EntryResult> {
    this.progress.ensure(entry.size);
    this.percents.set(entry.id, '0 ');
    this.emit({ type: 'file-progress', queueId: entry.id, path: entry.path, percent: 0 });
    try {
      // A document deleted while it waited to be read again is not brought back.
      if (entry.readAgain && !(await this.store.getDocument(entry.readAgain))) return { kind: 'failed', error: await this.dropReadAgain(entry) };
      const blob = entry.blob ?? (entry.readAgain && (await this.store.getOriginal(entry.readAgain)));
      if (!blob) {
        if (entry.readAgain) throw new DocQaError('corrupt-file', `${entry.name}: its original file is no longer kept, so it cannot be read again here; add the file again`);
        throw new DocQaError('corrupt-file', `${entry.name}: the file's contents were lost; add it again`);
      }
      const max = this.options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
      if (entry.size > max) {
        throw new DocQaError('too-large', `${entry.name}: too large to index here (${Math.round(entry.size / 2 ** 20)} MB; the limit is ${Math.round(max / 2 ** 20)} MB): split it into smaller files`);
      }
      const bytes = new Uint8Array(await blob.arrayBuffer());
      const docId = await docIdOf(bytes);
      const stored = await this.store.getDocument(docId);
      if (stored && docId !== entry.readAgain) return { kind: 'duplicate', docId, matches: stored.path };
      await this.checkEarlierReads(entry);
      const limits = this.options.readLimits ?? DEFAULT_READ_LIMITS;
      this.reading = entry;
      // Pages OCR read in an earlier read of this file that did not finish (a reload, a failure): not read again.
      const recognised = await this.store.recognisedPages(entry.id).catch(() => []);
      if (recognised.length) this.withKeptPages.add(entry.id);
      const request = {
        ...(recognised.length && { recognised }),
        name: entry.name,
        folder: entry.folder,
        blob,
        docId,
        addedAt: Date.now(),
        chunk: this.options.chunk ?? DEFAULT_CHUNK_OPTIONS,
        limits: entry.insist ? relaxedLimits(limits) : limits,
      };
      try {
        const prepared = await this.preparer.prepare(request, (f, stage) => this.reportProgress(entry, f, stage), entry.insist, (reading) => this.keepPage(entry, reading));
        return { kind: 'prepared', prepared };
      } finally {
        await this.store.endAttempt(entry.id, this.session);
      }
    } catch (error) {
      return { kind: 'failed', error };
    } finally {
      if (this.reading === entry) this.reading = undefined;
    }
  }

  /**
   * Records that this session starts reading the entry, after checking how earlier reads ended. A file
   * whose reading the app did not survive (the tab ran out of memory, say) would otherwise be read again
   * at every start, forever, or by each open tab in turn: it is given up until the person presses Try
   * again. Reads cut short by a reload or a closed tab do not count.
   */
  private async checkEarlierReads(entry: QueueEntry): Promise<void> {
    const { interrupted, cut } = await this.store.startAttempt(entry.id, this.session, this.options.endedCleanly);
    if (cut && this.tookOver && !entry.insist) {
      throw new DocQaError('interrupted', `${entry.name}: the app stopped in another tab while reading this file (it may need more memory than this device has), so it was not read again here. Press Try again to insist, or split it into smaller files`);
    }
    if (interrupted >= MAX_INTERRUPTED_READS) {
      throw new DocQaError('interrupted', `${entry.name}: the app stopped twice while reading this file; it was skipped. Press Try again to insist, or split it into smaller files`);
    }
  }

  /** Commits a prepared file (or records why it was not), in queue order. Never throws. */
  private async finishEntry(entry: QueueEntry, result: EntryResult): Promise<void> {
    try {
      await this.commitEntry(entry, result);
    } catch (err) {
      // The database closing under the queue is not the file's fault: the file stays queued for the next
      // start. The `close` event follows the failed transactions, so a storage failure waits a moment for it.
      if (isStorageFailure(err)) await new Promise((resolve) => setTimeout(resolve, CLOSE_EVENT_WAIT_MS));
      if (this.stoppedBy || !this.store.isOpen()) return;
      const error = forFile(serializeError(err), entry.name);
      if (error.code === 'cancelled') this.emit({ type: 'file-done', queueId: entry.id, path: entry.path, outcome: 'cancelled' });
      else {
        if (error.code === 'internal') console.error(err);
        const recorded = await this.store.failQueued(entry.id, error).catch((e: unknown) => console.error(`${entry.path}: failure not recorded`, e));
        if (recorded === false) this.unrecorded.set(entry.id, error);
        this.emit({ type: 'file-failed', queueId: entry.id, path: entry.path, error });
      }
    }
    this.percents.delete(entry.id);
    // Stored, removed, or failed with its contents dropped: pages kept for it are no longer needed. A failure
    // that keeps the file keeps them too, for Try again.
    if (this.withKeptPages.has(entry.id) && !(await this.store.isQueued(entry.id).catch(() => true))) {
      this.withKeptPages.delete(entry.id);
      await this.store.dropRecognisedPages(entry.id).catch(() => undefined);
    }
    this.progress.fileDone(entry.size);
    this.emitQueue();
    this.emit({ type: 'changed' });
  }

  private async commitEntry(entry: QueueEntry, result: EntryResult): Promise<void> {
    if (result.kind === 'failed') {
      if (!isPictureWithoutText(entry, result.error)) throw result.error;
      // A folder's pictures without text (figures, icons, photos) are left out, as its style sheets are:
      // a failed row each would bury the files that did fail.
      await this.store.removeQueued(entry.id);
      this.emit({ type: 'file-done', queueId: entry.id, path: entry.path, outcome: 'no-text' });
      return;
    }
    if (entry.readAgain && result.kind === 'prepared') return this.commitReadAgain(entry, entry.readAgain, result.prepared);
    // Checked again: the file just before this one in the queue may have had the same bytes.
    const stored = result.kind === 'duplicate' ? undefined : await this.store.getDocument(result.prepared.doc.id);
    if (result.kind === 'duplicate' || stored) {
      const docId = result.kind === 'duplicate' ? result.docId : result.prepared.doc.id;
      const matches = result.kind === 'duplicate' ? result.matches : stored!.path;
      if (await this.store.settleDuplicate(entry.id, docId)) {
        this.emit({ type: 'file-done', queueId: entry.id, path: entry.path, outcome: 'already-in-library', matches, docId });
        return;
      }
      // The stored copy was deleted since the read found it (a Delete whose Undo ran out): the entry stays
      // queued and is read again in this run's next pass (a read beside the one prepared ahead would
      // share its worker).
      if (result.kind === 'duplicate') {
        this.lookAgain = true;
        return;
      }
    }
    // Only a file that came with a folder replaces an older version at the same path: two different
    // files that are both just "notes.txt" are two documents.
    const older = entry.folder ? (await this.store.findByPath(entry.path)).map((d) => d.id) : [];
    const docId = result.prepared.doc.id;
    const { added, removed } = await this.commitWithOriginal(entry, result.prepared, older);
    // Add before remove: chunks the new version shares with the old one are never re-indexed.
    await this.keeper.add(docId, added);
    await this.keeper.remove(removed);
    this.emit({ type: 'file-done', queueId: entry.id, path: entry.path, outcome: older.length ? 'replaced' : 'indexed' });
    this.keeper.scheduleSnapshot();
  }

  /**
   * Commits a document read again from its kept file in its place (same id: the same bytes), keeping its
   * tags and the chunks it still has, which keep their vectors. A document deleted meanwhile is not brought
   * back: the reading is dropped.
   */
  private async commitReadAgain(entry: QueueEntry, docId: DocId, prepared: PreparedDocument): Promise<void> {
    if (prepared.doc.id !== docId || !(await this.store.getDocument(docId))) throw await this.dropReadAgain(entry);
    const { added, removed } = await this.store.commitDocument(prepared, entry.id, [docId]);
    await this.keeper.add(docId, added);
    await this.keeper.remove(removed);
    this.emit({ type: 'file-done', queueId: entry.id, path: entry.path, outcome: 'read-again', docId });
    this.keeper.scheduleSnapshot();
  }

  /** Drops the reading again of a document deleted meanwhile; returns the `cancelled` error its row ends with. */
  private async dropReadAgain(entry: QueueEntry): Promise<DocQaError> {
    await this.store.removeQueued(entry.id);
    return new DocQaError('cancelled', `${entry.name}: deleted before it was read again`);
  }

  /**
   * Keeps a page OCR just read, so that a read cut short resumes after it. Best effort: a page that could
   * not be kept (storage full) is only read again.
   */
  private keepPage(entry: QueueEntry, reading: PageReading): void {
    if (this.reading !== entry) return;
    this.withKeptPages.add(entry.id);
    this.store.keepRecognisedPage(entry.id, reading).catch((err: unknown) => console.warn(`${entry.path}: page ${reading.page} read by OCR not kept`, err));
  }

  private reportProgress(entry: QueueEntry, fraction: number, stage?: ReadingStage): void {
    // A read stopped by Delete can still report from its worker's last moments: the file is done with.
    if (this.reading !== entry) return;
    const percent = Math.min(99, Math.floor(fraction * 100));
    // Sent when the percentage or the stage's words change (a page, the seconds left), not at every beat.
    const said = `${percent} ${stage ? `${stage.page}/${stage.pages} ${stage.secondsLeft ?? ''}` : ''}`;
    if (said === this.percents.get(entry.id)) return;
    this.percents.set(entry.id, said);
    this.progress.partial(entry.size * fraction, entry.size, stage?.secondsLeft);
    this.emit({ type: 'file-progress', queueId: entry.id, path: entry.path, percent, ...(stage && { stage }) });
    this.emitQueue();
  }

  /**
   * The page measured the parse worker's memory (browsers that can: `measureUserAgentSpecificMemory`,
   * cross-origin isolated). A read past the limit is stopped and the file fails with "too large to read
   * here", keeping its bytes for Try again, before it can take the tab down.
   */
  reportReaderMemory(bytes: number): void {
    const entry = this.reading;
    if (!entry) return;
    const limit = (this.options.maxReaderBytes ?? 2 ** 30) * (entry.insist ? 2 : 1);
    if (bytes <= limit) return;
    const mb = (n: number) => `${Math.round(n / 2 ** 20)} MB`;
    this.preparer.abort(
      new DocQaError('read-limit', `${entry.name}: too large to read here: reading it took ${mb(bytes)} of memory (the limit is ${mb(limit)}). Split it into smaller files, or press Try again to insist`),
    );
  }

  /**
   * Commits a prepared document with its original file when originals are kept. Too little room for both
   * is not a failure: the document is committed again without it (its sources then show the text view).
   */
  private async commitWithOriginal(entry: QueueEntry, prepared: PreparedDocument, older: readonly DocId[]): Promise<{ added: IndexEntry[]; removed: IndexEntry[] }> {
    if (!this.keepOriginals || !entry.blob) return this.store.commitDocument(prepared, entry.id, older);
    try {
      return await this.store.commitDocument(prepared, entry.id, older, entry.blob);
    } catch (err) {
      if (!isQuotaError(err)) throw err;
      return this.store.commitDocument(prepared, entry.id, older);
    }
  }
}
