/** Retrieval metrics over graded relevance judgments (BEIR conventions). */

export type Qrels = Map<string, Map<string, number>>;

/** nDCG@k with linear gains, as in BEIR / pytrec_eval. */
export function ndcgAt(ranked: readonly string[], relevant: ReadonlyMap<string, number>, k: number): number {
  let dcg = 0;
  ranked.slice(0, k).forEach((id, i) => {
    const rel = relevant.get(id) ?? 0;
    if (rel > 0) dcg += rel / Math.log2(i + 2);
  });
  const ideal = [...relevant.values()].filter((r) => r > 0).sort((a, b) => b - a).slice(0, k);
  const idcg = ideal.reduce((sum, rel, i) => sum + rel / Math.log2(i + 2), 0);
  return idcg === 0 ? 0 : dcg / idcg;
}

export function recallAt(ranked: readonly string[], relevant: ReadonlyMap<string, number>, k: number): number {
  const rel = [...relevant].filter(([, r]) => r > 0).map(([id]) => id);
  if (rel.length === 0) return 0;
  const top = new Set(ranked.slice(0, k));
  return rel.filter((id) => top.has(id)).length / rel.length;
}

export function mrrAt(ranked: readonly string[], relevant: ReadonlyMap<string, number>, k: number): number {
  const i = ranked.slice(0, k).findIndex((id) => (relevant.get(id) ?? 0) > 0);
  return i < 0 ? 0 : 1 / (i + 1);
}

/** Median and other percentiles of a list of numbers (nearest rank). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Keeps each document's best-ranked chunk: chunk hits in, document ranking out. */
export function bestPerDocument<T>(hits: readonly T[], docOf: (hit: T) => readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const hit of hits) {
    for (const doc of docOf(hit)) {
      if (!seen.has(doc)) {
        seen.add(doc);
        out.push(doc);
      }
    }
  }
  return out;
}
