import { addedOcrLanguageCodes } from '../ingest/ocr/language-store.ts';
import { DocQaError } from '../core/errors.ts';
import type { DocId } from '../core/ids.ts';
import type { ClosedReason, LibraryEvent } from '../core/types.ts';
import { ConversationStore } from '../store/conversation-store.ts';
import type { LibraryStore } from '../store/library-store.ts';
import { VectorStore } from '../store/vector-store.ts';
import { Asking, type AskingOptions } from './asking.ts';
import { closedMessage } from './closed-message.ts';
import { Conversations } from './conversations.ts';
import { Embedding, type EmbeddingOptions } from './embedding.ts';
import { IndexKeeper } from './index-keeper.ts';
import { IngestQueue, type IngestOptions } from './ingest-queue.ts';
import { LibraryDocuments } from './library-documents.ts';
import { LibraryModels } from './library-models.ts';
import { LibraryQueue, type WriterRole } from './library-queue.ts';
import { QuestionReader } from './question-reading.ts';

export type { AskOptions } from './asking.ts';

export interface LibraryOptions extends IngestOptions, AskingOptions {
  /**
   * Longest time the saved index snapshot lags behind the store while files are being indexed; it is
   * also saved whenever the queue empties. Default 5000 ms. (Saving 20k chunks takes ~0.3 s; a stale
   * snapshot only costs a reconcile at the next start.)
   */
  snapshotDelayMs?: number;
  /** Background embedding: batch size, the wait for a question's vector. */
  embedding?: EmbeddingOptions;
  /** The models the library answers with, which the model setup changes. Default: none in use yet. */
  models?: LibraryModels;
  /** Tells the other tabs that files were queued (the writer among them indexes them). Default: nothing. */
  onQueued?: () => void;
  /**
   * The languages the person added for OCR (scans read before one was added are offered to be read
   * again). Default: those kept in this browser (`addedOcrLanguageCodes`; none in Node).
   */
  ocrLanguageCodes?: () => Promise<string[]>;
}

/** What a library is made of (see {@link createLibrary}, which builds them). */
export interface LibraryParts {
  /** The truth: documents, chunks, the queue. */
  store: LibraryStore;
  /** The lexical and dense indexes over the store, and their snapshot. */
  keeper: IndexKeeper;
  /** Reads queued files and commits them, in the writer tab. */
  ingest: IngestQueue;
  /** Semantic search: vectors for every chunk, in the background, once a model is in use. */
  embedding: Embedding;
  /** Saved conversations: follow-ups rewritten, older turns summarised, each answer saved as a turn. */
  conversations: Conversations;
  /** The question read as it is typed. */
  reader: QuestionReader;
  /** The models in use (embedder, generator, answerer, reranker). */
  models: LibraryModels;
  /** Whether this tab is the writer. */
  writer: WriterRole;
  emit: (event: LibraryEvent) => void;
  /** Fusion, reranking, the default answerer. */
  asking?: AskingOptions;
  /** See {@link LibraryOptions.onQueued}. */
  onQueued?: () => void;
  /** See {@link LibraryOptions.ocrLanguageCodes}. */
  ocrLanguageCodes?: () => Promise<string[]>;
}

/**
 * Builds a library over `store` with its parts (as Orama's `create()` fills in the components it is not
 * given): indexes, ingest queue, semantic search, conversations, the question's reading, and the models
 * part (`options.models`, else an empty one). `emit` hears every library event.
 */
export function createLibrary(store: LibraryStore, emit: (event: LibraryEvent) => void, options: LibraryOptions = {}): Library {
  const writer: WriterRole = { writing: false };
  const reader = new QuestionReader(store);
  // The question's reading keeps the document list until the library changes.
  const emitAll = (event: LibraryEvent) => {
    if (event.type === 'changed') reader.forget();
    emit(event);
  };
  const keeper = new IndexKeeper(store, () => writer.writing, options.snapshotDelayMs);
  return new Library({
    store,
    keeper,
    embedding: new Embedding(store, new VectorStore(store.db), keeper, emitAll, options.embedding),
    ingest: new IngestQueue(store, keeper, emitAll, () => writer.writing, options),
    conversations: new Conversations(new ConversationStore(store.db), () => emitAll({ type: 'conversations' })),
    reader,
    models: options.models ?? new LibraryModels(),
    writer,
    emit: emitAll,
    asking: { answerer: options.answerer, fusion: options.fusion, rerank: options.rerank },
    onQueued: options.onQueued,
    ocrLanguageCodes: options.ocrLanguageCodes ?? addedOcrLanguageCodes,
  });
}

