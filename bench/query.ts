/**
 * BM25 query latency of the app's LexicalIndex: p50/p95/mean over a fixed query set, at ~5k chunks
 * (the first SciFact records, SciFact test queries), all of SciFact, and ~100k generated chunks
 * (generated questions). k = 20, what retrieval asks the index for (5 passages × 4).
 * Standalone: `npx tsx bench/query.ts`.
 */
import type { BenchContext, SetName } from './context.ts';
import { isMain, percentile, progress, round } from './util.ts';

/** Hits requested per query: `retrievePassages` asks the index for k × 4 with k = 5. */
export const QUERY_K = 20;
const WARMUP_QUERIES = 30;

export interface QueryTimes {
  p50: number;
  p95: number;
  mean: number;
  max: number;
  n: number;
  /** Queries that returned no hit at all. */
  empty: number;
}

export function timeQueries(search: (q: string) => unknown[], queries: readonly string[]): QueryTimes {
  for (const q of queries.slice(0, WARMUP_QUERIES)) search(q);
  const times: number[] = [];
  let empty = 0;
  for (const q of queries) {
    const t0 = performance.now();
    const hits = search(q);
    times.push(performance.now() - t0);
    if (hits.length === 0) empty++;
  }
  return {
    p50: percentile(times, 50),
    p95: percentile(times, 95),
    mean: times.reduce((a, b) => a + b, 0) / times.length,
    max: Math.max(...times),
    n: times.length,
    empty,
  };
}

export async function benchQuery(ctx: BenchContext, sets: SetName[] = ['5k', 'scifact', '100k']): Promise<void> {
  for (const set of sets) {
    const { queries } = await ctx.corpus(set);
    const { index } = await ctx.build(set);
    progress(`query: ${queries.queries.length} ${queries.name} queries on ${set} (${index.size} chunks)`);
    const t = timeQueries((q) => index.searchNow(q, QUERY_K), queries.queries);
    ctx.record({
      [`chunks_${set}`]: index.size,
      [`query_p50_ms_${set}`]: round(t.p50, 3),
      [`query_p95_ms_${set}`]: round(t.p95, 3),
      [`query_mean_ms_${set}`]: round(t.mean, 3),
      [`query_max_ms_${set}`]: round(t.max, 3),
      [`query_count_${set}`]: t.n,
    });
    if (t.empty) ctx.note(`${t.empty} of ${t.n} queries on ${set} returned no hit`);
  }
}

if (isMain(import.meta.url)) {
  const { runOne } = await import('./report.ts');
  await runOne('query', (ctx) => benchQuery(ctx));
}
