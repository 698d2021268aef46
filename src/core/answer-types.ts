import type { ChunkId, ConversationId, DocId } from './ids.ts';
import type { QueryChip } from './query-filters.ts';
import type { DocType, SearchFilter } from './filter-types.ts';

/**
 * What retrieval, the answer stage and the page exchange about a question: the passages found (with their
 * ranks and reranker scores), the answer and its checked citations, the question as the page asks it, and
 * the steps taken before the answer. Re-exported by `types.ts`.
 */

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
  /**
   * The document's own title, when it names this passage well: its metadata title, or its first heading
   * where `label` starts with it; absent otherwise (the page then names the source by its file name).
   */
  docTitle?: string;
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
  /** Ranges of `window` that are code (its block's `code`, clipped to the window). */
  code?: TextRange[];
}

/** A piece of answer text; `cite` points into `Answer.citations` (1-based). */
export interface AnswerSegment {
  text: string;
  cite?: number;
  /** A quoted line of code (a command, a line of a program): shown as code, on a line of its own. */
  code?: boolean;
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
   * Its citation was found by the checker: the model wrote none here that holds, and one passage holds
   * most of what the sentence says (`generate/citations.ts`).
   */
  attributed?: boolean;
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
 * A step taken before the answer (phrasings, hops, a whole document), reported to the page as it happens and kept with the
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
