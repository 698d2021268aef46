/** A piece of a text layer item: characters `start` to `end` (exclusive) of item `item`. */
export interface ItemRange {
  item: number;
  start: number;
  end: number;
}

/**
 * Where `target` runs across a page's text items (pdf.js's text layer: one string per span), ignoring
 * whitespace, which the stored text has rejoined differently (line breaks, spaces between items), or any
 * character `ignore` matches (one character at a time). Returns the pieces of the first occurrence, one per
 * item it touches; none when the text is not on the page.
 *
 * @example
 * findInItems(['The landlord returns the', 'deposit within 14 days.'], 'returns the deposit')
 * // → [{ item: 0, start: 13, end: 24 }, { item: 1, start: 0, end: 7 }]
 */
export function findInItems(items: readonly string[], target: string, ignore: RegExp = /\s/u): ItemRange[] {
  const wanted = [...target].filter((c) => !ignore.test(c)).join('');
  if (!wanted) return [];
  let joined = '';
  const where: Array<[number, number]> = [];
  items.forEach((text, item) => {
    for (let i = 0; i < text.length; i++) {
      if (ignore.test(text[i]!)) continue;
      joined += text[i];
      where.push([item, i]);
    }
  });
  const at = joined.indexOf(wanted);
  if (at < 0) return [];
  const ranges: ItemRange[] = [];
  for (let k = at; k < at + wanted.length; k++) {
    const [item, i] = where[k]!;
    const last = ranges.at(-1);
    if (last?.item === item) last.end = i + 1;
    else ranges.push({ item, start: i, end: i + 1 });
  }
  return ranges;
}

/** Characters that are neither letters nor digits: cleaning rejoins "trim-" "med" and straightens quotes. */
const NOT_LETTER_OR_DIGIT = /[^\p{L}\p{N}]/u;

/**
 * The words a cited sentence covers among a page's recognised words (OCR), by their letters and digits
 * alone: the stored text was cleaned from the same words (hyphenated line breaks rejoined, quotes
 * straightened). Indices of the words of the first occurrence; none when the sentence is not on the page.
 *
 * @example
 * wordsOf(['Pets', 'are', 'al-', 'lowed.', 'The'], 'Pets are allowed.') // → [0, 1, 2, 3]
 */
export function wordsOf(words: readonly string[], quote: string): number[] {
  return findInItems(words, quote, NOT_LETTER_OR_DIGIT).map((r) => r.item);
}
