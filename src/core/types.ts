import type { ChunkId, ConversationId, DocId, QueueId } from './ids.ts';
import type { SerializedError } from './errors.ts';
import type { PageRanges } from './page-ranges.ts';
import type { DateRange, QueryChip } from './query-filters.ts';

export type DocType = 'pdf' | 'docx' | 'html' | 'markdown' | 'text';

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
  addedAt: number;
  /** The document's own date (`ParsedDoc.date`); absent when its file has none, or was stored before dates were kept. */
  date?: number;
  tags: string[];
  chunkCount: number;
  /** Distinct chunks (a chunk can repeat inside a document): what the index holds for it. */
  distinctChunks?: number;
  /** The queue entry it was committed from (a Delete on that entry's row removes it). */
  queueId?: QueueId;
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
}

/** What removing a queue row did: dequeued a waiting or failed file, deleted the document it had just become, or nothing. */
export type DequeueOutcome = 'dequeued' | 'deleted' | 'none';

/** Restricts a search; every field is optional and fields combine with AND. */
export interface SearchFilter {
  docIds?: DocId[];
  folders?: string[];
  types?: DocType[];
  tags?: string[];
  /** Added to the library in this range. */
  added?: DateRange;
  /** The document's own date in this range (a document without one is left out). */
  dated?: DateRange;
}

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
 *   WASM model not downloaded) or `failed` (the chosen model did not load: `message`);
 * - `loading` a model (`download` while its files download; answers quote meanwhile);
 * - `ready`: `model` writes answers.
 */
export type AnswerModelStatus =
  | { state: 'extractive'; reason: 'none' | 'no-webgpu' | 'failed'; model?: string; message?: string }
  | { state: 'loading'; model: string; download?: { loaded: number; total: number; files: Array<{ file: string; loaded: number; total: number }> } }
  | { state: 'ready'; model: string };

/** Progress and change events, sent by the library worker to every tab. */
export type LibraryEvent =
  | { type: 'file-progress'; queueId: QueueId; path: string; percent: number }
  /** `matches`: for 'already-in-library', the path of the stored document with the same contents. */
  | { type: 'file-done'; queueId: QueueId; path: string; outcome: 'indexed' | 'already-in-library' | 'replaced' | 'cancelled'; matches?: string }
  | { type: 'file-failed'; queueId: QueueId; path: string; error: SerializedError }
  | { type: 'queue'; done: number; total: number; bytesDone: number; bytesTotal: number; etaMs?: number }
  | { type: 'changed' }
  /** A saved conversation was added to, renamed or deleted (the history is read again). */
  | { type: 'conversations' }
  | EmbeddingEvent
  /** This tab's library stopped: another tab updated the app. */
  | { type: 'library-closed'; message: string }
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
}

/** Where a reranker put a passage: 1-based rank among the reranked candidates and the cross-encoder's score (its logit). */
export interface RerankPlace {
  rank: number;
  score: number;
}

/** Where a passage stood in one retriever. */
export interface RetrieverRank {
  /** "BM25", "Dense". */
  name: string;
  /** 1-based. */
  rank: number;
  /** That retriever's own score (BM25, cosine): comparable only within it. */
  score: number;
}

/** A passage returned by retrieval: the chunk hit plus its parent window. */
export interface Passage {
  chunkId: ChunkId;
  /** Fused score (Reciprocal Rank Fusion over the retrievers). */
  score: number;
  /** Each retriever that ranked this chunk. */
  ranks: RetrieverRank[];
  /** Where the cross-encoder put this chunk among the reranked candidates; absent when nothing reranked. */
  rerank?: RerankPlace;
  /** What "Why this passage" shows: "BM25 #3 · Dense #1 · RRF 0.0325" (then " · Rerank #1 (7.21)" when reranked). */
  why: string;
  docId: DocId;
  docName: string;
  docPath: string;
  docType: DocType;
  block: number;
  /** Where in the document, as the Source dialog names it: "page 4 · Security deposit" (`core/block-label.ts`). */
  label: string;
  page?: number;
  /** The parent window text, and where it starts in its block. */
  window: string;
  windowStart: number;
  /** Chunk range inside `window`. */
  hitStart: number;
  hitEnd: number;
}

