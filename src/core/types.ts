import type { TextRange } from './answer-types.ts';
import type { ChunkId, DocId, QueueId } from './ids.ts';
import type { ErrorCode, SerializedError } from './errors.ts';
import type { PageRanges } from './page-ranges.ts';
import type { DocType } from './filter-types.ts';

export type { DateField, DateRange, DocType, SearchFilter } from './filter-types.ts';

/**
 * A structural unit of a document: a PDF page (or the part of one under an outline entry) or a section
 * under a heading.
 * Chunks and parent windows are character ranges inside `text`.
 */
export interface Block {
  /** Human label used in citations: "page 3" or a heading path "Methods › Sampling". */
  label: string;
  /** 1-based page number for PDFs; several blocks share it when outline entries split the page. */
  page?: number;
  /** Heading path: of structured formats, and of a PDF page from its outline (bookmarks). */
  section?: string;
  /** Cleaned text; paragraphs separated by a blank line. */
  text: string;
  /** Ranges of `text` that were code in the file (Markdown code blocks): the page shows them as code. */
  code?: TextRange[];
  /**
   * The words recognised on the block's page (OCR), in reading order, each with its box: the Source view
   * marks the cited sentence's words on the page image.
   */
  words?: WordBox[];
}

/**
 * What OCR made of one page of a PDF: kept as each page is done, so that a read cut short (a reload, a
 * closed tab, a failure) resumes from the next page.
 */
export interface PageReading {
  /** 1-based page number. */
  page: number;
  /** The page's lines, as the parser's; undefined when what was read is not text (the page stays unreadable). */
  lines?: string[];
  /** The page's words with their boxes (none when `lines` is undefined). */
  words: WordBox[];
  /** The engine's mean word confidence, 0–100. */
  confidence: number;
  /** The languages it was read in (tesseract's codes, in its order); absent when not known. */
  languages?: string[];
}

/** A recognised word and its box on the page: left, top, right, bottom as fractions (0–1) of the page's width and height. */
export interface WordBox {
  text: string;
  box: [number, number, number, number];
}

/**
 * Where a document's title comes from: the file's metadata (PDF Title, HTML `<title>`, DOCX `dc:title`),
 * its first top-level heading (or a plain-text first line that reads as one), or the file name when
 * neither is a plausible title. Only a real title (metadata, heading) is indexed as the chunks' header.
 */
export type TitleSource = 'metadata' | 'heading' | 'file-name';

/** What a parser produces; cleaned by `ingest/clean` before chunking. */
export interface ParsedDoc {
  /** A plausible title (`ingest/title.ts`), or none: `parseFile` then uses the file name. */
  title?: string;
  /** Where `title` came from; a parser that sets a title without it means 'heading'. */
  titleSource?: TitleSource;
  pages?: number;
  blocks: Block[];
  /** PDF pages whose text is symbol garbage (`ingest/readable.ts`): left out of `blocks`. */
  unreadablePages?: PageRanges;
  /** PDF pages read from their image by OCR (no text layer, or an unreadable one). */
  recognisedPages?: PageRanges;
  /** Of those, the pages OCR read with low confidence (`ingest/ocr/recognised-page.ts`). */
  lowConfidencePages?: PageRanges;
  /** The languages OCR read its recognised pages in (tesseract's codes); absent when none was, or not known. */
  ocrLanguages?: string[];
  /** The document's own date from its properties (PDF ModDate or CreationDate, Word modified or created), ms since the epoch. */
  date?: number;
}

/** Where a chunk sits; a chunk shared by several files has several. */
export interface ChunkLocation {
  docId: DocId;
  block: number;
  start: number;
  end: number;
  /** The larger window shown in answers (and later read by the LLM). */
  parentStart: number;
  parentEnd: number;
  /** Position of the chunk within its document. */
  ordinal: number;
}

export interface ChunkRecord {
  id: ChunkId;
  text: string;
  locations: ChunkLocation[];
}

