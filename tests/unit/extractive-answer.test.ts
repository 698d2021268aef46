import { describe, expect, it } from 'vitest';
import { asChunkId, asDocId } from '../../src/core/ids.ts';
import type { Passage } from '../../src/core/types.ts';
import { buildExtractiveAnswer } from '../../src/generate/extractive-answer.ts';

function passage(window: string, hit: string, docName = 'lease.md', label = 'Payment'): Passage {
  const hitStart = window.indexOf(hit);
  return {
    chunkId: asChunkId(`c-${docName}-${hitStart}`),
    score: 1,
    docId: asDocId(`d-${docName}`),
    docName,
    docPath: docName,
    docType: 'markdown',
    block: 0,
    label,
    window,
    windowStart: 0,
    hitStart,
    hitEnd: hitStart + hit.length,
  };
}

const LEASE = 'The flat has two rooms. The tenant pays the rent on the first day of each month. The landlord repairs the heating.';

describe('buildExtractiveAnswer', () => {
  it('quotes and marks the sentence that best matches the question', () => {
    const p = passage(LEASE, LEASE);
    const answer = buildExtractiveAnswer('When is the rent paid?', [p], { marksPerPassage: 1 });
    expect(answer.question).toBe('When is the rent paid?');
    expect(answer.segments).toEqual([{ text: 'The tenant pays the rent on the first day of each month.', cite: 1 }]);
    const [mark] = answer.citations[0]!.marks;
    expect(LEASE.slice(mark!.start, mark!.end)).toBe('The tenant pays the rent on the first day of each month.');
  });

  it('gives one citation per passage, numbered from 1 in passage order, each segment citing its own passage', () => {
    const ps = [passage(LEASE, LEASE), passage('Heating repairs take ten days. Rent is not reduced meanwhile.', 'Rent is not reduced meanwhile.', 'rules.md', 'Repairs'), passage('The rent is indexed each year.', 'The rent is indexed each year.', 'annex.md', 'Annex')];
    const answer = buildExtractiveAnswer('rent', ps);
    expect(answer.citations.map((c) => c.n)).toEqual([1, 2, 3]);
    expect(answer.citations.map((c) => c.passage)).toEqual(ps);
    expect(answer.segments.map((s) => s.cite)).toEqual([1, 2, 3]);
    expect(answer.segments[1]!.text).toBe('Rent is not reduced meanwhile.');
  });

  it('marks at most marksPerPassage sentences, in text order', () => {
    const window = 'Rent is due monthly. Pets are allowed. The rent includes heating. Rent rises yearly.';
    const answer = buildExtractiveAnswer('rent', [passage(window, window)], { marksPerPassage: 2 });
    const marks = answer.citations[0]!.marks;
    expect(marks).toHaveLength(2);
    expect(marks[0]!.start).toBeLessThan(marks[1]!.start);
    for (const m of marks) expect(window.slice(m.start, m.end).toLowerCase()).toContain('rent');
  });

  it('prefers the sentence inside the hit when two match equally', () => {
    const window = 'The rent is paid monthly. Something else entirely. The rent is paid monthly too.';
    const hit = 'The rent is paid monthly too.';
    const answer = buildExtractiveAnswer('rent paid', [passage(window, hit)], { marksPerPassage: 1 });
    expect(answer.segments[0]!.text).toBe(hit);
  });

  it('falls back to the hit itself when no sentence shares a word with the question', () => {
    const window = 'Alpha beta gamma. Delta epsilon.';
    const answer = buildExtractiveAnswer('zebra', [passage(window, 'Delta epsilon.')]);
    expect(answer.segments).toEqual([{ text: 'Delta epsilon.', cite: 1 }]);
    expect(answer.citations[0]!.marks).toEqual([{ start: window.indexOf('Delta'), end: window.length }]);
  });

  it('quotes and marks whole sentences across decimals, versions and abbreviations', () => {
    const window = 'She started in 2019. The pay was raised to €8.65 an hour, e.g. for night shifts. Fig. 2 shows the rise. '
      + 'Connections use TLS 1.3 whenever the server offers it. Dr. Smith checked v2.10.1 of the client.';
    const pay = buildExtractiveAnswer('What is the hourly pay?', [passage(window, window)], { marksPerPassage: 1 });
    expect(pay.segments[0]!.text).toBe('The pay was raised to €8.65 an hour, e.g. for night shifts.');
    const tls = buildExtractiveAnswer('Which TLS version do connections use?', [passage(window, window)], { marksPerPassage: 1 });
    expect(tls.segments[0]!.text).toBe('Connections use TLS 1.3 whenever the server offers it.');
    const [mark] = tls.citations[0]!.marks;
    expect(window.slice(mark!.start, mark!.end)).toBe('Connections use TLS 1.3 whenever the server offers it.');
    const smith = buildExtractiveAnswer('Who checked the client?', [passage(window, window)], { marksPerPassage: 1 });
    expect(smith.segments[0]!.text).toBe('Dr. Smith checked v2.10.1 of the client.');
  });

  it('returns an empty answer for no passages', () => {
    expect(buildExtractiveAnswer('anything', [])).toEqual({ question: 'anything', segments: [], citations: [] });
  });
});
