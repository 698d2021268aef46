import type { ChunkId } from '../core/ids.ts';
import type { Answer, AskRequest, AskStep, DocRecord, Passage, SearchFilter } from '../core/types.ts';
import { extractiveAnswerer, type Answerer, type AnswerOptions } from '../generate/answerer.ts';
import { createEncoderAnswerer } from '../generate/encoder-answer.ts';
import { filtersFor } from '../question/filter-step.ts';
import { rerankText } from '../rerank/rerank.ts';
import { hybridSearch, type HybridOptions, type RankedSearch } from '../retrieve/hybrid.ts';
import { multiQuerySearch } from '../retrieve/multi-query.ts';
import { forgivingRerankedSearch } from '../retrieve/reranked-search.ts';
import { retrievePassages } from '../retrieve/retrieve.ts';
import type { LibraryStore } from '../store/library-store.ts';
import { passagesFor } from './ask-pipeline.ts';
import type { Conversations } from './conversations.ts';
import type { Embedding } from './embedding.ts';
import type { IndexKeeper } from './index-keeper.ts';
import type { LibraryModels } from './library-models.ts';
import { answerWholeDocument } from './whole-document.ts';

/** What a question takes besides its text and filter (see {@link AskRequest}), and where its progress goes. */
export interface AskOptions extends Omit<AskRequest, 'question' | 'filter'> {
  /** Each piece of the answer as a model writes it. */
  onText?: (piece: string) => void;
  /** Each step before the answer (rewritten, phrasings, a hop) as it happens. */
  onStep?: (step: AskStep) => void;
}

/** How questions are answered: fusion, reranking, and the answerer when no model writes. */
export interface AskingOptions {
  /**
   * Answers questions from the retrieved passages when no model does. Default: the answer by meaning
   * while an embedding model is in use, else {@link extractiveAnswerer}.
   */
  answerer?: Answerer;
  /** Reciprocal Rank Fusion of BM25 and dense hits: k (default 60) and hits asked per retriever. */
  fusion?: HybridOptions;
  /** Cross-encoder reranking: fused candidates scored (default 40, range 1–200), longest wait (default 15 s). */
  rerank?: { candidates?: number; timeoutMs?: number };
}

/** What answering works on: the store, the indexes, the question's vectors, the models, the conversations. */
export interface AskingParts {
  store: LibraryStore;
  keeper: IndexKeeper;
  embedding: Embedding;
  models: LibraryModels;
  conversations: Conversations;
  options?: AskingOptions;
}

/**
 * Answering questions, one part of the library: the filters read from the question, a whole document
 * read when the question asks for one, else hybrid retrieval (reranked when a reranker is in use) and the
 * answerer, within a saved conversation. One answer at a time: a new question stops the one being written.
 */
export class Asking {
  /** The answer being written, to stop it. */
  private answering: AbortController | undefined;

  constructor(private readonly parts: AskingParts) {}

  /**
   * Answers a question from the library: hybrid retrieval (reranked when a reranker is in use), then the
   * answerer (streaming through `options.onText` when a model writes). Within a conversation
   * (`options.conversationId`; none: a new one), a follow-up is first rewritten into a standalone question
   * (`onStep`, kept in `answer.steps`), and the answer, even a stopped one, is saved as a turn (see
   * {@link Conversations}).
   */
  async ask(question: string, filter?: SearchFilter, options: AskOptions = {}): Promise<Answer> {
    this.answering?.abort();
    const controller = new AbortController();
    this.answering = controller;
    try {
      const { signal } = controller;
      const { conversations, models } = this.parts;
      const prepared = await conversations.prepare(question, options, models.generator, signal);
      for (const step of prepared.steps) options.onStep?.(step);
      const answer = await this.answer(prepared.standalone, filter, { ...options, signal, turns: prepared.turns, summary: prepared.summary });
      return await conversations.record(prepared, answer);
    } finally {
      if (this.answering === controller) this.answering = undefined;
    }
  }