export interface DocRecord {
  id: DocId;
  name: string;
  /** Folder path inside the drop ("" for a single file), e.g. "cases/2024". */
  folder: string;
  /** Folder plus name: the identity used to detect a changed version of the same file. */
  path: string;
  type: DocType;
  size: number;
  pages?: number;
  /** The title shown; the file name when the file has no plausible one (`titleSource` 'file-name'). */
  title: string;
  /** Absent in documents stored before titles were checked. */
  titleSource?: TitleSource;
  /** Pages left out of the index because their text is unreadable (a font-encoding problem). */
  unreadablePages?: PageRanges;
  /** Pages whose text was recognised from their image (OCR). */
  recognisedPages?: PageRanges;
  /** Pages recognised with low confidence. */
  lowConfidencePages?: PageRanges;
  /** The languages OCR read those pages in (`ParsedDoc.ocrLanguages`); absent: not known (English alone, before it was kept). */
  ocrLanguages?: string[];
  addedAt: number;
  /** The document's own date (`ParsedDoc.date`); absent when its file has none, or was stored before dates were kept. */
  date?: number;
  tags: string[];
  chunkCount: number;
  /** Distinct chunks (a chunk can repeat inside a document): what the index holds for it. */
  distinctChunks?: number;
  /**
   * The print of its distinct chunks (`chunkSetPrint`, `core/ids.ts`): the index holds this document whole when it holds
   * as many chunks with this print. Absent in documents stored before it was kept (the count alone is checked).
   */
  chunkPrint?: number;
  /**
   * The version of the reader of its type that read it (`ingest/reader-versions.ts`); absent: read before
   * versions were kept, by version 1. A document read by an older version can be read again from its kept file.
   */
  reader?: number;
  /** The queue entry it was committed from (a Delete on that entry's row removes it). */
  /** The file's last-modified time when it was added (folder sync: unchanged files are not read again). */
  modified?: number;
  queueId?: QueueId;
  /**
   * When the same file was last added again and found already here: a Delete pressed before that moment
   * (still inside its Undo window) keeps the document instead of losing the file added again.
   */
  addedAgainAt?: number;
}

/** One block of a document as stored: fetched alone, so a huge file never loads whole. */
export interface BlockRecord extends Block {
  docId: DocId;
  index: number;
}

/** What a document is made of: its chunks and number of blocks. */
export interface Manifest {
  docId: DocId;
  chunkIds: ChunkId[];
  blockCount: number;
}

export type QueueState = 'queued' | 'failed';

/** A file waiting in the persisted ingest queue (or one that failed, kept so its message shows). */
export interface QueueEntry {
  id: QueueId;
  name: string;
  folder: string;
  path: string;
  size: number;
  blob?: Blob;
  addedAt: number;
  state: QueueState;
  error?: SerializedError;
  /** Set by Try again: the file is read with relaxed limits. */
  insist?: boolean;
  /** The file's last-modified time (ms), when the browser gave one. */
  modified?: number;
  /**
   * A stored document read again by a newer reader (`ingest/reader-versions.ts`): the entry has no `blob`
   * and reads the document's kept original; its commit replaces the document, keeping its tags.
   */
  readAgain?: DocId;
}

/** What removing a queue row did: dequeued a waiting or failed file, deleted the document it had just become, or nothing. */
export type DequeueOutcome = 'dequeued' | 'deleted' | 'none';
/**
 * Why the library's database was closed under a running tab: a newer app version in another tab took it
 * (`updated`), it was deleted (`deleted`: site data cleared, `deleteDatabase` from elsewhere), or the
 * browser closed the connection (`terminated`: storage cleared or evicted).
 */
export type ClosedReason = 'updated' | 'deleted' | 'terminated';

/**
 * What a Delete of a document did: `deleted`, or `kept` because its file was added again after Delete was
 * pressed (inside the Undo window), or `gone` when it was not there any more.
 */
