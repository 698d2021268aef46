/**
 * Reranking fused hits with a cross-encoder: the first N candidates of the fused list (default 40) are
 * scored as (question, passage text) pairs and put in order of that score; each keeps what it had (its
 * fused score and its ranks per retriever) and gains `rerank: { rank, score }`, which "Why this passage"
 * shows ("… · Rerank #1 (7.21)"). Pure: the scorer is passed in (a {@link Reranker} in this thread, or
 * the rerank worker's client).
 */
import type { ChunkId } from '../core/ids.ts';
import type { RerankPlace } from '../core/types.ts';

export type { RerankPlace } from '../core/types.ts';

/** Scores (query, passage) pairs, one score per passage in input order, higher is more relevant: `Reranker.score`. */
export type PairScorer = (query: string, passages: readonly string[]) => Promise<Float32Array>;

/** A hit with its rerank place added. */
export type Reranked<H> = H & { rerank: RerankPlace };

export interface RerankOptions {
  /** Candidates scored: the first `candidates` hits, in their fused order. Default 40; range 1–200. */
  candidates?: number;
  /** Reranked hits returned, best first. Default: every scored candidate; range 1–`candidates`. */
  k?: number;
}

/** How many fused hits the cross-encoder reads by default (the N). */
export const DEFAULT_RERANK_CANDIDATES = 40;

/** `options.candidates` clamped to its range. */
export function candidateCount(options: RerankOptions = {}): number {
  return Math.max(1, Math.min(200, Math.floor(options.candidates ?? DEFAULT_RERANK_CANDIDATES)));
}

/**
 * Orders `hits` by `scores` (same length), highest first; equal scores keep the hits' own order (their
 * fused rank), so the result is deterministic. Returns the first `k` (default all), each with its place.
 *
 * @example orderByRerank([a, b, c], Float32Array.of(0.5, 2, 0.5)) // → b #1, a #2, c #3
 */
export function orderByRerank<H extends object>(hits: readonly H[], scores: ArrayLike<number>, k = hits.length): Reranked<H>[] {
  if (scores.length !== hits.length) throw new RangeError(`orderByRerank: ${scores.length} scores for ${hits.length} hits`);
  const order = hits.map((_, i) => i).sort((a, b) => scores[b]! - scores[a]! || a - b);
  return order.slice(0, Math.max(0, k)).map((i, r) => ({ ...hits[i]!, rerank: { rank: r + 1, score: scores[i]! } }));
}

/**
 * Reranks the first `options.candidates` of `hits` (in fused order) by the cross-encoder's score of
 * (query, text); `texts[i]` is the text of `hits[i]` (at least as many texts as candidates scored).
 * Returns the best `options.k`, sorted by rerank score, ties by fused rank.
 *
 * @example const top = await rerankHits(question, fused, texts, (q, p) => reranker.score(q, p), { k: 10 });
 */
export async function rerankHits<H extends { chunkId: ChunkId }>(
  query: string,
  hits: readonly H[],
  texts: readonly string[],
  score: PairScorer,
  options: RerankOptions = {},
): Promise<Reranked<H>[]> {
  const candidates = hits.slice(0, candidateCount(options));
  if (candidates.length === 0) return [];
  if (texts.length < candidates.length) throw new RangeError(`rerankHits: ${texts.length} texts for ${candidates.length} candidates`);
  const scores = await score(query, texts.slice(0, candidates.length));
  return orderByRerank(candidates, scores, options.k ?? candidates.length);
}

/** The text a cross-encoder reads for a chunk: its document's title, when it has one, then the chunk (as BEIR's reranking does). */
export function rerankText(title: string, text: string): string {
  return title ? `${title} ${text}` : text;
}

/** "Rerank #1 (7.21)": the reranker's part of the "Why this passage" line. */
export function describeRerank(place: RerankPlace): string {
  return `Rerank #${place.rank} (${place.score.toFixed(2)})`;
}
