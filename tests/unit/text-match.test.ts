import { describe, expect, it } from 'vitest';
import { findInItems, wordsOf } from '../../src/ui/text-match.ts';
import { markRects } from '../../src/ui/word-marks.tsx';

describe('findInItems (the cited sentence in a PDF text layer)', () => {
  it('finds a sentence across items, whatever the spacing, as one piece per item', () => {
    const items = ['The tenant pays the rent.', '', 'The landlord returns the security deposit', ' ', 'within fourteen  days.'];
    const ranges = findInItems(items, 'The landlord returns the security deposit within fourteen days.');
    expect(ranges).toEqual([
      { item: 2, start: 0, end: items[2]!.length },
      { item: 4, start: 0, end: items[4]!.length },
    ]);
    expect(findInItems(['The landlord returns the', 'deposit within 14 days.'], 'returns the deposit')).toEqual([
      { item: 0, start: 13, end: 24 },
      { item: 1, start: 0, end: 7 },
    ]);
  });

  it('finds nothing for text that is not on the page, or no text', () => {
    expect(findInItems(['The tenant pays the rent.'], 'The landlord repairs the roof.')).toEqual([]);
    expect(findInItems(['The tenant pays the rent.'], '  ')).toEqual([]);
  });
});

describe('the cited sentence among words read by OCR, and its marks on the page', () => {
  const line = (y: number, ...texts: string[]) => texts.map((text, i) => ({ text, box: [0.1 + i * 0.1, y, 0.18 + i * 0.1, y + 0.02] as [number, number, number, number] }));
  const words = [...line(0.1, 'Rent', 'is', 'due.', 'Pets', 'are', 'al-'), ...line(0.13, 'lowed', 'with', '“consent”.', 'The')];

  it('finds the words by their letters and digits: hyphens rejoined and quotes straightened by cleaning do not matter', () => {
    expect(wordsOf(words.map((w) => w.text), 'Pets are allowed with "consent".')).toEqual([3, 4, 5, 6, 7, 8]);
    expect(wordsOf(words.map((w) => w.text), 'The landlord')).toEqual([]);
  });

  it('joins the marked words of a line into one rectangle, a line at a time', () => {
    const rounded = markRects(words, ['Pets are allowed with "consent".']).map((r) => r.map((x) => Math.round(x * 100) / 100));
    expect(rounded).toEqual([
      [0.4, 0.1, 0.68, 0.12],
      [0.1, 0.13, 0.38, 0.15],
    ]);
    expect(markRects(words, ['Nothing here.'])).toEqual([]);
  });

  it('joins a line read from a page scanned upside down (right to left) or sideways (down the page)', () => {
    const upsideDown = ['Pets', 'are', 'allowed.'].map((text, i) => ({ text, box: [0.8 - i * 0.1, 0.9, 0.88 - i * 0.1, 0.92] as [number, number, number, number] }));
    expect(markRects(upsideDown, ['Pets are allowed.']).map((r) => r.map((x) => Math.round(x * 100) / 100))).toEqual([[0.6, 0.9, 0.88, 0.92]]);
    const sideways = ['Pets', 'are', 'allowed.'].map((text, i) => ({ text, box: [0.9, 0.1 + i * 0.1, 0.92, 0.18 + i * 0.1] as [number, number, number, number] }));
    expect(markRects(sideways, ['Pets are allowed.']).map((r) => r.map((x) => Math.round(x * 100) / 100))).toEqual([[0.9, 0.1, 0.92, 0.38]]);
  });
});
