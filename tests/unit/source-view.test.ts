import { describe, expect, it } from 'vitest';
import { describeBlock } from '../../src/core/block-label.ts';
import { asChunkId, asDocId } from '../../src/core/ids.ts';
import type { Citation, Passage } from '../../src/core/types.ts';
import { buildExtractiveAnswer } from '../../src/generate/extractive-answer.ts';
import { clampRange, locateMarks } from '../../src/library/source-view.ts';
import { distinguishCitations, sourceRequestOf } from '../../src/ui/citation-names.ts';

/** A passage cut out of `block` at `windowStart`, the index's hit being `hit`. */
function passage(block: string, windowStart: number, windowEnd: number, hit: string, label = 'page 2', docName = 'lease.pdf'): Passage {
  const window = block.slice(windowStart, windowEnd);
  const hitStart = window.indexOf(hit);
  return {
    chunkId: asChunkId(`c-${docName}-${windowStart}`),
    score: 1,
    docId: asDocId(`d-${docName}`),
    docName,
    docPath: `contracts/${docName}`,
    docType: 'pdf',
    block: 1,
    label,
    window,
    windowStart,
    hitStart,
    hitEnd: hitStart + hit.length,
    ranks: [],
    why: '',
  };
}

const FILLER = Array.from({ length: 30 }, (_, i) => `Paragraph ${i} describes the common areas of the building in detail.`).join('\n\n');
const BLOCK = `${FILLER}\n\nThe landlord returns the security deposit within fourteen days of the end of the lease. Keys are handed over at the final inspection.`;

describe('the Source dialog marks exactly the quoted sentences', () => {
  it('turns a citation into block ranges holding the quoted sentence, whatever the window offset', () => {
    const start = BLOCK.indexOf('Paragraph 25');
    const p = passage(BLOCK, start, BLOCK.length, 'The landlord returns');
    const answer = buildExtractiveAnswer('When is the security deposit returned?', [p]);
    const request = sourceRequestOf(answer.citations[0]!);
    expect(request.marks.map((m) => BLOCK.slice(m.start, m.end))).toEqual(['The landlord returns the security deposit within fourteen days of the end of the lease.']);
    expect(request.marks.map((m) => m.text)).toEqual(request.marks.map((m) => BLOCK.slice(m.start, m.end)));
    expect(locateMarks(BLOCK, request.marks)).toEqual(request.marks.map(({ start, end }) => ({ start, end })));
    expect(BLOCK.slice(request.context!.start, request.context!.end)).toContain('The landlord returns');
  });

  it('finds a quoted sentence by its text when the block moved under it, nearest first, and drops one that is gone', () => {
    const text = 'Keys. Rent is due. Other. Rent is due.';
    expect(locateMarks(text, [{ start: 30, end: 42, text: 'Rent is due.' }])).toEqual([{ start: 26, end: 38 }]);
    expect(locateMarks(text, [{ start: 2, end: 14, text: 'Rent is due.' }])).toEqual([{ start: 6, end: 18 }]);
    expect(locateMarks(text, [{ start: 6, end: 18, text: 'Rent is late.' }])).toEqual([]);
    // Sorted, and never overlapping.
    expect(locateMarks(text, [{ start: 26, end: 38, text: 'Rent is due.' }, { start: 0, end: 5, text: 'Keys.' }, { start: 0, end: 18, text: 'Keys. Rent is due.' }])).toEqual([
      { start: 0, end: 5 },
      { start: 26, end: 38 },
    ]);
  });

  it('finds a quote from a table run together in the same table read again as rows (and the other way round)', () => {
    const rows = 'Keys.\n\nCtrl-Z | stop the program\n\nCtrl-S | halt output to screen\n\nMore text.';
    const quote = 'Ctrl-Z stop the program Ctrl-S halt output to screen';
    const [mark] = locateMarks(rows, [{ start: 0, end: quote.length, text: quote }]);
    expect(rows.slice(mark!.start, mark!.end)).toBe('Ctrl-Z | stop the program\n\nCtrl-S | halt output to screen');
    const runTogether = 'Keys. Ctrl-Z stop the program Ctrl-S halt output to screen More text.';
    const [back] = locateMarks(runTogether, [{ start: 0, end: 25, text: 'Ctrl-Z | stop the program' }]);
    expect(runTogether.slice(back!.start, back!.end)).toBe('Ctrl-Z stop the program');
    // Other words are still not found.
    expect(locateMarks(rows, [{ start: 0, end: 20, text: 'Ctrl-Z | resume the program' }])).toEqual([]);
  });

  it('clamps the tinted chunk into the text', () => {
    expect(clampRange({ start: 5, end: 50 }, 20)).toEqual({ start: 5, end: 20 });
    expect(clampRange({ start: 30, end: 50 }, 20)).toBeUndefined();
    expect(clampRange(undefined, 20)).toBeUndefined();
  });

  it('names a PDF page with its section when one is known, and other blocks by their label', () => {
    expect(describeBlock({ label: 'page 4', page: 4, section: 'Security deposit' })).toBe('page 4 · Security deposit');
    expect(describeBlock({ label: 'page 4', page: 4 })).toBe('page 4');
    expect(describeBlock({ label: 'Lease › Payment', section: 'Lease › Payment' })).toBe('Lease › Payment');
    expect(describeBlock({ label: 'lines 12–40' })).toBe('lines 12–40');
  });
});

describe('Sources tell apart two passages of one location', () => {
  const cite = (p: Passage, quote: string, n: number): Citation => {
    const start = p.window.indexOf(quote);
    return { n, passage: p, quotes: [{ start, end: start + quote.length }], marks: [{ start, end: start + quote.length }] };
  };
  const early = passage(BLOCK, 0, 400, 'Paragraph 0');
  const late = passage(BLOCK, BLOCK.indexOf('Paragraph 28'), BLOCK.length, 'The landlord');
  const other = passage('Rent is due on the first day of each month.', 0, 43, 'Rent', 'page 1');

  it('adds the first words of each quote only where document and location repeat', () => {
    const names = distinguishCitations([
      cite(early, 'Paragraph 3 describes the common areas of the building in detail.', 1),
      cite(late, 'The landlord returns the security deposit within fourteen days of the end of the lease.', 2),
      cite(other, 'Rent is due on the first day of each month.', 3),
    ]);
    expect(names).toEqual(['“Paragraph 3 describes the…”', '“The landlord returns the…”', undefined]);
  });

  it('uses as many words as it takes for quotes that start alike', () => {
    const names = distinguishCitations([
      cite(early, 'Paragraph 1 describes the common areas of the building in detail.', 1),
      cite(late, 'Paragraph 29 describes the common areas of the building in detail.', 2),
    ]);
    expect(names).toEqual(['“Paragraph 1 describes the…”', '“Paragraph 29 describes the…”']);
    const page = 'Paragraph 1 describes the common areas.\n\nParagraph 1 describes the kitchen.';
    const [a, b] = [passage(page, 0, 40, 'Paragraph'), passage(page, 41, page.length, 'Paragraph')];
    const alike = distinguishCitations([cite(a, 'Paragraph 1 describes the common areas.', 1), cite(b, 'Paragraph 1 describes the kitchen.', 2)]);
    expect(alike).toEqual(['“Paragraph 1 describes the common…”', '“Paragraph 1 describes the kitchen.”']);
  });
});
