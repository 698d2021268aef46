import { DocQaError } from '../core/errors.ts';
import type { ChunkId } from '../core/ids.ts';
import { candidateCount, rerankHits, type PairScorer, type RerankOptions } from '../rerank/rerank.ts';
import type { RankedSearch } from './hybrid.ts';

export type RerankedSearchOptions = Pick<RerankOptions, 'candidates'>;

/**
 * A {@link RankedSearch} whose hits are reranked by a cross-encoder: it asks `search` for at least
 * `options.candidates` hits (default 40), scores the first `candidates` of them as (question, text)
 * pairs and returns them in order of that score (ties by fused rank), each with `rerank: { rank,
 * score }`; hits past the candidates follow in their fused order, unscored (so asking for 1,000 hits,
 * as the evaluation does, still ranks them all). `textsOf` gives each chunk's text as the reranker
 * should read it (`rerankText(title, chunk text)`). A failing scorer fails the search.
 *
 * @example const search = rerankedSearch(hybridSearch(retrievers), textsOf, (q, p) => reranker.score(q, p));
 */
export function rerankedSearch(search: RankedSearch, textsOf: (chunkIds: readonly ChunkId[]) => Promise<string[]>, score: PairScorer, options: RerankedSearchOptions = {}): RankedSearch {
  const n = candidateCount(options);
  return async (query, k, filter) => {
    const hits = await search(query, Math.max(k, n), filter);
    const candidates = hits.slice(0, n);
    const texts = await textsOf(candidates.map((h) => h.chunkId));
    const reranked = await rerankHits(query.text, candidates, texts, score, { candidates: n });
    return [...reranked, ...hits.slice(n)].slice(0, k);
  };
}

export interface ForgivingRerankOptions extends RerankedSearchOptions {
  /** Longest wait for the cross-encoder, in ms. Default 15,000; range > 0. */
  timeoutMs?: number;
}

/**
 * {@link rerankedSearch} for a person's question: the person asked a question, not for a reranker, so when
 * scoring fails or takes longer than `timeoutMs`, the fused order answers (the failure is logged).
 */
export function forgivingRerankedSearch(search: RankedSearch, textsOf: (chunkIds: readonly ChunkId[]) => Promise<string[]>, score: PairScorer, options: ForgivingRerankOptions = {}): RankedSearch {
  const ms = options.timeoutMs ?? 15_000;
  const timed: PairScorer = (query, passages) => withTimeout(score(query, passages), ms, 'reranking took too long');
  const reranked = rerankedSearch(search, textsOf, timed, { candidates: options.candidates });
  return async (query, k, filter) => {
    try {
      return await reranked(query, k, filter);
    } catch (err) {
      console.warn('reranking failed; answering in fused order', err);
      return search(query, k, filter);
    }
  };
}

/** `promise`, or a DocQaError 'too-slow' after `ms`. */
function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DocQaError('too-slow', `${what} (over ${Math.round(ms / 1000)} s)`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
