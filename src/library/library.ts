import { DocQaError, forFile, isQuotaError, serializeError, type SerializedError } from '../core/errors.ts';
import { describeBlock } from '../core/block-label.ts';
import type { DocId, QueueId } from '../core/ids.ts';
import type { IncomingFile } from '../core/library-api.ts';
import type { Answer, DequeueOutcome, DocRecord, LibraryEvent, LibraryItem, QueueEntry, SearchFilter, SourceRequest, SourceView } from '../core/types.ts';
import { extractiveAnswerer, type Answerer } from '../generate/answerer.ts';
import { DEFAULT_CHUNK_OPTIONS, type ChunkOptions } from '../ingest/chunk.ts';
import { docIdOf } from '../ingest/hash.ts';
import { isSystemFile, joinPath } from '../ingest/file-kinds.ts';
import type { PreparedDocument } from '../ingest/prepare-document.ts';
import { DEFAULT_READ_LIMITS, relaxedLimits, type ReadLimits } from '../ingest/read-limits.ts';
import type { IndexEntry } from '../index/search-index.ts';
import type { ChunkEmbedder } from '../embed/chunk-embedder.ts';
import { hybridSearch, type HybridOptions } from '../retrieve/hybrid.ts';
import { retrievePassages } from '../retrieve/retrieve.ts';
import { VectorStore } from '../store/vector-store.ts';
import { Embedding, type EmbeddingOptions } from './embedding.ts';
import type { LibraryStore } from '../store/library-store.ts';
import { IndexKeeper } from './index-keeper.ts';
import { inProcessPreparer, type Preparer } from './preparer.ts';
import { QueueProgress } from './queue-progress.ts';
import { clampRange, locateMarks } from './source-view.ts';

/** Default for {@link LibraryOptions.maxFileBytes}. */
const DEFAULT_MAX_FILE_BYTES = 256 * 2 ** 20;
/** A file whose reading was interrupted this many times (the app stopped meanwhile) is not read again unasked. */
const MAX_INTERRUPTED_READS = 2;

/** What preparing a queued file produced, kept until its turn to commit. */
type EntryResult = { kind: 'prepared'; prepared: PreparedDocument } | { kind: 'duplicate'; matches: string } | { kind: 'failed'; error: unknown };

export interface LibraryOptions {
  chunk?: ChunkOptions;
  /** Largest file indexed, in bytes. Default 256 MB; larger files fail with "too large". */
  maxFileBytes?: number;
  /**
   * Longest time the saved index snapshot lags behind the store while files are being indexed; it is
   * also saved whenever the queue empties. Default 5000 ms. (Saving 20k chunks takes ~0.3 s; a stale
   * snapshot only costs a reconcile at the next start.)
   */
  snapshotDelayMs?: number;
  /** Reads files into prepared documents. Default: in this thread (Node); the browser passes a parse worker. */
  preparer?: Preparer;
  /** Size caps checked before decompressing. Default {@link DEFAULT_READ_LIMITS}; Try again quadruples them. */
  readLimits?: ReadLimits;
  /** Pause before the queue loop starts again after an unexpected failure (a storage error, say). Default 2000 ms. */
  queueRetryMs?: number;
  /**
   * Most memory the parse worker may use, where the page can measure it ({@link Library.reportReaderMemory}).
   * Default 1 GiB; Try again doubles it.
   */
  maxReaderBytes?: number;
  /** Answers questions from the retrieved passages. Default {@link extractiveAnswerer}. */
  answerer?: Answerer;
  /** Reciprocal Rank Fusion of BM25 and dense hits: k (default 60) and hits asked per retriever. */
  fusion?: HybridOptions;
  /** Background embedding: batch size, the wait for a question's vector. */
  embedding?: EmbeddingOptions;
}

/**
 * The library: ingest queue, store and lexical index together. The store is the truth; the index is
 * rebuilt from it on any doubt (a snapshot older than the store is brought up to date at start-up).
 * Only the tab holding the writer lock calls {@link processQueue}; every tab can search.
 */
export class Library {
  private readonly keeper: IndexKeeper;
  /** Semantic search: vectors for every chunk, in the background, once a model is in use. */
  private readonly embedding: Embedding;
  private processing: Promise<void> | undefined;
  private progress = new QueueProgress();
  /** Last percent reported per file in flight (at most two: one committing, the next being prepared). */
  private percents = new Map<QueueId, number>();
  private writer = false;
  private lookAgain = false;
  private readonly preparer: Preparer;
  /** The queue entry whose file is being read now (the one a Delete or the memory limit stops). */
  private reading: QueueEntry | undefined;
  /**
   * Failures that storage was too full to record (see {@link LibraryStore.failQueued}): their entries
   * stay queued, with their contents, and are listed as failed from here until Try again, Delete or a
   * restart (which reads them again).
   */
  private unrecorded = new Map<QueueId, SerializedError>();
  /** "Keep original files": each committed document keeps the file it was read from. Default on. */
  private keepOriginals = true;

