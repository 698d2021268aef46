import { DocQaError } from '../core/errors.ts';
import { describeBlock } from '../core/block-label.ts';
import type { ChunkId, DocId, ModelId, QueueId } from '../core/ids.ts';
import type { IncomingFile } from '../core/library-api.ts';
import type { Answer, AskRequest, AskStep, ClosedReason, DeleteOutcome, DequeueOutcome, DocRecord, LibraryEvent, LibraryItem, Passage, SearchFilter, SourceRequest, SourceView } from '../core/types.ts';
import { extractiveAnswerer, type Answerer, type AnswerOptions } from '../generate/answerer.ts';
import type { Generator } from '../models/generator/generator.ts';
import { createLlmAnswerer } from '../generate/llm-answerer.ts';
import { isSystemFile, joinPath } from '../ingest/file-kinds.ts';
import type { ChunkEmbedder } from '../embed/chunk-embedder.ts';
import { rerankText, type PairScorer } from '../rerank/rerank.ts';
import { hybridSearch, type HybridOptions, type RankedSearch } from '../retrieve/hybrid.ts';
import { multiQuerySearch } from '../retrieve/multi-query.ts';
import { forgivingRerankedSearch } from '../retrieve/reranked-search.ts';
import { retrievePassages } from '../retrieve/retrieve.ts';
import { ConversationStore } from '../store/conversation-store.ts';
import { VectorStore } from '../store/vector-store.ts';
import { Embedding, type EmbeddingOptions } from './embedding.ts';
import type { LibraryStore } from '../store/library-store.ts';
import { passagesFor } from './ask-pipeline.ts';
import { filtersFor } from '../question/filter-step.ts';
import { IndexKeeper } from './index-keeper.ts';
import { IngestQueue, type IngestOptions } from './ingest-queue.ts';
import { Conversations } from './conversations.ts';
import { clampRange, locateMarks } from './source-view.ts';
import { answerWholeDocument } from './whole-document.ts';
import { closedMessage } from './closed-message.ts';

/** What a question takes besides its text and filter (see {@link AskRequest}), and where its progress goes. */
export interface AskOptions extends Omit<AskRequest, 'question' | 'filter'> {
  /** Each piece of the answer as a model writes it. */
  onText?: (piece: string) => void;
  /** Each step before the answer (rewritten, phrasings, a hop) as it happens. */
  onStep?: (step: AskStep) => void;
}

export interface LibraryOptions extends IngestOptions {
  /**
   * Longest time the saved index snapshot lags behind the store while files are being indexed; it is
   * also saved whenever the queue empties. Default 5000 ms. (Saving 20k chunks takes ~0.3 s; a stale
   * snapshot only costs a reconcile at the next start.)
   */
  snapshotDelayMs?: number;
  /** Answers questions from the retrieved passages. Default {@link extractiveAnswerer}. */
  answerer?: Answerer;
  /** Reciprocal Rank Fusion of BM25 and dense hits: k (default 60) and hits asked per retriever. */
  fusion?: HybridOptions;
  /** Background embedding: batch size, the wait for a question's vector. */
  embedding?: EmbeddingOptions;
  /** Cross-encoder reranking: fused candidates scored (default 40, range 1–200), longest wait (default 15 s). */
  rerank?: { candidates?: number; timeoutMs?: number };
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
  /** The answer being written, to stop it. */
  private answering: AbortController | undefined;
  /** The answerer chosen at run time (a model the person loaded), over `options.answerer`. */
  private answerer: Answerer | undefined;
  /** The model writing answers (and rewriting, expanding, judging), when one is loaded. */
  private generator: Generator | undefined;
  /** The cross-encoder reranking each question's fused candidates, when one is in use. */
  private reranker: { model: { id: ModelId; label: string }; score: PairScorer } | undefined;
  /** Reads queued files and commits them, in the writer tab. */
  private readonly ingest: IngestQueue;
  private writer = false;
  /** Saved conversations: follow-ups rewritten, older turns summarised, each answer saved as a turn. */
  readonly conversations: Conversations;