  /** Stops the answer being written (Stop): it keeps what was written. */
  stop(): void {
    this.answering?.abort();
  }

  /**
   * The passages (the question's own; with a model, fused over its phrasings and gathered over hops as
   * `options` ask: `ask-pipeline.ts`), then the answerer over them; the steps taken go in `answer.steps`.
   */
  private async answer(question: string, asked: SearchFilter | undefined, options: AskOptions & AnswerOptions): Promise<Answer> {
    const { store, keeper } = this.parts;
    const generator = this.parts.models.generator;
    // The document list, read at most once for this question (the filter step and whole-document recognition).
    let listed: Promise<DocRecord[]> | undefined;
    const docs = () => (listed ??= store.listDocuments());
    // Filters the model reads from the question (self-query) narrow the person's own.
    const { filter, steps: read } = await filtersFor(question, asked, { ...options, generator, docs });
    // A question about a whole document ("summarise the lease", or the toggle) reads all of it instead.
    const whole = await answerWholeDocument({ store, generator, stats: keeper.lexical, docs }, question, filter, options);
    if (whole) return read.length ? { ...whole, steps: [...read, ...(whole.steps ?? [])] } : whole;
    const retrieve = (query: string, phrasings: readonly string[] = []) => this.retrieve(query, filter, phrasings);
    const { passages, steps } = await passagesFor(question, { ...options, retrieve, generator });
    // The index's term counts weigh the relevance rule: a rare word of the question counts for more.
    const searches = steps.flatMap((s) => (s.type === 'expanded' ? s.queries.slice(1) : s.type === 'hop' && s.hop > 1 ? [s.query] : []));
    // With an embedding model and no text generator, the answer quotes by meaning (generate/encoder-answer.ts).
    const embedder = this.parts.models.embedder;
    const answerer = this.parts.models.answerer ?? this.parts.options?.answerer ?? (embedder ? createEncoderAnswerer(embedder) : extractiveAnswerer);
    const answer = await answerer.answer(question, passages, keeper.lexical, { ...options, searches });
    return steps.length || read.length ? { ...answer, steps: [...read, ...(answer.steps ?? []), ...steps] } : answer;
  }

  /** Hybrid retrieval for a query (its phrasings, if any, searched too and fused), reranked when a reranker is in use. */
  private retrieve(query: string, filter: SearchFilter | undefined, phrasings: readonly string[]): Promise<Passage[]> {
    const { keeper, embedding, store, options } = this.parts;
    // BM25 starts at once; the dense index waits for the query's vector (embedded in the embed worker).
    const retrievers = keeper.set.indexes().map((index) => ({ index }));
    const others = phrasings.map((text) => ({ text, vector: embedding.queryVector(text) }));
    const fused = multiQuerySearch(hybridSearch(retrievers, options?.fusion), others, options?.fusion);
    return retrievePassages(this.reranked(fused), store, { text: query, vector: embedding.queryVector(query) }, {
      k: 5,
      filter,
      chunkFilter: (docIds) => keeper.owners.ownedBy(docIds),
      retrievers: retrievers.map((r) => r.index.name),
    });
  }

  /**
   * Reranks a question's top fused hits with the cross-encoder in use (its title, then the chunk, as the
   * pair's passage). The person asked a question, not for a reranker: when it fails or takes longer
   * than `rerank.timeoutMs`, the fused order answers, and the failure is logged.
   */
  private reranked(fused: RankedSearch): RankedSearch {
    const reranker = this.parts.models.reranker;
    if (!reranker) return fused;
    const { store, keeper } = this.parts;
    const textsOf = async (ids: readonly ChunkId[]) => {
      const chunks = await store.getChunks(ids);
      return ids.map((id, i) => rerankText(keeper.owners.titleOf(id), chunks[i]?.text ?? ''));
    };
    return forgivingRerankedSearch(fused, textsOf, reranker.score, this.parts.options?.rerank);
  }
}