  constructor(
    private readonly store: LibraryStore,
    private readonly emit: (event: LibraryEvent) => void,
    private readonly options: LibraryOptions = {},
  ) {
    this.preparer = options.preparer ?? inProcessPreparer();
    this.keeper = new IndexKeeper(store, () => this.writer, options.snapshotDelayMs);
    this.embedding = new Embedding(store, new VectorStore(store.db), this.keeper, emit, options.embedding);
  }

  /**
   * Uses an embedding model for semantic search from now on (undefined: keywords only). Its stored
   * vectors are loaded; chunks without one are embedded in the background by the writer tab.
   */
  useEmbedder(embedder: ChunkEmbedder | undefined): Promise<void> {
    return this.embedding.use(embedder);
  }

  /** Semantic search's state, as last reported in an `embedding` event. */
  get embeddingStatus() {
    return this.embedding.status;
  }

  /** Semantic search's background work (the model manager reports loading and failures through it). */
  get semantic(): Embedding {
    return this.embedding;
  }

  /** Resolves once every chunk has its vector (or embedding stopped). For tools and tests. */
  embeddingIdle(): Promise<void> {
    return this.embedding.idle();
  }

  /** Number of chunks with a vector in the dense index (0 without a model). */
  get embeddedChunks(): number {
    return this.keeper.set.dense?.size ?? 0;
  }

  /** Loads the index snapshot (or builds the index) and brings it in line with the store. */
  open(): Promise<void> {
    return this.keeper.open();
  }

  /** Makes the index hold exactly the committed documents, each whole (after a crash, or another tab's writes). */
  reconcile(): Promise<void> {
    return this.keeper.reconcile();
  }

  /** Persists the index so the next start-up does not re-index (between whole documents only). */
  saveSnapshot(): Promise<void> {
    return this.keeper.saveSnapshot();
  }

  get indexedChunks(): number {
    return this.keeper.owners.size;
  }

  /** For each indexed document, how many distinct chunks the index holds (checked against the store by tests). */
  indexedChunkCounts(): Map<DocId, number> {
    return this.keeper.owners.chunkCounts();
  }

  /** Adds files to the persisted queue (system files such as .DS_Store skipped); the writer tab indexes them. */
  async enqueue(dropped: readonly IncomingFile[]): Promise<void> {
    const files = dropped.filter((f) => !isSystemFile(joinPath(f.folder, f.name)));
    if (!files.length) return;
    try {
      const items = files.map((f) => ({ name: f.name, folder: f.folder, path: joinPath(f.folder, f.name), blob: f.blob }));
      // A file dropped again replaces its failed row: re-dropping a folder never piles up failures.
      const replaced = await this.store.removeFailedAt(new Set(items.map((i) => i.path)), new Set(this.unrecorded.keys()));
      for (const id of replaced) this.unrecorded.delete(id);
      // A file storage is too full to hold, whose failure cannot be recorded either, is reported now.
      const entries = await this.store.enqueue(items, Date.now(), (entry, error) => this.emit({ type: 'file-failed', queueId: entry.id, path: entry.path, error }));
      this.progress.add(entries.length, entries.reduce((s, e) => s + e.size, 0));
    } finally {
      // Whatever part of a drop was stored is indexed, even when the rest failed.
      this.emit({ type: 'changed' });
      if (this.writer) void this.processQueue();
    }
  }

  /** Becomes the writer: from now on this library indexes the queue. */
  startWriting(): Promise<void> {
    this.writer = true;
    this.embedding.startWriting();
    return this.processQueue();
  }

  /** Stops indexing (the database was closed for a newer app version): the queue stays for the next writer. */
  stopWriting(): void {
    this.writer = false;
    this.embedding.stopWriting();
  }

  /**
   * Indexes queued files in order until the queue is empty. While one file is being committed, the next
   * one is already read, parsed and hashed (hashing is asynchronous and committing is I/O, so the two
   * overlap). Safe to call repeatedly: a call during a run makes the run look at the queue once more
   * before it ends, so a file enqueued just as the run found the queue empty is never left waiting.
   */
  processQueue(): Promise<void> {
    if (this.processing) {
      this.lookAgain = true;
      void this.countWaiting();
      return this.processing;
    }
    this.processing = (async () => {
      try {
        await this.runQueue();
      } catch (err) {
        // The loop itself failed (the database went away, say): no file is lost, they are still queued.
        console.error('ingest queue stopped; starting it again shortly', err);
        setTimeout(() => {
          if (this.writer) void this.processQueue();
        }, this.options.queueRetryMs ?? 2000);
      } finally {
        this.processing = undefined;
        this.progress.reset();
        if (this.keeper.dirty) void this.keeper.saveSnapshot();
      }
    })();
    return this.processing;
  }

