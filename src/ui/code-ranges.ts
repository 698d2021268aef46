import type { TextRange } from '../core/types.ts';

/** A stretch of a text, code or not. */
export interface Segment extends TextRange {
  code: boolean;
}

/**
 * A text of `length` characters cut at its code ranges (sorted or not, overlapping or out of bounds
 * tolerated): the stretches in order, each code or not, together covering the whole text. Pure.
 *
 * @example segments(10, [{ start: 2, end: 5 }]) // → [0-2 text, 2-5 code, 5-10 text]
 */
export function segments(length: number, code: readonly TextRange[] | undefined): Segment[] {
  const out: Segment[] = [];
  let at = 0;
  for (const r of [...(code ?? [])].sort((a, b) => a.start - b.start)) {
    const start = Math.max(at, Math.min(r.start, length));
    const end = Math.min(length, r.end);
    if (end <= start) continue;
    if (start > at) out.push({ start: at, end: start, code: false });
    out.push({ start, end, code: true });
    at = end;
  }
  if (at < length || !out.length) out.push({ start: at, end: length, code: false });
  return out;
}
