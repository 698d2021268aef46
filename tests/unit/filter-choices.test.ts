import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_SHOWN, narrowChoices, type Choice } from '../../src/ui/filter-choices.ts';

const docs = (n: number): Choice[] => Array.from({ length: n }, (_, i) => ({ value: `d${i}`, label: `matters/report ${i}.md` }));

describe('the document select of a library of thousands', () => {
  it('offers the first hundred documents, and says how many more there are', () => {
    const { shown, more, matching } = narrowChoices(docs(6_623), '');
    expect(shown.map((c) => c.value)).toEqual(docs(MAX_SHOWN).map((c) => c.value));
    expect(more).toBe(6_523);
    expect(matching).toBe(6_623);
  });

  it('offers the documents whose path or title holds what is typed, ignoring case', () => {
    const choices = [...docs(300), { value: 'lease', label: 'contracts/Lease 2024.pdf' }, { value: 'titled', label: 'scan-0042.pdf', title: 'Residential LEASE agreement' }];
    expect(narrowChoices(choices, '  lEaSe ').shown.map((c) => c.value)).toEqual(['lease', 'titled']);
    expect(narrowChoices(choices, 'report 29').shown.map((c) => c.label)).toEqual(['matters/report 29.md', ...Array.from({ length: 10 }, (_, i) => `matters/report ${290 + i}.md`)]);
    expect(narrowChoices(choices, 'no such name')).toEqual({ shown: [], more: 0, matching: 0 });
  });

  it('keeps the chosen document among the options, whatever is typed', () => {
    const { shown, more } = narrowChoices(docs(500), 'report 1', 'd450');
    expect(shown[0]!.value).toBe('d450');
    expect(shown).toHaveLength(MAX_SHOWN + 1);
    expect(more).toBe(111 - MAX_SHOWN);
  });

  it('never shows a document that does not match (but the chosen one), nor more than the limit, and counts the rest', () => {
    const choice = fc.record({ value: fc.string({ minLength: 1, maxLength: 4 }), label: fc.string({ maxLength: 12 }), title: fc.option(fc.string({ maxLength: 12 }), { nil: undefined }) });
    fc.assert(
      fc.property(fc.uniqueArray(choice, { selector: (c) => c.value, maxLength: 40 }), fc.string({ maxLength: 3 }), fc.nat(45), fc.integer({ min: 1, max: 10 }), (choices, query, pickedAt, limit) => {
        const picked = choices[pickedAt]?.value ?? '';
        const q = query.trim().toLocaleLowerCase();
        const matches = (c: Choice) => c.label.toLocaleLowerCase().includes(q) || Boolean(c.title?.toLocaleLowerCase().includes(q));
        const { shown, more, matching } = narrowChoices(choices, query, picked, limit);
        const others = shown.filter((c) => c.value !== picked);
        expect(others.every(matches)).toBe(true);
        expect(others.length).toBeLessThanOrEqual(limit);
        expect(matching).toBe(choices.filter(matches).length);
        expect(more).toBe(matching - shown.filter(matches).length);
        if (picked) expect(shown.some((c) => c.value === picked)).toBe(true);
        expect(new Set(shown.map((c) => c.value)).size).toBe(shown.length);
      }),
    );
  });
});