  private async runQueue(): Promise<void> {
    let ahead: Promise<EntryResult> | undefined;
    try {
      do {
        this.lookAgain = false;
        await this.countWaiting();
        let entry = await this.nextQueued();
        ahead = entry && this.prepareEntry(entry);
        while (entry && ahead) {
          const result = await ahead;
          ahead = undefined;
          const next = await this.nextQueued(entry.id);
          ahead = next && this.prepareEntry(next);
          await this.finishEntry(entry, result);
          entry = next;
        }
      } while (this.lookAgain);
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
    this.emit({ type: 'queue', ...this.progress.figures() });
  }

  /** Reads, hashes, parses and chunks a queued file. Never throws: a failure is returned, for its turn. */
  private async prepareEntry(entry: QueueEntry): Promise<EntryResult> {
    this.progress.ensure(entry.size);
    this.percents.set(entry.id, 0);
    this.emit({ type: 'file-progress', queueId: entry.id, path: entry.path, percent: 0 });
    try {
      if (!entry.blob) throw new DocQaError('corrupt-file', `${entry.name}: the file's contents were lost; add it again`);
      const max = this.options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
      if (entry.size > max) {
        throw new DocQaError('too-large', `${entry.name}: too large to index here (${Math.round(entry.size / 2 ** 20)} MB; the limit is ${Math.round(max / 2 ** 20)} MB): split it into smaller files`);
      }
      // A file whose reading the app did not survive (the tab ran out of memory, say) would otherwise be
      // read again at every start, forever: it is given up until the person presses Try again.
      if ((await this.store.startAttempt(entry.id)) >= MAX_INTERRUPTED_READS) {
        throw new DocQaError('interrupted', `${entry.name}: the app stopped twice while reading this file; it was skipped. Press Try again to insist, or split it into smaller files`);
      }
      const bytes = new Uint8Array(await entry.blob.arrayBuffer());
      const docId = await docIdOf(bytes);
      const stored = await this.store.getDocument(docId);
      if (stored) return { kind: 'duplicate', matches: stored.path };
      const limits = this.options.readLimits ?? DEFAULT_READ_LIMITS;
      this.reading = entry;
      const request = {
        name: entry.name,
        folder: entry.folder,
        blob: entry.blob,
        docId,
        addedAt: Date.now(),
        chunk: this.options.chunk ?? DEFAULT_CHUNK_OPTIONS,
        limits: entry.insist ? relaxedLimits(limits) : limits,
      };
      const prepared = await this.preparer.prepare(request, (f) => this.reportProgress(entry, f), entry.insist);
      return { kind: 'prepared', prepared };
    } catch (error) {
      return { kind: 'failed', error };
    } finally {
      if (this.reading === entry) this.reading = undefined;
    }
  }

  /** Commits a prepared file (or records why it was not), in queue order. Never throws. */
  private async finishEntry(entry: QueueEntry, result: EntryResult): Promise<void> {
    try {
      await this.commitEntry(entry, result);
    } catch (err) {
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
    this.progress.fileDone(entry.size);
    this.emitQueue();
    this.emit({ type: 'changed' });
  }

  private async commitEntry(entry: QueueEntry, result: EntryResult): Promise<void> {
    if (result.kind === 'failed') throw result.error;
    // Checked again: the file just before this one in the queue may have had the same bytes.
    const stored = result.kind === 'duplicate' ? undefined : await this.store.getDocument(result.prepared.doc.id);
    if (result.kind === 'duplicate' || stored) {
      await this.store.removeQueued(entry.id);
      const matches = result.kind === 'duplicate' ? result.matches : stored?.path;
      this.emit({ type: 'file-done', queueId: entry.id, path: entry.path, outcome: 'already-in-library', matches });
      return;
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

  private reportProgress(entry: QueueEntry, fraction: number): void {
    const percent = Math.min(99, Math.floor(fraction * 100));
    if (percent === this.percents.get(entry.id)) return;
    this.percents.set(entry.id, percent);
    this.progress.partial(entry.size * fraction);
    this.emit({ type: 'file-progress', queueId: entry.id, path: entry.path, percent });
    this.emitQueue();
  }

  async deleteDocument(docId: DocId): Promise<void> {
    const removed = await this.store.deleteDocument(docId);
    await this.keeper.drop(docId, removed);
    this.emit({ type: 'changed' });
  }

  /**
   * Removes a row of the queue, at whatever stage its file is: waiting or failed (dequeued), being read
   * (the read is stopped), or committed a moment ago (its document is deleted). Says which happened.
   */
  async dismissQueued(id: QueueId): Promise<DequeueOutcome> {
    const result = await this.store.dequeue(id);
    this.unrecorded.delete(id);
    if (result.outcome === 'deleted') await this.keeper.drop(result.docId, result.removed);
    if (this.reading?.id === id) this.preparer.abort(new DocQaError('cancelled', 'removed while it was being read'));
    this.emit({ type: 'changed' });
    return result.outcome;
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

  /** Queues a failed file again, read with relaxed limits (Try again). False when its contents were not kept. */
  async retryQueued(id: QueueId): Promise<boolean> {
    const ok = await this.store.retryQueued(id);
    if (ok) {
      this.unrecorded.delete(id);
      this.emit({ type: 'changed' });
      if (this.writer) void this.processQueue();
    }
    return ok;
  }

  /** Removes the messages of every file that failed (they keep nothing else). */
  async dismissFailed(): Promise<number> {
    let removed = await this.store.removeFailed();
    for (const id of [...this.unrecorded.keys()]) {
      await this.store.removeQueued(id);
      this.unrecorded.delete(id);
      removed++;
    }
    this.emit({ type: 'changed' });
    return removed;
  }

  async setTags(docId: DocId, tags: string[]): Promise<void> {
    await this.store.setTags(docId, [...new Set(tags.map((t) => t.trim()).filter(Boolean))]);
    this.emit({ type: 'changed' });
  }

  /** Documents, then queued and failed files, for the Library list. */
  async listLibrary(): Promise<LibraryItem[]> {
    const [docs, queue] = await Promise.all([this.store.listDocuments(), this.store.listQueue()]);
    docs.sort((a, b) => a.addedAt - b.addedAt || a.path.localeCompare(b.path));
    const items: LibraryItem[] = docs.map((d: DocRecord) => ({
      key: `doc:${d.id}`,
      kind: 'document',
      name: d.name,
      path: d.path,
      docId: d.id,
      type: d.type,
      tags: d.tags,
      pages: d.pages,
      size: d.size,
      title: d.title,
      unreadablePages: d.unreadablePages,
      addedAt: d.addedAt,
    }));
    for (const q of queue) {
      const error = q.error ?? this.unrecorded.get(q.id);
      const failed = q.state === 'failed' || !!error;
      items.push({ key: `queue:${q.id}`, kind: failed ? 'failed' : 'queued', name: q.name, path: q.path, queueId: q.id, size: q.size, error, retriable: failed && q.hasContents });
    }
    return items;
  }

  async ask(question: string, filter?: SearchFilter): Promise<Answer> {
    // BM25 starts at once; the dense index waits for the question's vector (embedded in the embed worker).
    const vector = this.embedding.queryVector(question);
    const retrievers = this.keeper.set.indexes().map((index) => ({ index }));
    const passages = await retrievePassages(hybridSearch(retrievers, this.options.fusion), this.store, { text: question, vector }, {
      k: 5,
      filter,
      chunkFilter: (docIds) => this.keeper.owners.ownedBy(docIds),
      retrievers: retrievers.map((r) => r.index.name),
    });
    // The index's term counts weigh the relevance rule: a rare word of the question counts for more.
    return (this.options.answerer ?? extractiveAnswerer).answer(question, passages, this.keeper.lexical);
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

  /** Turns "Keep original files" on or off for documents committed from now on (kept ones stay). */
  setKeepOriginals(keep: boolean): void {
    this.keepOriginals = keep;
  }

  /** The file a document was read from, if it was kept. */
  async getOriginal(docId: DocId): Promise<Blob | undefined> {
    return this.store.getOriginal(docId);
  }

  /** The whole block (a PDF page, a section) a citation points into, with its quoted sentences located. */
  async getSource(request: SourceRequest): Promise<SourceView> {
    const [doc, record] = await Promise.all([this.store.getDocument(request.docId), this.store.getBlock(request.docId, request.block)]);
    if (!doc || !record) throw new DocQaError('internal', 'this passage is no longer in the library (its document was deleted)');
    return {
      docId: doc.id,
      docType: doc.type,
      docName: doc.name,
      docPath: doc.path,
      label: describeBlock(record),
      page: record.page,
      text: record.text,
      marks: locateMarks(record.text, request.marks),
      context: clampRange(request.context, record.text.length),
    };
  }
}
