import type { Citation, SourceRequest, TextRange } from '../core/types.ts';

/** Pure helpers that name and open citations (no DOM: unit-tested in Node). */

/**
 * What the Source dialog opens for a citation: its quoted sentences (or, for a closest passage, its
 * marked best match, else the chunk the index hit), turned from window offsets into block offsets, with
 * the chunk as context.
 */
export function sourceRequestOf(c: Citation): SourceRequest {
  const p = c.passage;
  const ranges: TextRange[] = c.quotes.length ? c.quotes : c.marks.length ? c.marks : [{ start: p.hitStart, end: p.hitEnd }];
  return {
    docId: p.docId,
    block: p.block,
    marks: ranges.map((r) => ({ start: p.windowStart + r.start, end: p.windowStart + r.end, text: p.window.slice(r.start, r.end) })),
    context: { start: p.windowStart + p.hitStart, end: p.windowStart + p.hitEnd },
  };
}
