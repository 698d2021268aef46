// Reranking fused hits (pure): K results sorted by the cross-encoder's score, ties by fused rank, the
// fused ranks kept, only the first N candidates scored, and the "Why this passage" line; then the
// reranked search that retrieval composes, ending in passages that carry their rerank place.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asChunkId, type ChunkId } from '../../src/core/ids.ts';
import { DEFAULT_RERANK_CANDIDATES, describeRerank, orderByRerank, rerankHits, rerankText, type PairScorer } from '../../src/rerank/rerank.ts';
import { describeFusion, reciprocalRankFusion, type FusedHit } from '../../src/retrieve/fuse.ts';
import { rerankedSearch } from '../../src/retrieve/reranked-search.ts';

const fused = (n: number): FusedHit[] =>
  Array.from({ length: n }, (_, i) => ({ chunkId: asChunkId(`c${i}`), score: 1 / (61 + i), ranks: { BM25: { rank: i + 1, score: 20 - i } } }));
/** Scores each passage by a table keyed by its text ("c3" → table[3]); records what it was asked. */
function tableScorer(table: readonly number[]): PairScorer & { calls: string[][] } {
  const calls: string[][] = [];
  const scorer = async (_query: string, passages: readonly string[]) => {
    calls.push([...passages]);
    return Float32Array.from(passages.map((p) => table[Number(p.slice(1))]!));
  };
  return Object.assign(scorer, { calls });
}
const textsOf = (hits: readonly { chunkId: ChunkId }[]) => hits.map((h) => h.chunkId as string);

describe('orderByRerank', () => {
  it('returns K hits sorted by score, ties in fused order, ranks 1..K, each keeping its own fields', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -3, max: 3 }), { minLength: 0, maxLength: 60 }),
        fc.integer({ min: 0, max: 70 }),
        (raw, k) => {
          const hits = fused(raw.length);
          const scores = Float32Array.from(raw.map((x) => x / 2)); // few distinct values: many ties
          const out = orderByRerank(hits, scores, k);
          expect(out).toHaveLength(Math.min(k, hits.length));
          out.forEach((h, r) => {
            const i = hits.findIndex((x) => x.chunkId === h.chunkId);
            expect(h.rerank).toEqual({ rank: r + 1, score: scores[i] });
            expect(h.ranks).toEqual(hits[i]!.ranks); // the fused ranks stay
            expect(h.score).toBe(hits[i]!.score);
            if (r > 0) {
              const prev = out[r - 1]!;
              const j = hits.findIndex((x) => x.chunkId === prev.chunkId);
              expect(prev.rerank.score > h.rerank.score || (prev.rerank.score === h.rerank.score && j < i)).toBe(true);
            }
          });
          // Every hit left out scores no better than the last one kept.
          const kept = new Set(out.map((h) => h.chunkId));
          const last = out.at(-1);
          if (last) hits.forEach((h, i) => kept.has(h.chunkId) || expect(scores[i]!).toBeLessThanOrEqual(last.rerank.score));
        },
      ),
    );
  });

  it('is deterministic: the same scores in the same fused order give the same result, whatever the batch order was', () => {
    const hits = fused(5);
    const scores = Float32Array.of(1, 3, 3, -2, 3);
    expect(orderByRerank(hits, scores).map((h) => h.chunkId)).toEqual(['c1', 'c2', 'c4', 'c0', 'c3']);
    expect(orderByRerank(hits, scores)).toEqual(orderByRerank(hits, scores));
    expect(() => orderByRerank(hits, Float32Array.of(1))).toThrow(RangeError);
  });
});

describe('rerankHits', () => {
  it('scores only the first N candidates (default 40) and returns the best K', async () => {
    const hits = fused(100);
    const table = Array.from({ length: 100 }, (_, i) => (i * 37) % 101);
    const scorer = tableScorer(table);
    const all = await rerankHits('q', hits, textsOf(hits), scorer);
    expect(scorer.calls).toEqual([textsOf(hits.slice(0, DEFAULT_RERANK_CANDIDATES))]);
    expect(all).toHaveLength(DEFAULT_RERANK_CANDIDATES);
    const top = await rerankHits('q', hits, textsOf(hits), scorer, { candidates: 10, k: 3 });
    const best = hits.slice(0, 10).sort((a, b) => table[Number(b.chunkId.slice(1))]! - table[Number(a.chunkId.slice(1))]!);
    expect(top.map((h) => h.chunkId)).toEqual(best.slice(0, 3).map((h) => h.chunkId));
    expect(await rerankHits('q', [], [], scorer)).toEqual([]);
    await expect(rerankHits('q', hits, textsOf(hits).slice(0, 5), scorer, { candidates: 10 })).rejects.toThrow(RangeError);
  });
});

describe('"Why this passage"', () => {
  it('adds the rerank place and score after the fusion', () => {
    const [hit] = reciprocalRankFusion([
      { name: 'BM25', hits: [{ chunkId: asChunkId('x'), score: 1 }, { chunkId: asChunkId('a'), score: 1 }, { chunkId: asChunkId('b'), score: 1 }] },
      { name: 'Dense', hits: [{ chunkId: asChunkId('b'), score: 1 }] },
    ]).filter((h) => h.chunkId === 'b');
    expect(describeFusion({ ...hit!, rerank: { rank: 1, score: 7.2149 } }, ['BM25', 'Dense'])).toBe('BM25 #3 · Dense #1 · RRF 0.0323 · Rerank #1 (7.21)');
    expect(describeFusion(hit!, ['BM25', 'Dense'])).toBe('BM25 #3 · Dense #1 · RRF 0.0323');
    expect(describeRerank({ rank: 12, score: -3.456 })).toBe('Rerank #12 (-3.46)');
    expect(rerankText('Title', 'text')).toBe('Title text');
    expect(rerankText('', 'text')).toBe('text');
  });
});

describe('rerankedSearch', () => {
  it('asks for at least N hits, reranks them, and keeps the rest in fused order after them', async () => {
    const hits = fused(60);
    const asked: number[] = [];
    const search = async (_q: unknown, k: number) => {
      asked.push(k);
      return hits.slice(0, k);
    };
    const table = Array.from({ length: 60 }, (_, i) => i); // the reranker reverses the candidates
    const reranked = rerankedSearch(search, async (ids) => ids.map(String), tableScorer(table), { candidates: 10 });
    const five = await reranked({ text: 'q' }, 5);
    expect(asked).toEqual([10]);
    expect(five.map((h) => h.chunkId)).toEqual(['c9', 'c8', 'c7', 'c6', 'c5']);
    expect(five[0]!.rerank).toEqual({ rank: 1, score: 9 });
    const many = await reranked({ text: 'q' }, 50);
    expect(asked.at(-1)).toBe(50);
    expect(many.map((h) => h.chunkId)).toEqual([...Array.from({ length: 10 }, (_, i) => `c${9 - i}`), ...Array.from({ length: 40 }, (_, i) => `c${10 + i}`)]);
    expect(many[10]!.rerank).toBeUndefined();
  });
});
