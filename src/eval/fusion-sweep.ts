/**
 * Chooses hybrid fusion by general means: every judged query is searched once by BM25 and once by the
 * dense index, then each candidate setting (RRF's k, the dense list's weight) fuses those same lists,
 * as the app's hybrid search does, and is scored by nDCG@10 over documents (best chunk per document).
 * Run on a training split; the chosen setting is then reported on the test split.
 */
import { reciprocalRankFusion, type RankedList } from '../retrieve/fuse.ts';
import type { BeirCollection } from './beir.ts';
import type { IndexedCollection } from './evaluate.ts';
import { bestPerDocument, ndcgAt } from './metrics.ts';

export interface FusionCandidate {
  /** RRF's k. */
  k: number;
  /** The dense list's weight; BM25's is 1. */
  denseWeight: number;
}

export interface SweptFusion extends FusionCandidate {
  'ndcg@10': number;
}

/** Every pair of `ks` and `denseWeights`. */
export function fusionGrid(ks: readonly number[], denseWeights: readonly number[]): FusionCandidate[] {
  return ks.flatMap((k) => denseWeights.map((denseWeight) => ({ k, denseWeight })));
}

/** nDCG@10 of each candidate on `collection`'s judged queries, best first (ties keep grid order). */
export async function sweepFusion(collection: BeirCollection, indexed: IndexedCollection, candidates: readonly FusionCandidate[], depth = 2000): Promise<SweptFusion[]> {
  const { lexical, dense, embedder, owners, beirIdOf } = indexed;
  if (!dense || !embedder) throw new Error('fusion sweep: the collection needs its vectors (--model)');
  const judged: { relevant: ReadonlyMap<string, number>; lists: [RankedList, RankedList] }[] = [];
  for (const [qid, relevant] of collection.qrels) {
    const text = collection.queries.get(qid);
    if (text === undefined) continue;
    const vector = await embedder.embedQuery(text);
    const [bm25, vectors] = await Promise.all([lexical.search({ text }, depth), dense.search({ text, vector }, depth)]);
    judged.push({ relevant, lists: [{ name: lexical.name, hits: bm25 }, { name: dense.name, hits: vectors }] });
  }
  const docsOf = (chunkId: Parameters<typeof owners.ownersOf>[0]) => owners.ownersOf(chunkId).map((d) => beirIdOf.get(d) ?? d);
  const scored = candidates.map((candidate, order) => {
    let total = 0;
    for (const { relevant, lists } of judged) {
      const fused = reciprocalRankFusion([lists[0], { ...lists[1], weight: candidate.denseWeight }], { k: candidate.k });
      total += ndcgAt(bestPerDocument(fused, (h) => docsOf(h.chunkId)), relevant, 10);
    }
    return { ...candidate, 'ndcg@10': Math.round((total / Math.max(1, judged.length)) * 1e4) / 1e4, order };
  });
  return scored.sort((a, b) => b['ndcg@10'] - a['ndcg@10'] || a.order - b.order).map(({ order: _order, ...rest }) => rest);
}
