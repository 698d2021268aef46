import { describe, expect, it } from 'vitest';
import { ordinal, whyInWords } from '../../src/ui/why-words.ts';

describe('"Why this passage" in words', () => {
  it('names ordinals as people write them', () => {
    expect([1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 102, 111].map(ordinal)).toEqual(['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '22nd', '23rd', '101st', '102nd', '111th']);
  });

  it('says where each search and the reranker put the passage, words before meaning', () => {
    const ranks = [
      { name: 'Dense', rank: 2, score: 0.81 },
      { name: 'BM25', rank: 1, score: 12.4 },
    ];
    expect(whyInWords({ ranks, rerank: { rank: 1, score: 7.2 } })).toBe('matches your words: 1st · similar meaning: 2nd · checked by the reranker: 1st');
    expect(whyInWords({ ranks: [{ name: 'Dense', rank: 3, score: 0.7 }] })).toBe('similar meaning: 3rd');
    expect(whyInWords({ ranks: [] })).toBe('');
  });
});
