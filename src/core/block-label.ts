import type { Block } from './types.ts';

/**
 * The location a citation names, in the Sources list and the Source dialog alike: the parser's label,
 * with the section for a PDF page when one is known ("page 4 · Security deposit").
 *
 * @example describeBlock({ label: 'page 4', page: 4, section: 'Security deposit' }) // → 'page 4 · Security deposit'
 */
export function describeBlock(block: Pick<Block, 'label' | 'page' | 'section'>): string {
  if (block.page !== undefined && block.section && !block.label.includes(block.section)) return `${block.label} · ${block.section}`;
  return block.label;
}

/** Labels that say where, not what: "page 4", "lines 3–10", "beginning" ({@link describeBlock}, the text parser). */
const LOCATION = /^(?:page \d+|lines? \d+(?:–\d+)?|beginning)$/u;

/**
 * The last heading of a passage's label, without the location parsers add ("20.5. Write Ahead Log ›
 * 20.5.1. Settings" → "20.5.1. Settings"; "page 4 · Deposit" → "Deposit"; "Rent (lines 3–10)" → "Rent";
 * "page 4" → '').
 */
export function headingOf(label: string): string {
  const last = (label.split(/ › | · /u).at(-1) ?? '').replace(/ \(lines? \d+(?:–\d+)?\)$/u, '').trim();
  return LOCATION.test(last) ? '' : last;
}