/**
 * The library: ingest queue, store and indexes together, made of the parts it is given. The store is
 * the truth; the index is rebuilt from it on any doubt (a snapshot older than the store is brought up to
 * date at start-up). Only the tab holding the writer lock calls {@link processQueue}; every tab can
 * search. What the page asks goes to a part: {@link documents}, {@link queue}, {@link asking},
 * {@link conversations}, {@link reader}.
 */
export class Library {
  /** The Library list's documents, tags, sources and kept files. */
  readonly documents: LibraryDocuments;
  /** Files added, removed, tried again. */
  readonly queue: LibraryQueue;
  /** Questions answered. */
  readonly asking: Asking;
  /** Saved conversations. */
  readonly conversations: Conversations;
  /** The question read as it is typed (chips, whole document). */
  readonly reader: QuestionReader;

  constructor(private readonly parts: LibraryParts) {
    ({ conversations: this.conversations, reader: this.reader } = parts);
    this.documents = new LibraryDocuments(parts);
    this.queue = new LibraryQueue(parts);
    this.asking = new Asking({ ...parts, options: parts.asking });
    // A new embedding model: its stored vectors are loaded, chunks without one embedded by the writer tab.
    parts.models.watchEmbedder((embedder) => parts.embedding.use(embedder));
  }

  /** Another tab changed the documents: the lists kept for questions are read again. */
  documentsChangedElsewhere(): void {
    this.parts.store.forgetDocuments();
    this.reader.forget();
  }

  /** Semantic search's state, as last reported in an `embedding` event. */
  get embeddingStatus() {
    return this.parts.embedding.status;
  }

  /** Semantic search's background work (the model manager reports loading and failures through it). */
  get semantic(): Embedding {
    return this.parts.embedding;
  }

  /** Resolves once every chunk has its vector (or embedding stopped). For tools and tests. */
  embeddingIdle(): Promise<void> {
    return this.parts.embedding.idle();
  }

  /** Number of chunks with a vector in the dense index (0 without a model). */
  get embeddedChunks(): number {
    return this.parts.keeper.set.dense?.size ?? 0;
  }

  /** Loads the index snapshot (or builds the index) and brings it in line with the store. */
  open(): Promise<void> {
    return this.parts.keeper.open();
  }

  /** Makes the index hold exactly the committed documents, each whole (after a crash, or another tab's writes). */
  reconcile(): Promise<void> {
    return this.parts.keeper.reconcile();
  }

  /** Persists the index so the next start-up does not re-index (between whole documents only). */
  saveSnapshot(): Promise<void> {
    return this.parts.keeper.saveSnapshot();
  }

  get indexedChunks(): number {
    return this.parts.keeper.owners.size;
  }

  /** For each indexed document, how many distinct chunks the index holds (checked against the store by tests). */
  indexedChunkCounts(): Map<DocId, number> {
    return this.parts.keeper.owners.chunkCounts();
  }

  /**
   * Becomes the writer: from now on this library indexes the queue. `tookOver`: another tab was writing
   * until a moment ago (see {@link IngestQueue.tookOver}).
   */
  startWriting(options: { tookOver?: boolean } = {}): Promise<void> {
    this.parts.writer.writing = true;
    this.parts.ingest.tookOver = options.tookOver ?? false;
    this.parts.embedding.startWriting();
    return this.processQueue();
  }

  /** Stops indexing (the database was closed for a newer app version): the queue stays for the next writer. */
  stopWriting(): void {
    this.parts.writer.writing = false;
    this.parts.embedding.stopWriting();
  }

  /**
   * The database was closed under this library (see {@link ClosedReason}): indexing stops at once, the
   * file being read is stopped without being blamed, and the error to show is returned (every later call
   * through the worker fails with it, instead of a raw "database connection is closing").
   */
  close(reason: ClosedReason): DocQaError {
    const error = new DocQaError('storage-closed', closedMessage(reason));
    this.stopWriting();
    this.parts.ingest.stop(error);
    this.asking.stop();
    return error;
  }

  /** Indexes queued files in order until the queue is empty (see {@link IngestQueue.processQueue}). */
  processQueue(): Promise<void> {
    return this.parts.ingest.processQueue();
  }
}
