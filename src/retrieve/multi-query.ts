import type { ChunkId } from '../core/ids.ts';
import type { PendingQuery } from '../index/search-index.ts';
import { reciprocalRankFusion, type FusedHit, type FusionOptions } from './fuse.ts';
import type { RankedSearch } from './hybrid.ts';

/** The name of phrasing i (0: the question) as a fused list: zero-padded, so the lists sort in order. */
const phrasingName = (i: number) => `phrasing ${String(i).padStart(2, '0')}`;

/**
 * A {@link RankedSearch} over several phrasings of one question (query expansion): the
 * question it is called with and each of `others` are searched concurrently with `search` (each phrasing
 * with its own vector), and the ranked lists are fused again with Reciprocal Rank Fusion by chunk, so a
 * chunk several phrasings find comes first and no chunk comes twice. Each hit keeps the retriever ranks of
 * the phrasing that ranked it best (the question on a tie), so "Why this passage" still reads "BM25 #2 ·
 * Dense #1", preceded by how many phrasings found it ("Phrasings 3/4"); its `score` is the fusion over the
 * phrasings. With no other phrasing, it is `search` itself.
 *
 * Rerank after this, not before: a cross-encoder scores the (question, passage) pair, and only the
 * question's pairs are comparable with each other.
 *
 * @example const search = multiQuerySearch(hybridSearch(retrievers), phrasings.map((text) => ({ text, vector: embed(text) })));
 *   const hits = await search({ text: question, vector }, 20);
 */
export function multiQuerySearch(search: RankedSearch, others: readonly PendingQuery[], options: FusionOptions = {}): RankedSearch {
  if (!others.length) return search;
  return async (query, k, filter) => {
    const queries = [query, ...others];
    const results = await Promise.all(queries.map((q) => search(q, k, filter)));
    const byPhrasing = results.map((hits) => new Map<ChunkId, FusedHit>(hits.map((h) => [h.chunkId, h])));
    const fused = reciprocalRankFusion(results.map((hits, i) => ({ name: phrasingName(i), hits })), options);
    return fused.slice(0, k).map((hit): FusedHit => {
      let best: FusedHit | undefined;
      let bestRank = Infinity;
      results.forEach((_, i) => {
        const rank = hit.ranks[phrasingName(i)]?.rank;
        if (rank !== undefined && rank < bestRank) {
          bestRank = rank;
          best = byPhrasing[i]!.get(hit.chunkId);
        }
      });
      return {
        chunkId: hit.chunkId,
        score: hit.score,
        ranks: best?.ranks ?? {},
        ...(best?.rerank ? { rerank: best.rerank } : {}),
        phrasings: { matched: Object.keys(hit.ranks).length, total: queries.length },
      };
    });
  };
}
