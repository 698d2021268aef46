import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asChunkId } from '../../src/core/ids.ts';
import { describeFusion, reciprocalRankFusion, type FusedHit } from '../../src/retrieve/fuse.ts';
import type { RankedSearch } from '../../src/retrieve/hybrid.ts';
import { multiQuerySearch } from '../../src/retrieve/multi-query.ts';

/** A search whose BM25 and Dense lists for each query text are fixed (chunks c0–c19). */
function fixedSearch(results: Record<string, { bm25: number[]; dense: number[] }>): RankedSearch & { asked: string[] } {
  const asked: string[] = [];
  const search = async (query: { text: string }, k: number) => {
    asked.push(query.text);
    const r = results[query.text] ?? { bm25: [], dense: [] };
    const list = (ns: number[]) => ns.map((n, i) => ({ chunkId: asChunkId(`c${n}`), score: 10 - i }));
    return reciprocalRankFusion([{ name: 'BM25', hits: list(r.bm25) }, { name: 'Dense', hits: list(r.dense) }]).slice(0, k);
  };
  return Object.assign(search, { asked });
}

const ranking = fc.record({ bm25: fc.uniqueArray(fc.integer({ min: 0, max: 19 }), { maxLength: 12 }), dense: fc.uniqueArray(fc.integer({ min: 0, max: 19 }), { maxLength: 12 }) });
const ids = (hits: readonly FusedHit[]) => hits.map((h) => h.chunkId as string);

describe('multiQuerySearch', () => {
  it('fuses the phrasings: a chunk several phrasings find comes first, with its best phrasing\'s ranks', async () => {
    const search = fixedSearch({
      rent: { bm25: [1, 2], dense: [2] },
      'payment date': { bm25: [3, 2], dense: [2] },
      deadline: { bm25: [4, 3], dense: [] },
    });
    const hits = await multiQuerySearch(search, [{ text: 'payment date' }, { text: 'deadline' }])({ text: 'rent' }, 10);
    expect(search.asked.sort()).toEqual(['deadline', 'payment date', 'rent']);
    expect(ids(hits)).toEqual(['c2', 'c3', 'c4', 'c1']);
    // c2: first for "rent" (BM25 #2, Dense #1) and for "payment date"; c3 second for two phrasings.
    expect(hits[0]!.ranks).toEqual({ BM25: { rank: 2, score: 9 }, Dense: { rank: 1, score: 10 } });
    expect(describeFusion(hits[0]!, ['BM25', 'Dense'])).toMatch(/^Phrasings 2\/3 · BM25 #2 · Dense #1 · RRF 0\.\d{4}$/);
    expect(hits[3]!.phrasings).toEqual({ matched: 1, total: 3 });
  });

  it('property: one query is the plain search; a query fused with itself keeps its order', async () => {
    await fc.assert(
      fc.asyncProperty(ranking, fc.integer({ min: 1, max: 20 }), async (r, k) => {
        const search = fixedSearch({ q: r });
        const plain = await search({ text: 'q' }, k);
        expect(await multiQuerySearch(search, [])({ text: 'q' }, k)).toEqual(plain);
        const twice = await multiQuerySearch(search, [{ text: 'q' }])({ text: 'q' }, k);
        expect(ids(twice)).toEqual(ids(plain));
        expect(twice.map((h) => h.ranks)).toEqual(plain.map((h) => h.ranks));
      }),
    );
  });

  it('property: no chunk twice, every hit found by some phrasing, at most k, ranks from a phrasing that found it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(ranking, { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 30 }), async (rankings, k) => {
        const texts = rankings.map((_, i) => `q${i}`);
        const search = fixedSearch(Object.fromEntries(rankings.map((r, i) => [texts[i]!, r])));
        const perPhrasing = await Promise.all(texts.map((text) => search({ text }, k)));
        const hits = await multiQuerySearch(search, texts.slice(1).map((text) => ({ text })))({ text: texts[0]! }, k);
        expect(new Set(ids(hits)).size).toBe(hits.length);
        expect(hits.length).toBeLessThanOrEqual(k);
        for (const hit of hits) {
          const finders = perPhrasing.filter((list) => list.some((h) => h.chunkId === hit.chunkId));
          expect(finders.length).toBeGreaterThan(0);
          expect(finders.some((list) => JSON.stringify(list.find((h) => h.chunkId === hit.chunkId)!.ranks) === JSON.stringify(hit.ranks))).toBe(true);
          if (texts.length > 1) expect(hit.phrasings).toEqual({ matched: finders.length, total: texts.length });
        }
        // Nothing a phrasing found in its top k is lost when fewer than k chunks were found in all.
        const all = new Set(perPhrasing.flatMap(ids));
        if (all.size <= k) expect(new Set(ids(hits))).toEqual(all);
      }),
    );
  });
});
