import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { topK } from '../../src/index/top-k.ts';

describe('topK', () => {
  it('equals sorting everything and keeping the first k', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ id: fc.string({ maxLength: 3 }), score: fc.integer({ min: 0, max: 20 }) })), fc.integer({ min: 0, max: 30 }), (items, k) => {
        const compare = (a: { id: string; score: number }, b: { id: string; score: number }) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
        expect(topK(items, k, compare)).toEqual([...items].sort(compare).slice(0, k));
      }),
    );
  });
});