/** A piece of answer text; `cite` points into `Answer.citations` (1-based). */
export interface AnswerSegment {
  text: string;
  cite?: number;
  /**
   * Every citation of the segment, in the order written, when it has more than one (a model's sentence
   * may cite "[1, 3]"); `cite` is the first of them. Absent: `cite` alone.
   */
  cites?: number[];
  /**
   * For each citation (in the order of `cites`, or `cite` alone), the sentence of its passage's window that
   * supports this segment (window offsets; a model's answer): its `[n]` opens the Source dialog on that
   * sentence, not on every sentence the citation supports elsewhere in the answer.
   */
  quotes?: TextRange[];
  /**
   * A sentence written by a model that no passage it cites supports (checked citations,
   * `generate/citations.ts`): shown marked, so a reader knows not to trust it.
   */
  unsupported?: boolean;
}

/** A citation a model wrote that the checker removed, and why (shown with the answer). */
export interface RemovedCitation {
  /** The number as the model wrote it (the passage's number in the prompt, not in Sources). */
  n: number;
  /** 'no-such-passage': no passage [n] was given; 'not-supported': passage [n] does not support the sentence. */
  reason: 'no-such-passage' | 'not-supported';
  /** The sentence it was attached to. */
  sentence: string;
}

/** A character range, end exclusive. */
export interface TextRange {
  start: number;
  end: number;
}

export interface Citation {
  n: number;
  passage: Passage;
  /**
   * The sentences the answer quoted from this passage and cites as [n]: exact ranges inside
   * `passage.window`, in text order. Empty for a closest passage of an answer that was not found.
   */
  quotes: TextRange[];
  /**
   * Ranges inside `passage.window` highlighted in the Sources list: the quotes, or for a closest passage
   * its best partial match (if any).
   */
  marks: TextRange[];
}

export interface Answer {
  question: string;
  /**
   * Whether a sentence cleared the relevance rule (`generate/extractive-answer.ts`). When false there are
   * no segments, and `citations` are the closest passages, which the answer does not cite.
   */
  found: boolean;
  segments: AnswerSegment[];
  citations: Citation[];
  /** Citations a model wrote that were removed by the checker (absent for the extractive answer). */
  removedCitations?: RemovedCitation[];
  /** The model that wrote the answer (its label); absent for the extractive answer. */
  generatedBy?: string;
  /** Generation was stopped: the answer is what had been written by then, checked. */
  stopped?: boolean;
  /** What was done before answering (the follow-up rewritten, phrasings searched, hops), in order. */
  steps?: AskStep[];
  /** The conversation the question and this answer were saved in (the next question continues it). */
  conversationId?: ConversationId;
}

/** A retrieved passage as a step names it: enough to show it, and to dedupe by chunk. */
export interface PassageRef {
  chunkId: ChunkId;
  docPath: string;
  label: string;
}

/**
 * A step taken before the answer (issue 8 §3–§5), reported to the page as it happens and kept with the
 * answer: the follow-up rewritten into a standalone question (by the model, or by the rule when no model
 * writes answers), the phrasings searched, each multi-hop hop, a whole document read in parts.
 */
export type AskStep =
  | { type: 'rewritten'; question: string; standalone: string; by: 'model' | 'rule' | 'person' }
  | { type: 'expanded'; queries: string[] }
  | { type: 'hop'; hop: number; query: string; passages: PassageRef[]; sufficient?: boolean; missing?: string; stoppedBy?: 'reranker' }
  | { type: 'whole-document'; docId: DocId; docPath: string; done: number; total: number }
  /** Filters the model read from the question (self-query), applied to the search; shown as removable chips. */
  | { type: 'filters'; chips: QueryChip[]; by: 'model' };

/** A question as the page asks it. */
export interface AskRequest {
  question: string;
  filter?: SearchFilter;
  /** The conversation this question continues (its earlier turns give a follow-up its meaning); none: a new one. */
  conversationId?: ConversationId;
  /** The standalone question as the person edited it: used as it is, not rewritten again. */
  standalone?: string;
  /** The question asked again (the searched question edited): its answer replaces the conversation's last turn. Default false. */
  redo?: boolean;
  /** Search several phrasings the model writes, fused (needs a model). Default false. */
  expand?: boolean;
  /** Multi-hop: the model judges whether the passages suffice and searches again, up to 3 hops (needs a model). Default false. */
  multiHop?: boolean;
  /** Answer over every section of this document (map-reduce), not the top passages. */
  wholeDocument?: DocId;
  /**
   * The model reads filters from the question (self-query: documents, folders, types, tags, dates named in
   * it), applied to the search and reported as a `filters` step. Needs a model. Default false (the page
   * asks for it whenever a model writes answers; the rule-based chips come in `filter`).
   */
  readFilters?: boolean;
  /**
   * The model's filters from an earlier reading of this question, as the person left them (a chip
   * removed): applied and reported as they are, and the question is not read again. Wins over `readFilters`.
   */
  filterChips?: QueryChip[];
}

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
