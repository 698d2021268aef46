import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asChunkId } from '../../src/core/ids.ts';
import { describeFusion, reciprocalRankFusion, type RankedList } from '../../src/retrieve/fuse.ts';

const hits = (...ids: string[]) => ids.map((id, i) => ({ chunkId: asChunkId(id), score: 10 - i }));
const ids = (fused: ReadonlyArray<{ chunkId: string }>) => fused.map((h) => h.chunkId as string);

/** Lists of up to 4 retrievers over chunks c0–c19, each ranking distinct chunks. */
const lists = fc.array(fc.uniqueArray(fc.integer({ min: 0, max: 19 }), { maxLength: 20 }), { minLength: 1, maxLength: 4 }).map((ls) =>
  ls.map((order, i): RankedList => ({ name: `r${i}`, hits: hits(...order.map((n) => `c${n}`)) })),
);

describe('reciprocalRankFusion', () => {
  it('adds 1/(k + rank) per list, keeps each retriever\'s rank and score, and describes them', () => {
    const fused = reciprocalRankFusion([
      { name: 'BM25', hits: hits('a', 'b', 'c') },
      { name: 'Dense', hits: hits('b', 'd') },
    ]);
    expect(ids(fused)).toEqual(['b', 'a', 'd', 'c']);
    expect(fused[0]!.score).toBeCloseTo(1 / 62 + 1 / 61, 12);
    expect(fused[0]!.ranks).toEqual({ BM25: { rank: 2, score: 9 }, Dense: { rank: 1, score: 10 } });
    expect(describeFusion(fused[0]!, ['BM25', 'Dense'])).toBe('BM25 #2 · Dense #1 · RRF 0.0325');
    expect(describeFusion(fused[3]!, ['BM25', 'Dense'])).toBe('BM25 #3 · Dense – · RRF 0.0159');
  });

  it('counts a chunk listed twice by one retriever once, at its best rank; weights and k change the scores', () => {
    const fused = reciprocalRankFusion([{ name: 'BM25', hits: hits('a', 'b', 'a') }], { k: 1 });
    expect(fused.map((h) => [h.chunkId, h.score])).toEqual([['a', 1 / 2], ['b', 1 / 3]]);
    const weighted = reciprocalRankFusion([
      { name: 'BM25', hits: hits('a', 'b') },
      { name: 'Dense', hits: hits('b', 'a'), weight: 3 },
    ]);
    expect(ids(weighted)).toEqual(['b', 'a']);
    expect(reciprocalRankFusion([])).toEqual([]);
  });

  it('puts first a chunk every list ranks first', () => {
    fc.assert(
      fc.property(lists, fc.integer({ min: 1, max: 200 }), (ls, k) => {
        const top = asChunkId('top');
        const withTop = ls.map((l) => ({ ...l, hits: [{ chunkId: top, score: 99 }, ...l.hits] }));
        expect(reciprocalRankFusion(withTop, { k })[0]!.chunkId).toBe(top);
      }),
    );
  });

  it('does not depend on the order of the lists, and keeps a single list\'s order', () => {
    fc.assert(
      fc.property(lists, (ls) => {
        expect(reciprocalRankFusion([...ls].reverse())).toEqual(reciprocalRankFusion(ls));
        expect(ids(reciprocalRankFusion([ls[0]!]))).toEqual(ids(ls[0]!.hits));
      }),
    );
  });
});
