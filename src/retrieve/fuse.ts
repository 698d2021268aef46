import type { ChunkId } from '../core/ids.ts';
import type { Hit } from '../index/search-index.ts';
import { describeRerank, type RerankPlace } from '../rerank/rerank.ts';

/** One retriever's ranked hits (best first), with the name the "Why this passage" line shows ("BM25", "Dense"). */
export interface RankedList {
  name: string;
  hits: readonly Hit[];
  /** Multiplies this list's contributions. Default 1; range 0–10 (0 leaves the list out of the scores). */
  weight?: number;
}

/** Where a fused hit stood in one retriever: 1-based rank and that retriever's own score. */
export interface RetrieverRank {
  rank: number;
  score: number;
}

export interface FusedHit {
  chunkId: ChunkId;
  /** The fused score: Σ weight / (k + rank) over the lists that hold the chunk. */
  score: number;
  /** By retriever name, for each list that holds the chunk. */
  ranks: Record<string, RetrieverRank>;
  /** Set when a cross-encoder reranked this hit (`rerankedSearch`): its place among the reranked candidates. */
  rerank?: RerankPlace;
  /**
   * Set when several phrasings of the question were searched and fused (`multi-query.ts`): how many of
   * them found this chunk. `ranks` are then those of the phrasing that ranked it best, and `score` the
   * fusion over the phrasings.
   */
  phrasings?: { matched: number; total: number };
}

export interface FusionOptions {
  /** RRF's k: larger flattens the difference between top ranks. Default 60 (Cormack et al., 2009); range 1–1000. */
  k?: number;
}

export const DEFAULT_RRF_K = 60;

/**
 * Reciprocal Rank Fusion: each list adds `weight / (k + rank)` for each chunk it ranks, so only ranks
 * matter, never the retrievers' score scales (BM25 and cosine cannot be compared). A chunk listed twice
 * by one retriever counts once, at its best rank. Ties go to the chunk id, so the result never depends
 * on the order of the lists.
 *
 * @example reciprocalRankFusion([{ name: 'BM25', hits: [a, b] }, { name: 'Dense', hits: [b, c] }])
 *   // → b (1/62 + 1/61), a (1/61), c (1/62)
 */
export function reciprocalRankFusion(lists: readonly RankedList[], options: FusionOptions = {}): FusedHit[] {
  const k = options.k ?? DEFAULT_RRF_K;
  const fused = new Map<ChunkId, FusedHit>();
  // Summed in the order of the retrievers' names, so the floating-point sums (and the order of close
  // scores) never depend on the order the lists came in.
  for (const list of [...lists].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const weight = list.weight ?? 1;
    list.hits.forEach((hit, i) => {
      let entry = fused.get(hit.chunkId);
      if (!entry) fused.set(hit.chunkId, (entry = { chunkId: hit.chunkId, score: 0, ranks: {} }));
      if (entry.ranks[list.name]) return;
      entry.ranks[list.name] = { rank: i + 1, score: hit.score };
      entry.score += weight / (k + i + 1);
    });
  }
  return [...fused.values()].sort((a, b) => b.score - a.score || (a.chunkId < b.chunkId ? -1 : a.chunkId > b.chunkId ? 1 : 0));
}

/**
 * "BM25 #3 · Dense #1 · RRF 0.0325", and "… · Rerank #1 (7.21)" for a reranked hit: what the "Why this
 * passage" button reveals. A hit fused over phrasings starts "Phrasings 2/4 ·" (then its best
 * phrasing's ranks, and the RRF score over the phrasings).
 */
export function describeFusion(hit: FusedHit, names: readonly string[]): string {
  const parts = names.map((name) => (hit.ranks[name] ? `${name} #${hit.ranks[name].rank}` : `${name} –`));
  if (hit.phrasings) parts.unshift(`Phrasings ${hit.phrasings.matched}/${hit.phrasings.total}`);
  return [...parts, `RRF ${hit.score.toFixed(4)}`, ...(hit.rerank ? [describeRerank(hit.rerank)] : [])].join(' · ');
}
