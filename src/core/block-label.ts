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