  constructor(
    private readonly store: LibraryStore,
    private readonly emit: (event: LibraryEvent) => void,
    private readonly options: LibraryOptions = {},
  ) {
    this.keeper = new IndexKeeper(store, () => this.writer, options.snapshotDelayMs);
    this.embedding = new Embedding(store, new VectorStore(store.db), this.keeper, emit, options.embedding);
    this.ingest = new IngestQueue(store, this.keeper, emit, () => this.writer, options);
    this.conversations = new Conversations(new ConversationStore(store.db), () => emit({ type: 'conversations' }));
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
      const replaced = await this.store.removeFailedAt(new Set(items.map((i) => i.path)), new Set(this.ingest.unrecorded.keys()));
      for (const id of replaced) this.ingest.unrecorded.delete(id);
      // A file storage is too full to hold, whose failure cannot be recorded either, is reported now.
      const entries = await this.store.enqueue(items, Date.now(), (entry, error) => this.emit({ type: 'file-failed', queueId: entry.id, path: entry.path, error }));
      this.ingest.countAdded(entries);
    } finally {
      // Whatever part of a drop was stored is indexed, even when the rest failed.
      this.emit({ type: 'changed' });
      if (this.writer) void this.processQueue();
    }
  }

  /**
   * Becomes the writer: from now on this library indexes the queue. `tookOver`: another tab was writing
   * until a moment ago (see {@link IngestQueue.tookOver}).
   */
  startWriting(options: { tookOver?: boolean } = {}): Promise<void> {
    this.writer = true;
    this.ingest.tookOver = options.tookOver ?? false;
    this.embedding.startWriting();
    return this.processQueue();
  }

  /** Stops indexing (the database was closed for a newer app version): the queue stays for the next writer. */
  stopWriting(): void {
    this.writer = false;
    this.embedding.stopWriting();
  }

  /**
   * The database was closed under this library (see {@link ClosedReason}): indexing stops at once, the
   * file being read is stopped without being blamed, and the error to show is returned (every later call
   * through the worker fails with it, instead of a raw "database connection is closing").
   */
  close(reason: ClosedReason): DocQaError {
    const error = new DocQaError('storage-closed', closedMessage(reason));
    this.stopWriting();
    this.ingest.stop(error);
    this.answering?.abort();
    return error;
  }

  /** Indexes queued files in order until the queue is empty (see {@link IngestQueue.processQueue}). */
  processQueue(): Promise<void> {
    return this.ingest.processQueue();
  }

  /**
   * Deletes a document. With `requestedAt` (when the person pressed Delete, which the page delays by its
   * Undo window), a document whose file was added again since is kept: the file added again is not lost.
   */
  async deleteDocument(docId: DocId, requestedAt?: number): Promise<DeleteOutcome> {
    const { removed, kept, found } = await this.store.deleteDocument(docId, requestedAt);
    if (kept) return 'kept';
    await this.keeper.drop(docId, removed);
    this.emit({ type: 'changed' });
    return found ? 'deleted' : 'gone';
  }

  /**
   * Removes a row of the queue, at whatever stage its file is: waiting or failed (dequeued), being read
   * (the read is stopped), or committed a moment ago (its document is deleted). Says which happened.
   */
  async dismissQueued(id: QueueId): Promise<DequeueOutcome> {
    const result = await this.store.dequeue(id);
    this.ingest.unrecorded.delete(id);
    if (result.outcome === 'deleted') await this.keeper.drop(result.docId, result.removed);
    this.ingest.stopReading(id);
    this.emit({ type: 'changed' });
    return result.outcome;
  }

  /** The page measured the parse worker's memory: a read past the limit is stopped (see {@link IngestQueue.reportReaderMemory}). */
  reportReaderMemory(bytes: number): void {
    this.ingest.reportReaderMemory(bytes);
  }

  /** Queues a failed file again, read with relaxed limits (Try again). False when its contents were not kept. */
  async retryQueued(id: QueueId): Promise<boolean> {
    const ok = await this.store.retryQueued(id);
    if (ok) {
      this.ingest.unrecorded.delete(id);
      this.emit({ type: 'changed' });
      if (this.writer) void this.processQueue();
    }
    return ok;
  }

  /** Removes the messages of every file that failed (they keep nothing else). */
  async dismissFailed(): Promise<number> {
    let removed = await this.store.removeFailed();
    for (const id of [...this.ingest.unrecorded.keys()]) {
      await this.store.removeQueued(id);
      this.ingest.unrecorded.delete(id);
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
      date: d.date,
    }));
    for (const q of queue) {
      const error = q.error ?? this.ingest.unrecorded.get(q.id);
      const failed = q.state === 'failed' || !!error;
      items.push({ key: `queue:${q.id}`, kind: failed ? 'failed' : 'queued', name: q.name, path: q.path, queueId: q.id, size: q.size, error, retriable: failed && q.hasContents });
    }
    return items;
  }

  /**
   * Answers a question from the library: hybrid retrieval (reranked when a reranker is in use), then the
   * answerer (streaming through `options.onText` when a model writes). One answer at a time: a new
   * question stops the one being written. Within a conversation (`options.conversationId`; none: a new
   * one), a follow-up is first rewritten into a standalone question (`onStep`, kept in `answer.steps`),
   * and the answer, even a stopped one, is saved as a turn (see {@link Conversations}).
   */
  async ask(question: string, filter?: SearchFilter, options: AskOptions = {}): Promise<Answer> {
    this.answering?.abort();
    const controller = new AbortController();
    this.answering = controller;
    try {
      const { signal } = controller;
      const prepared = await this.conversations.prepare(question, options, this.generator, signal);
      for (const step of prepared.steps) options.onStep?.(step);
      const answer = await this.answer(prepared.standalone, filter, { ...options, signal, turns: prepared.turns, summary: prepared.summary });
      return await this.conversations.record(prepared, answer);
    } finally {
      if (this.answering === controller) this.answering = undefined;
    }
  }

  /** Stops the answer being written (Stop): it keeps what was written. */
  stopAnswer(): void {
    this.answering?.abort();
  }

  /**
   * The passages (the question's own; with a model, fused over its phrasings and gathered over hops as
   * `options` ask: `ask-pipeline.ts`), then the answerer over them; the steps taken go in `answer.steps`.
   */
  private async answer(question: string, asked: SearchFilter | undefined, options: AskOptions & AnswerOptions): Promise<Answer> {
    // The document list, read at most once for this question (the filter step and whole-document recognition).
    let listed: Promise<DocRecord[]> | undefined;
    const docs = () => (listed ??= this.store.listDocuments());
    // Filters the model reads from the question (self-query) narrow the person's own.
    const { filter, steps: read } = await filtersFor(question, asked, { ...options, generator: this.generator, docs });
    // A question about a whole document ("summarise the lease", or the toggle) reads all of it instead.
    const whole = await answerWholeDocument({ store: this.store, generator: this.generator, stats: this.keeper.lexical, docs }, question, filter, options);
    if (whole) return read.length ? { ...whole, steps: [...read, ...(whole.steps ?? [])] } : whole;
    const retrieve = (query: string, phrasings: readonly string[] = []) => this.retrieve(query, filter, phrasings);
    const { passages, steps } = await passagesFor(question, { ...options, retrieve, generator: this.generator });
    // The index's term counts weigh the relevance rule: a rare word of the question counts for more.
    const searches = steps.flatMap((s) => (s.type === 'expanded' ? s.queries.slice(1) : s.type === 'hop' && s.hop > 1 ? [s.query] : []));
    const answer = await (this.answerer ?? this.options.answerer ?? extractiveAnswerer).answer(question, passages, this.keeper.lexical, { ...options, searches });
    return steps.length || read.length ? { ...answer, steps: [...read, ...(answer.steps ?? []), ...steps] } : answer;
  }

  /** Hybrid retrieval for a query (its phrasings, if any, searched too and fused), reranked when a reranker is in use. */
  private retrieve(query: string, filter: SearchFilter | undefined, phrasings: readonly string[]): Promise<Passage[]> {
    // BM25 starts at once; the dense index waits for the query's vector (embedded in the embed worker).
    const retrievers = this.keeper.set.indexes().map((index) => ({ index }));
    const others = phrasings.map((text) => ({ text, vector: this.embedding.queryVector(text) }));
    const fused = multiQuerySearch(hybridSearch(retrievers, this.options.fusion), others, this.options.fusion);
    return retrievePassages(this.reranked(fused), this.store, { text: query, vector: this.embedding.queryVector(query) }, {
      k: 5,
      filter,
      chunkFilter: (docIds) => this.keeper.owners.ownedBy(docIds),
      retrievers: retrievers.map((r) => r.index.name),
    });
  }

  /**
   * Reranks a question's top fused hits with the cross-encoder in use (its title, then the chunk, as the
   * pair's passage). The person asked a question, not for a reranker: when it fails or takes longer
   * than `rerank.timeoutMs`, the fused order answers, and the failure is logged.
   */
  private reranked(fused: RankedSearch): RankedSearch {
    const reranker = this.reranker;
    if (!reranker) return fused;
    const textsOf = async (ids: readonly ChunkId[]) => {
      const chunks = await this.store.getChunks(ids);
      return ids.map((id, i) => rerankText(this.keeper.owners.titleOf(id), chunks[i]?.text ?? ''));
    };
    return forgivingRerankedSearch(fused, textsOf, reranker.score, this.options.rerank);
  }


  /** Answers with this answerer from now on (undefined: `options.answerer`, else the extractive answer). */
  useAnswerer(answerer: Answerer | undefined): void {
    this.answerer = answerer;
  }

  /**
   * Has this model write answers from now on (undefined: the extractive answer): the answerer over it
   * (`generate/llm-answerer.ts`), and the steps before retrieval that need a model (follow-up rewriting,
   * phrasings, the multi-hop judgement).
   */
  useGenerator(generator: Generator | undefined): void {
    this.generator = generator;
    this.answerer = generator ? createLlmAnswerer({ generator }) : undefined;
  }

  /** The model writing answers, if any. */
  get answerModel(): Generator['model'] | undefined {
    return this.generator?.model;
  }

  /** Uses a cross-encoder to rerank each question's fused candidates from now on (undefined: none). */
  useReranker(reranker: { model: { id: ModelId; label: string }; score: PairScorer } | undefined): void {
    this.reranker = reranker;
  }

  /** The reranker in use, if any. */
  get rerankerModel(): { id: ModelId; label: string } | undefined {
    return this.reranker?.model;
  }


  /** Turns "Keep original files" on or off for documents committed from now on (kept ones stay). */
  setKeepOriginals(keep: boolean): void {
    this.ingest.keepOriginals = keep;
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

