import type { CitedRange, TextRange } from '../core/types.ts';

/**
 * Where the cited sentences are in a block's stored text. A range that still holds its text is kept;
 * one that does not (the block was stored again since the answer) is looked up by its text, the nearest
 * occurrence winning, and dropped when the text is gone. Sorted; a range overlapping an earlier one is dropped.
 *
 * @example
 * locateMarks('Rent is due. Pay on time.', [{ start: 13, end: 25, text: 'Pay on time.' }])
 * // → [{ start: 13, end: 25 }]
 */
export function locateMarks(text: string, marks: readonly CitedRange[]): TextRange[] {
  const found: TextRange[] = [];
  for (const mark of marks) {
    if (!mark.text) continue;
    if (text.slice(mark.start, mark.end) === mark.text) {
      found.push({ start: mark.start, end: mark.end });
      continue;
    }
    let best = -1;
    for (let at = text.indexOf(mark.text); at >= 0; at = text.indexOf(mark.text, at + 1)) {
      if (best < 0 || Math.abs(at - mark.start) < Math.abs(best - mark.start)) best = at;
    }
    if (best >= 0) found.push({ start: best, end: best + mark.text.length });
  }
  found.sort((a, b) => a.start - b.start);
  return found.filter((m, i) => i === 0 || m.start >= found[i - 1]!.end);
}

/** A range clamped into a text of `length` characters; undefined when nothing of it is left. */
export function clampRange(range: TextRange | undefined, length: number): TextRange | undefined {
  if (!range) return undefined;
  const start = Math.max(0, Math.min(range.start, length));
  const end = Math.max(start, Math.min(range.end, length));
  return end > start ? { start, end } : undefined;
}
