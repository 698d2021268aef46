import { describe, expect, it } from 'vitest';
import { bestSupport, checkCitations, parseCitedSentences, weightedTerms } from '../../src/generate/citations.ts';
import type { ContextPassage } from '../../src/generate/context.ts';
import { makePassage } from '../support/passages.ts';

const LEASE = 'The flat has two rooms. The tenant pays the rent on the first day of each month. The landlord repairs the heating.';
const PETS = 'Cats and small dogs are allowed. Other pets need the written consent of the landlord.';

function ctx(n: number, window: string, kept = [{ start: 0, end: window.length }]): ContextPassage {
  return { n, passage: makePassage(window, { docName: `d${n}.md` }), kept, text: kept.map((r) => window.slice(r.start, r.end)).join(' … '), merged: 1 };
}
const passages = [ctx(1, LEASE), ctx(2, PETS)];
const slice = (window: string, r: { start: number; end: number }) => window.slice(r.start, r.end);

describe('parseCitedSentences', () => {
  it('reads [n], [1, 2], [1; 3], [2-4], [1][3] and [Passage 2] per sentence, taking the marks out', () => {
    expect(parseCitedSentences('Rent is due monthly [1]. Pets need consent [1, 2]. Heating [1][3] is repaired. Cats [2-4]. Dogs [Passage 2]; birds [1; 3].')).toEqual([
      { text: 'Rent is due monthly.', cites: [1] },
      { text: 'Pets need consent.', cites: [1, 2] },
      { text: 'Heating is repaired.', cites: [1, 3] },
      { text: 'Cats.', cites: [2, 3, 4] },
      { text: 'Dogs; birds.', cites: [2, 1, 3] },
    ]);
  });

  it('gives a mark written after the full stop to the sentence before, and one leading the answer to the first', () => {
    expect(parseCitedSentences('[2] Rent is due monthly. [1]\nThe deposit is €500.[3]')).toEqual([
      { text: 'Rent is due monthly.', cites: [2, 1] },
      { text: 'The deposit is €500.', cites: [3] },
    ]);
  });
});

describe('checkCitations', () => {
  it('keeps a supported citation and names the supporting sentence of the passage', () => {
    const [s] = checkCitations('The tenant pays the rent on the first day of the month [1].', passages);
    expect(s!.unsupported).toBe(false);
    expect(s!.removed).toEqual([]);
    expect(s!.support.map((x) => x.n)).toEqual([1]);
    expect(slice(LEASE, s!.support[0]!.quote)).toBe('The tenant pays the rent on the first day of each month.');
  });

  it('removes and reports a citation of a passage that was not given, and marks the sentence unsupported', () => {
    const [s] = checkCitations('The tenant pays the rent monthly [9].', passages, { attributeAt: 2 });
    expect(s!.support).toEqual([]);
    expect(s!.removed).toEqual([{ n: 9, reason: 'no-such-passage', sentence: 'The tenant pays the rent monthly.' }]);
    expect(s!.unsupported).toBe(true);
  });

  it('cites the passage that states a sentence left without a citation that holds (attributed), and only one that states most of it', () => {
    const [wrong, none, little, fragment] = checkCitations('The tenant pays the rent monthly [9]. The tenant pays the rent on the first day. The tenant keeps a parrot in the garden shed. Other pets', passages);
    // The model's [9] named no passage: it stays reported, and the passage that says it is cited instead.
    expect(wrong).toMatchObject({ removed: [{ n: 9, reason: 'no-such-passage' }], support: [{ n: 1, attributed: true }], unsupported: false });
    expect(passages[0]!.passage.window.slice(wrong!.support[0]!.quote.start, wrong!.support[0]!.quote.end)).toContain('first day of each month');
    expect(none).toMatchObject({ support: [{ n: 1, attributed: true }], removed: [], unsupported: false });
    // Under the threshold: marked, not cited.
    expect(little).toMatchObject({ support: [], unsupported: true });
    // Too few words to tell which passage says it.
    expect(fragment).toMatchObject({ support: [], unsupported: true });
  });

  it('removes a citation of a passage that does not say it, and marks a sentence without citations', () => {
    const [a, b, c] = checkCitations('Parking costs 40 euros a month in the garage [2]. The building has a lift. It is.', passages);
    expect(a!.removed).toEqual([{ n: 2, reason: 'not-supported', sentence: 'Parking costs 40 euros a month in the garage.' }]);
    expect(a!.unsupported).toBe(true);
    expect(b).toMatchObject({ support: [], removed: [], unsupported: true });
    // No content terms, no citation: nothing to check, nothing marked.
    expect(c).toMatchObject({ text: 'It is.', support: [], unsupported: false });
  });

  it('keeps the one of two citations that supports the sentence and removes the other', () => {
    const [s] = checkCitations('Other pets need the written consent of the landlord [1][2].', passages);
    expect(s!.support.map((x) => x.n)).toEqual([2]);
    expect(slice(PETS, s!.support[0]!.quote)).toBe('Other pets need the written consent of the landlord.');
    expect(s!.removed.map((r) => [r.n, r.reason])).toEqual([[1, 'not-supported']]);
    expect(s!.unsupported).toBe(false);
  });

  it('accepts a sentence joining two adjacent passage sentences, quoting both', () => {
    const [s] = checkCitations('Cats and small dogs are allowed, other pets need the landlord\'s written consent [2].', passages);
    expect(s!.support).toHaveLength(1);
    expect(s!.support[0]!.share).toBe(1);
    expect(slice(PETS, s!.support[0]!.quote)).toBe(PETS);
  });

  it('reads only the kept text of a passage, and never joins sentences across an omission', () => {
    const kept = [ctx(1, LEASE, [{ start: 0, end: 23 }, { start: 81, end: LEASE.length }])];
    expect(checkCitations('The tenant pays the rent on the first day of each month [1].', kept)[0]!.unsupported).toBe(true);
    const [s] = checkCitations('The landlord repairs the heating [1].', kept);
    expect(slice(LEASE, s!.support[0]!.quote)).toBe('The landlord repairs the heating.');
  });

  it('weighs terms by IDF with statistics: sharing only common words is not support', () => {
    const stats = { documentCount: 1000, documentFrequency: (t: string) => (['landlord', 'tenant', 'rent', 'flat'].includes(t) ? 900 : 2) };
    const sentence = 'The landlord charges the tenant a rent surcharge for the flat [1].';
    expect(checkCitations(sentence, passages)[0]!.support).toHaveLength(1); // 4 of 6 terms, unweighted
    expect(checkCitations(sentence, passages, { stats })[0]!.unsupported).toBe(true);
    expect(checkCitations(sentence, passages, { minSupport: 0.9 })[0]!.unsupported).toBe(true);
  });
});

describe('bestSupport', () => {
  it('prefers one sentence over two when it holds as much', () => {
    const terms = weightedTerms('rent month');
    expect(bestSupport(terms, [new Set(['rent', 'month']), new Set(['rent'])])).toEqual({ share: 1, from: 0, to: 1 });
    expect(bestSupport(terms, [new Set(['rent']), new Set(['month'])])).toEqual({ share: 1, from: 0, to: 2 });
    expect(bestSupport(terms, [])).toEqual({ share: 0, from: 0, to: 0 });
  });
});