export type DeleteOutcome = 'deleted' | 'kept' | 'gone';

/** Restricts a search; every field is optional and fields combine with AND. */
/** One row of the Library list. */
export interface LibraryItem {
  key: string;
  kind: 'document' | 'queued' | 'failed';
  name: string;
  path: string;
  docId?: DocId;
  queueId?: QueueId;
  type?: DocType;
  tags?: string[];
  pages?: number;
  size?: number;
  title?: string;
  /** Pages not searchable because their text is unreadable. */
  unreadablePages?: PageRanges;
  /** Pages whose text was recognised from their image (OCR). */
  recognisedPages?: PageRanges;
  /** Pages recognised with low confidence. */
  lowConfidencePages?: PageRanges;
  addedAt?: number;
  /** The document's own date (see `DocRecord.date`). */
  date?: number;
  error?: SerializedError;
  /** A failed file whose contents are kept, so Try again can read it again. */
  retriable?: boolean;
}

export interface StorageEstimate {
  usage: number;
  quota: number;
  persisted: boolean;
}

/**
 * Why answers quote the documents instead of being written by a model, or that a model writes them:
 * - `extractive`, `reason` `none` (no model chosen), `no-webgpu` (no model chosen, no WebGPU, and the
 *   WASM model not downloaded) or `failed` (the chosen model, `modelId`, did not load: `message`, `code`;
 *   it is no longer chosen, so nothing stays "in use" and a reload does not try it again);
 * - `loading` a model (`download` while its files download; answers quote meanwhile);
 * - `ready`: `model` writes answers.
 */
export type AnswerModelStatus =
  | { state: 'extractive'; reason: 'none' | 'no-webgpu' | 'failed'; model?: string; message?: string; code?: ErrorCode; modelId?: string }
  | { state: 'loading'; model: string; download?: { loaded: number; total: number; files: Array<{ file: string; loaded: number; total: number }> } }
  | { state: 'ready'; model: string };

/**
 * What a file's reader is doing where a percentage says too little: recognising the text of page 3 of 12
 * (OCR, seconds a page), with the time left estimated from the pages recognised so far.
 */
export interface ReadingStage {
  stage: 'recognising';
  page: number;
  pages: number;
  secondsLeft?: number;
}

/** A file's reading progress: the fraction done (0–1), and what it is doing when that says more. */
export type ReadProgress = (fraction: number, stage?: ReadingStage) => void;

/** Progress and change events, sent by the library worker to every tab. */
export type LibraryEvent =
  | { type: 'file-progress'; queueId: QueueId; path: string; percent: number; stage?: ReadingStage }
  /** `matches`: for 'already-in-library', the path of the stored document with the same contents. */
  /** `docId`: for 'already-in-library', the stored document (a Delete of it still inside its Undo window is cancelled). */
  /** 'read-again': a stored document read again in its place; 'no-text': a folder's picture without text, left out. */
  | { type: 'file-done'; queueId: QueueId; path: string; outcome: 'indexed' | 'already-in-library' | 'replaced' | 'read-again' | 'no-text' | 'cancelled'; matches?: string; docId?: DocId }
  | { type: 'file-failed'; queueId: QueueId; path: string; error: SerializedError }
  | { type: 'queue'; done: number; total: number; bytesDone: number; bytesTotal: number; etaMs?: number }
  | { type: 'changed' }
  /** A folder added again was compared with the library (`folder-sync.ts`): "2 added, 1 removed, 40 unchanged". */
  | { type: 'folder-synced'; folders: string[]; summary: string }
  /** A dropped folder's files of types the app does not read were left out: "skipped 3 files this app does not read: 2 .css, 1 .gif (…)". */
  | { type: 'files-skipped'; folders: string[]; summary: string }
  /** A saved conversation was added to, renamed or deleted (the history is read again). */
  | { type: 'conversations' }
  | EmbeddingEvent
  /** This tab's library stopped: another tab updated the app, or the browser closed or deleted its storage. */
  | { type: 'library-closed'; reason: ClosedReason; message: string }
  /** This tab's library waits to open: an older version of the app in another tab blocks the upgrade. */
  | { type: 'library-blocked'; message: string }
  /** What writes this tab's answers (a model loading, ready, or why answers quote the documents). */
  | { type: 'answer-model'; status: AnswerModelStatus };

