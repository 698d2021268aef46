import { CELL_SEPARATOR } from '../core/table-cells.ts';
import type { CitedRange, TextRange } from '../core/types.ts';

/**
 * Where the cited sentences are in a block's stored text. A range that still holds its text is kept;
 * one that does not (the block was stored again since the answer) is looked up by its text, the nearest
 * occurrence winning, then by its words alone ({@link looseFind}: a document read again by a newer reader
 * may have split a table into rows), and dropped when the text is gone. Sorted; a range overlapping an earlier one is dropped.
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
    else {
      const loose = looseFind(text, mark.text);
      if (loose) found.push(loose);
    }
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

/**
 * Where `needle` is in `text` when spaces, line breaks and table cell separators are not counted: a
 * sentence quoted from a table run together ("Ctrl-Z temporarily stop … Ctrl-S halt output") is found in
 * the same table read as rows ("Ctrl-Z | temporarily stop …\n\nCtrl-S | halt output"). Linear in the text.
 */
export function looseFind(text: string, needle: string): TextRange | undefined {
  const squeeze = (s: string) => {
    const at: number[] = [];
    let out = '';
    for (let i = 0; i < s.length; i++) {
      if (s.startsWith(CELL_SEPARATOR, i)) i += CELL_SEPARATOR.length - 1;
      else if (!/\s/u.test(s[i]!)) {
        out += s[i];
        at.push(i);
      }
    }
    return { out, at };
  };
  const wanted = squeeze(needle).out;
  if (wanted.length < 8) return undefined;
  const { out, at } = squeeze(text);
  const i = out.indexOf(wanted);
  return i < 0 ? undefined : { start: at[i]!, end: at[i + wanted.length - 1]! + 1 };
}
