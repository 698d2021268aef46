import { describe, expect, it } from 'vitest';
import { bestPerDocument, mrrAt, ndcgAt, percentile, recallAt } from '../../src/eval/metrics.ts';

const rel = (pairs: Array<[string, number]>) => new Map(pairs);

describe('ndcgAt', () => {
  it('is 1 for the ideal ranking and 0 when nothing relevant is retrieved', () => {
    const r = rel([['a', 2], ['b', 1]]);
    expect(ndcgAt(['a', 'b', 'x'], r, 10)).toBeCloseTo(1, 12);
    expect(ndcgAt(['x', 'y'], r, 10)).toBe(0);
    expect(ndcgAt(['a'], new Map(), 10)).toBe(0);
  });

  it('matches a hand-computed value with graded relevance', () => {
    // ranked: x(0) a(2) b(1) → DCG = 2/log2(3) + 1/log2(4) = 1.26186 + 0.5; IDCG = 2/1 + 1/log2(3) = 2.63093
    const value = ndcgAt(['x', 'a', 'b'], rel([['a', 2], ['b', 1]]), 10);
    expect(value).toBeCloseTo((2 / Math.log2(3) + 0.5) / (2 + 1 / Math.log2(3)), 12);
    expect(value).toBeCloseTo(0.66967, 4);
  });

  it('only counts the top k, and the ideal is cut at k too', () => {
    const r = rel([['a', 1], ['b', 1], ['c', 1]]);
    expect(ndcgAt(['x', 'a'], r, 1)).toBe(0);
    // k=2: DCG = 1/log2(3); IDCG (two relevant in top 2) = 1 + 1/log2(3)
    expect(ndcgAt(['x', 'a'], r, 2)).toBeCloseTo(1 / Math.log2(3) / (1 + 1 / Math.log2(3)), 12);
  });

  it('ignores judgments of 0', () => {
    expect(ndcgAt(['z', 'a'], rel([['z', 0], ['a', 1]]), 10)).toBeCloseTo(1 / Math.log2(3), 12);
  });
});

describe('recallAt', () => {
  it('is the share of relevant documents found in the top k', () => {
    const r = rel([['a', 1], ['b', 2], ['c', 1], ['z', 0]]);
    expect(recallAt(['a', 'x', 'b', 'c'], r, 2)).toBeCloseTo(1 / 3, 12);
    expect(recallAt(['a', 'x', 'b', 'c'], r, 4)).toBe(1);
    expect(recallAt(['z'], r, 10)).toBe(0);
    expect(recallAt(['a'], new Map(), 10)).toBe(0);
  });
});

describe('mrrAt', () => {
  it('is one over the rank of the first relevant hit within k', () => {
    const r = rel([['b', 1], ['c', 1]]);
    expect(mrrAt(['a', 'b', 'c'], r, 10)).toBe(0.5);
    expect(mrrAt(['c'], r, 10)).toBe(1);
    expect(mrrAt(['a', 'x', 'b'], r, 2)).toBe(0);
    expect(mrrAt(['a', 'x', 'y', 'b'], r, 10)).toBe(0.25);
  });
});

describe('percentile and bestPerDocument', () => {
  it('uses the nearest rank', () => {
    expect(percentile([5, 1, 4, 2, 3], 50)).toBe(3);
    expect(percentile([5, 1, 4, 2, 3], 100)).toBe(5);
    expect(percentile([5, 1, 4, 2, 3], 0)).toBe(1);
    expect(percentile([], 50)).toBe(0);
  });

  it('keeps each document at the rank of its best chunk', () => {
    const hits = [{ docs: ['d2'] }, { docs: ['d1', 'd2'] }, { docs: ['d3'] }, { docs: ['d1'] }];
    expect(bestPerDocument(hits, (h) => h.docs)).toEqual(['d2', 'd1', 'd3']);
  });
});