/**
 * Semantic search's state, from the library worker: `off` (no model: BM25 only), `loading` the model,
 * `embedding` passages (overall and for the document in progress, with an ETA once measurable), `ready`
 * (every passage has its vector), or `failed` (the message says why; BM25 still answers).
 */
export interface EmbeddingEvent {
  type: 'embedding';
  state: 'off' | 'loading' | 'embedding' | 'ready' | 'failed';
  /** The model in use (its catalogue label), when there is one. */
  model?: string;
  /** Passages with a vector, of all passages in the library. */
  done: number;
  total: number;
  etaMs?: number;
  /** The document being embedded now. */
  doc?: { path: string; done: number; total: number };
  /** While `loading`: the model's files downloading, in bytes (a total of 0 is not known yet). */
  download?: { loaded: number; total: number; files: Array<{ file: string; loaded: number; total: number }> };
  /** Where the model runs, and why ("WASM: this browser has no WebGPU"). */
  device?: string;
  /** The cross-encoder reranking each question's candidates, when one is in use. */
  reranker?: string;
  message?: string;
  /** When `failed`: what kind of failure, for the page's plain words (`ui/model-failure.ts`). */
  code?: ErrorCode;
}

export type { RerankPlace, RetrieverRank, Passage, AnswerSegment, RemovedCitation, TextRange, Citation, Answer, PassageRef, AskStep, AskRequest } from './answer-types.ts';

/** A cited range inside a block, with the text it held when cited (checked again when the source opens). */
export interface CitedRange extends TextRange {
  text: string;
}

/** What the Source dialog asks the library for: ranges inside one block, in block offsets. */
export interface SourceRequest {
  docId: DocId;
  block: number;
  /** The sentences the answer quoted (or, for a closest passage, its best match), in text order. */
  marks: CitedRange[];
  /** The retrieved chunk around them, shown tinted; optional. */
  context?: TextRange;
}

/** The source view: the whole block (a PDF page, a section), with the cited sentences to mark. */
export interface SourceView {
  docId: DocId;
  docType: DocType;
  docName: string;
  docPath: string;
  /** Where in the document: "page 4", "page 4 · Security deposit", "Methods › Sampling", "lines 12–40". */
  label: string;
  /** 1-based page number of a PDF page. */
  page?: number;
  text: string;
  /** Ranges of `text` to mark, sorted, not overlapping; each holds the text it was cited with. */
  marks: TextRange[];
  /** The retrieved chunk, inside `text`. */
  context?: TextRange;
  /** Ranges of `text` that are code (`Block.code`). */
  code?: TextRange[];
  /** The words recognised on the page (OCR, `Block.words`): the cited sentences are marked on the page image. */
  words?: WordBox[];
}

/** One chunk of a prepared document: its id, normalised text and location. */
export interface PreparedChunk {
  id: ChunkId;
  /** Normalised chunk text: what is indexed and hashed. */
  text: string;
  location: ChunkLocation;
}

/** What ingest hands the store: a document, its blocks and its chunks, ready to commit in one transaction. */
export interface PreparedDocument {
  doc: DocRecord;
  blocks: Block[];
  chunks: PreparedChunk[];
}

/** One chunk as one document holds it. A chunk shared by two documents is added twice, once per owner. */
export interface IndexEntry {
  chunkId: ChunkId;
  docId: DocId;
  text: string;
  /** The owning document's title, searched as its own field. */
  title: string;
}
