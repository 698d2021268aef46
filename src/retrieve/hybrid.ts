import type { ChunkFilter, PendingQuery, SearchIndex } from '../index/search-index.ts';
import { reciprocalRankFusion, type FusedHit, type FusionOptions } from './fuse.ts';

/** One index taking part in a search, and how much its ranks weigh in the fusion. */
export interface Retriever {
  index: SearchIndex;
  /** Multiplies this retriever's RRF contributions. Default 1; range 0–10. */
  weight?: number;
}

/** Ranked, fused hits for a question: what passage retrieval reads. */
export type RankedSearch = (query: PendingQuery, k: number, filter?: ChunkFilter) => Promise<FusedHit[]>;

export interface HybridOptions extends FusionOptions {
  /** Hits asked of each retriever per hit wanted. Default 2; range 1–10. */
  depth?: number;
  /**
   * Weights by retriever name (`BM25`, `Dense`), for retrievers that set none themselves. Default
   * {@link DEFAULT_RETRIEVER_WEIGHTS}; a retriever not named weighs 1.
   */
  weights?: Readonly<Record<string, number>>;
}

/**
 * Every retriever weighs the same, with Cormack's k of 60. A sweep on SciFact's train split with the
 * app's default model (`npm run eval -- --split train --model <folder> --tune-fusion`) favoured k 10 and
 * the dense list at 1.5 (nDCG@10 0.751 against 0.741), but on test that setting gave 0.725 against
 * 0.730: within either split's noise, so not reason enough to move (docs/decisions/0003-real-models.md).
 */
export const DEFAULT_RETRIEVER_WEIGHTS: Readonly<Record<string, number>> = {};

/**
 * Searches every retriever concurrently and fuses their ranked lists with Reciprocal Rank Fusion,
 * deduplicated by chunk id; each fused hit keeps its rank and score in each retriever. BM25 starts at
 * once; an index that needs the question's vector waits for it alone. A retriever that cannot take part
 * (no vector: no model, or embedding the question failed) contributes an empty list, so with BM25 alone
 * the order is BM25's.
 *
 * @example const search = hybridSearch([{ index: lexical }, { index: dense }]);
 *   const hits = await search({ text: question, vector }, 20);
 */
export function hybridSearch(retrievers: readonly Retriever[], options: HybridOptions = {}): RankedSearch {
  const depth = Math.max(1, Math.min(10, options.depth ?? 2));
  return async (query, k, filter) => {
    const lists = await Promise.all(
      retrievers.map(async ({ index, weight }) => {
        const vector = index.needsVector ? await query.vector : undefined;
        const weighs = weight ?? (options.weights ?? DEFAULT_RETRIEVER_WEIGHTS)[index.name];
        return { name: index.name, weight: weighs, hits: await index.search({ text: query.text, vector }, k * depth, filter) };
      }),
    );
    return reciprocalRankFusion(lists, options).slice(0, k);
  };
}

/** Names of the retrievers, in order, as "Why this passage" lists them. */
export function retrieverNames(retrievers: readonly Retriever[]): string[] {
  return retrievers.map((r) => r.index.name);
}
