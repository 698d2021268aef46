import type { Conversation, ConversationHeader } from './conversation.ts';
import type { ConversationId, DocId, ModelId, QueueId } from './ids.ts';
import type { FolderLinksApi } from './folder-links-api.ts';
import type { QueryChip } from './query-filters.ts';
import type { Answer, AnswerModelStatus, AskRequest, AskStep, DeleteOutcome, DequeueOutcome, EmbeddingEvent, LibraryItem, SearchFilter, SourceRequest, SourceView, StorageEstimate } from './types.ts';

/** BroadcastChannel on which the library worker of any tab posts `LibraryEvent`s. */
export const EVENTS_CHANNEL = 'docqa-events';

/** A file handed over by the page: its folder path inside the drop and its contents. */
export interface IncomingFile {
  name: string;
  folder: string;
  blob: Blob;
  /** The file's last-modified time (ms since the epoch), where the browser gives one (`File.lastModified`). */
  modified?: number;
}

/** An embedding model as the model manager lists it. */
export interface ModelEntry {
  id: ModelId;
  /** An embedding model (semantic search) or a cross-encoder (reranking). */
  kind: 'embedding' | 'reranker';
  label: string;
  /** BCP 47 codes, or `['multilingual']`. */
  languages: string[];
  /** Vector length (embedding models). */
  dims?: number;
  /** Download size in bytes (`approximate` when the catalogue rounds it). */
  downloadBytes: number;
  approximate: boolean;
  /** A published retrieval figure ("BEIR nDCG@10 51.7"), when the catalogue has one. */
  retrieval: string | undefined;
  /** What it is good for, in a person's words, when the catalogue says. */
  goodFor?: string;
  /** Bytes of its files kept in this browser (0: not downloaded). */
  cachedBytes: number;
  /** Passages with a vector from this model, in this library. */
  vectors: number;
  inUse: boolean;
  /** Imported from a folder (not in the catalogue). */
  imported: boolean;
}

/** Semantic-search settings, kept in the library database. */
export interface SemanticSettings {
  /** The embedding model in use; none: keyword search only. */
  model?: ModelId;
  /** The cross-encoder reranking each question's candidates; none: fused order. */
  reranker?: ModelId;
  /** Base URL of a self-hosted mirror in the Hugging Face layout; none: huggingface.co. */
  mirror?: string;
}

export interface ModelsView {
  models: ModelEntry[];
  settings: SemanticSettings;
  status: EmbeddingEvent;
}

/** A model that can write answers, as the answer-model chooser lists it. */
export interface AnswerModelEntry {
  /** A catalogue id (`wasm`), or web-llm's `model_id` (`webllm`). */
  id: string;
  /** `wasm`: on this device's CPU (transformers.js or llama.cpp); `webllm`: WebLLM on the GPU (WebGPU). */
  kind: 'wasm' | 'webllm';
  label: string;
  /** BCP 47 codes (`[]`: not stated). */
  languages: readonly string[];
  /** About how much is downloaded, in bytes. */
  downloadBytes: number;
  /** Bytes of its files kept in this browser (0: not downloaded). */
  cachedBytes: number;
  /** GPU memory it takes while running, in MB (WebLLM models). */
  vramMB?: number;
  /** What it is good for, in a person's words, when the catalogue says. */
  goodFor?: string;
  inUse: boolean;
}

export interface AnswerModelsView {
  models: AnswerModelEntry[];
  /** This device's WebGPU: whether WebLLM models can run, and when not, why (one line). */
  webgpu: { available: boolean; note?: string };
  status: AnswerModelStatus;
}

/** What the library worker may ask its page (passed to {@link LibraryApi.ready} as a Comlink proxy). */
export interface PageLink {
  /** Whether library session `session` ended with its page unloading (a reload, a closed tab), not a crash. */
  endedCleanly(session: string): boolean | Promise<boolean>;
}

/**
 * What an implementation of a part of the surface returns in the worker: each method may answer at once
 * or later (Comlink turns every answer into a promise for the page).
 */
export type Served<T> = { [K in keyof T]: T[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => R | Promise<R> : T[K] };

/** The Library list's documents, their tags, their sources and their kept files. */
export interface DocumentsApi {
  /** Documents, then queued and failed files, for the Library list. */
  list(): Promise<LibraryItem[]>;
  /**
   * Deletes a document. `requestedAt` (ms since the epoch): when the person pressed Delete; a document
   * whose file was added again since is kept (`'kept'`).
   */
  delete(docId: DocId, requestedAt?: number): Promise<DeleteOutcome>;
  setTags(docId: DocId, tags: string[]): Promise<void>;
  /** The block a citation points into, with its quoted sentences located in the stored text. */
  getSource(request: SourceRequest): Promise<SourceView>;
  /** The file a document was read from, when it was kept; undefined otherwise. */
  getOriginal(docId: DocId): Promise<Blob | undefined>;
  /** "Keep original files" (default on): documents committed from now on keep the file they were read from. */
  setKeepOriginals(keep: boolean): Promise<void>;
}

/** How files handed over are taken (see {@link QueueApi.add}). */
export interface AddOptions {
  /** The files with a folder are each folder whole: a folder the library holds files of is synced. */
  syncFolders?: boolean;
  /**
   * Top folders known to be the very folder the library holds files of (a linked folder, read through its
   * handle): synced even when no path is shared, and an empty one removes what the library holds of it.
   */
  wholeFolders?: string[];
}

/** Files waiting to be read, being read, or failed. */
export interface QueueApi {
  /**
   * Adds files to the queue (shared by the tabs: the writer tab reads them). `syncFolders`: the files with
   * a folder are each folder whole, as picked or dropped, so a folder the library already holds files of is
   * synced: unchanged files are not read, files no longer in it are deleted (`folder-sync.ts`).
   */
  add(files: IncomingFile[], options?: AddOptions): Promise<void>;
  /** Removes a queue row at whatever stage its file is; says what that did. */
  dismiss(id: QueueId): Promise<DequeueOutcome>;
  /** Queues a failed file again with relaxed limits; false when its contents were not kept (add it again). */
  retry(id: QueueId): Promise<boolean>;
  /** Removes every failed file from the Library list; returns how many. */
  dismissFailed(): Promise<number>;
  /** The page measured the parse worker's memory, in bytes; a read past the limit is stopped. */
  reportReaderMemory(bytes: number): Promise<void>;
  /**
   * Stored documents that reading again would improve (a newer reader, or a scan language added since:
   * `ingest/reader-versions.ts`), for the Library's offer to read them again.
   */
  readAgainOffer(): Promise<ReadAgainOffer>;
  /** Queues the documents of {@link readAgainOffer} that kept their files, to be read again in their place; returns how many. */
  readAgain(): Promise<number>;
}

/** Stored documents read by an older reader than the app has now, or scans read before a language was added. */
export interface ReadAgainOffer {
  /** Those whose original file was kept: they can be read again here. */
  documents: number;
  /** Those stored without their file ("Keep original files" was off): only adding the file again reads them anew. */
  withoutOriginals: number;
  /** What reading them again gives, one phrase each ("read tables in PDFs row by row", "read French in scans"). */
  better: string[];
}

/** The one document a whole-document reading of the question would read. */
export interface WholeDocumentChoice {
  docId: DocId;
  /** Its path as the Library list shows it ("contracts/lease.md"). */
  docPath: string;
}

/** How the library reads a question as it is typed, before it is asked. */
export interface QuestionReading {
  /** Filters the question's words name (by rule), as chips, those the person removed included. */
  chips: QueryChip[];
  /** The one document the filter with the chips kept leaves: what the "Whole document" toggle reads. */
  single?: WholeDocumentChoice;
  /** The document the question's words ask to read whole ("summarise lease.md"). */
  recognised?: WholeDocumentChoice;
  /** The paths of the documents a whole-document question names alike, when its words cannot tell them apart. */
  ambiguous?: string[];
}

/** Asking questions. */
export interface AskApi {
  /**
   * Answers a question; `onText` (a Comlink proxy) receives each piece as a model writes it, `onStep` each
   * step taken before the answer (the follow-up rewritten, phrasings, hops).
   */
  ask(request: AskRequest, onText?: (piece: string) => void, onStep?: (step: AskStep) => void): Promise<Answer>;
  /** Stops the answer being written; it keeps (and checks) what was written. */
  stop(): Promise<void>;
  /**
   * Reads a question as it is typed, against the library's documents: the chips its words name, and the
   * document it would be answered over whole. `filter`: the person's own; `removed`: the keys
   * (`chipKey`) of the chips the person removed, left out of the filter the whole-document reading uses.
   */
  read(question: string, filter: SearchFilter, removed: readonly string[]): Promise<QuestionReading>;
}

/** Saved conversations. */
export interface ConversationsApi {
  /** Saved conversations, most recently updated first, without their turns. */
  list(): Promise<ConversationHeader[]>;
  /** A saved conversation with its turns (undefined: deleted). */
  get(id: ConversationId): Promise<Conversation | undefined>;
  /** Sets a conversation's title (an empty title keeps the old one). */
  rename(id: ConversationId, title: string): Promise<void>;
  /** Deletes a conversation and its turns. */
  delete(id: ConversationId): Promise<void>;
}

/** Semantic search's models: embedding models and cross-encoders (the model manager). */
export interface ModelsApi {
  /** Semantic search's state (what the status line says). */
  status(): Promise<EmbeddingEvent>;
  /** The model manager's list, the settings and semantic search's state. */
  list(): Promise<ModelsView>;
  /**
   * Uses a model for semantic search (the person agreed to its download): downloads what is not cached
   * (progress in `embedding` events), loads it, then embeds the library in the background.
   */
  use(id: ModelId): Promise<void>;
  /** Stops using a model (an embedding model: back to keyword search; a reranker: fused order); files and vectors stay. */
  stop(id: ModelId): Promise<void>;
  /** Deletes a model's downloaded files and its vectors (stopping it first if in use). */
  delete(id: ModelId): Promise<void>;
  /** Keeps a model folder the person picked or dropped (files with their folder paths); returns its id. */
  importFolder(files: IncomingFile[]): Promise<ModelId>;
  /** Where models are downloaded from: a mirror's base URL, or undefined for huggingface.co. */
  setMirror(baseUrl: string | undefined): Promise<void>;
}

/** The model that writes answers (the answer-model chooser). */
export interface AnswerModelsApi {
  /** What writes answers now (a model, loading or ready), or why they quote the documents. */
  status(): Promise<AnswerModelStatus>;
  /** The models that can write answers on this device, the space they use, and what writes answers now. */
  list(): Promise<AnswerModelsView>;
  /**
   * Has this model write answers (the person agreed to its download): downloads what is not cached
   * (progress in `answer-model` events), then loads it. Answers quote the documents meanwhile. Shared with the other tabs.
   */
  use(id: string): Promise<void>;
  /** Back to answers that quote the documents; the model's files stay. */
  stop(): Promise<void>;
  /** Deletes a model's downloaded files (stopping it first if in use); an imported file leaves the list. */
  delete(id: string): Promise<void>;
  /**
   * Imports a `.gguf` model file from disk (checked first: GGUF, an instruct model, at most 2 GB, room in
   * memory; refused with the reason, nothing kept), lists it and has it write answers. Nothing is downloaded.
   */
  importGguf(file: File): Promise<{ id: string; label: string }>;
  /**
   * Imports a model folder from disk: a transformers.js ONNX export (config.json, tokenizer files with a
   * chat template, onnx/) or a folder of one .gguf file; checked first (refused with what is missing,
   * nothing listed), kept, listed and used. Nothing is downloaded.
   */
  importFolder(files: IncomingFile[]): Promise<{ id: string; label: string }>;
}

/** The library every browser profile starts with ("My library"): the database it always had. */
export const DEFAULT_LIBRARY_ID = 'default';

/**
 * A name shared by the tabs of one library (a BroadcastChannel, a lock): the default library keeps the
 * names it always had, so tabs of an older version still meet it; another library gets its own.
 */
export function libraryScoped(name: string, libraryId: string): string {
  return libraryId === DEFAULT_LIBRARY_ID ? name : `${name}:${libraryId}`;
}

/** A library as the Libraries dialog lists it. */
export interface LibraryEntryView {
  id: string;
  name: string;
  createdAt: number;
  /** The library this tab has open. */
  current: boolean;
}

/** Several libraries, each its own database (decision 0033): listed, created, renamed and deleted from any tab. */
export interface LibrariesApi {
  /** All libraries, oldest first. */
  list(): Promise<LibraryEntryView[]>;
  /** Creates an empty library (its name trimmed, unique); the page opens it. */
  create(name: string): Promise<LibraryEntryView>;
  rename(id: string, name: string): Promise<void>;
  /**
   * Deletes a library that this tab does not have open, with all its data (documents, index, vectors,
   * conversations, originals); tabs that have it open are told. Returns the space freed, as the browser
   * estimates it.
   */
  delete(id: string): Promise<{ freedBytes: number }>;
}

/** How far an export or import of a library file has got. */
export interface ArchiveProgress {
  /** Export: `documents`, then `conversations`; import: `checking` (bytes read), then `writing` (documents written). */
  stage: 'documents' | 'conversations' | 'checking' | 'writing';
  done: number;
  total: number;
}

/** What an export wrote. */
export interface ExportedLibrary {
  /** The file, for the page to save; absent when it was written to the file the person chose. */
  file?: Blob;
  /** The name to save it under (the library's name, made safe for a file name, and `.docqa.zip`), or the chosen file's. */
  fileName: string;
  bytes: number;
  documents: number;
  conversations: number;
  originals: number;
}

/** What an import created. */
export interface ImportedLibrary {
  library: LibraryEntryView;
  documents: number;
  conversations: number;
  /** Vectors brought with the documents, of all models. */
  vectors: number;
}

/**
 * A library as one file (decision 0034): exported to move or back it up, imported as a new library (never
 * over an existing one). One export or import at a time per tab.
 */
export interface LibraryArchiveApi {
  /**
   * Writes the library this tab has open to one file, with each document's original file when asked:
   * into `target` (a file the person chose in the browser's save dialog) where given, else as a Blob.
   */
  export(options: { includeOriginals: boolean; target?: FileSystemFileHandle }, onProgress?: (progress: ArchiveProgress) => void): Promise<ExportedLibrary>;
  /**
   * Creates a new library from a library file, checked whole before anything is written; it is listed only
   * once complete. Refused files fail with 'archive-refused' and what is wrong.
   */
  import(file: Blob, onProgress?: (progress: ArchiveProgress) => void): Promise<ImportedLibrary>;
  /** Stops the export or import running in this tab ('cancelled'): nothing is saved or created. */
  cancel(): Promise<void>;
  /** Removes imports that a closed tab or a crash left unfinished; says what was removed. */
  sweepUnfinishedImports(): Promise<string[]>;
}

/** A language scanned pages can be read in (the scan languages setting). */
export interface OcrLanguageEntry {
  code: string;
  name: string;
  /** `built-in` (English, ships with the app), `offered` (downloadable from the app's site), `imported` (from a file). */
  source: 'built-in' | 'offered' | 'imported';
  /** Whether scans are read in it now (built in, or added). */
  added: boolean;
  /** Bytes it keeps in this browser once added (0 for the built-in one, whose file is part of the app). */
  keptBytes: number;
  /** What adding it downloads (offered languages). */
  downloadBytes?: number;
  /** An imported language's file name. */
  from?: string;
}

export interface OcrLanguagesView {
  /** Built in first, then the offered ones, then imported ones. */
  languages: OcrLanguageEntry[];
  /** Names of the languages scans are read in, in the engine's order (added ones, then English). */
  readIn: string[];
}

/** The scan languages setting: which languages OCR reads in. Shared by all libraries and tabs. */
export interface OcrLanguagesApi {
  list(): Promise<OcrLanguagesView>;
  /** Downloads an offered language from the app's own site and keeps it (the person chose to add it). */
  add(code: string): Promise<OcrLanguageEntry>;
  /** Keeps a Tesseract language file the person chose, checked first (refused with the reason, nothing kept). */
  importFile(file: File): Promise<OcrLanguageEntry>;
  /** Removes an added language; returns the bytes freed. Documents already read keep their text. */
  remove(code: string): Promise<number>;
}

/**
 * What the library worker exposes to the page (through Comlink): a few parts, each a small object, whose
 * methods the page calls by path (`documents.list()`).
 */
export interface LibraryApi {
  /**
   * Resolves once the library is open: its indexed chunks, and this worker's session id (the page records
   * it when it unloads, see {@link PageLink}).
   */
  ready(page?: PageLink): Promise<{ chunks: number; session: string }>;
  storageEstimate(): Promise<StorageEstimate>;
  documents: DocumentsApi;
  queue: QueueApi;
  ask: AskApi;
  conversations: ConversationsApi;
  models: ModelsApi;
  answerModels: AnswerModelsApi;
  ocrLanguages: OcrLanguagesApi;
  libraries: LibrariesApi;
  archive: LibraryArchiveApi;
  folders: FolderLinksApi;
}
