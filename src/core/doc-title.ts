import type { DocRecord } from './types.ts';

/**
 * The title indexed as the header line of every chunk of a document: a real title (from metadata or a
 * heading), never the file name standing in for a missing one. Documents stored before titles had a
 * source keep their title as header, unless it is their file name.
 *
 * @example headerTitleOf({ name: 'a.pdf', title: 'a.pdf', titleSource: 'file-name' }) // → ''
 */
export function headerTitleOf(doc: Pick<DocRecord, 'name' | 'title' | 'titleSource'>): string {
  if (doc.titleSource) return doc.titleSource === 'file-name' ? '' : doc.title;
  return doc.title === doc.name ? '' : doc.title;
}

/**
 * A chunk as the search reads it: its document's header title (`headerTitleOf`, '' for none), a blank
 * line, then its text. BM25 indexes it and the embedding model embeds it, so a passage that never names
 * its subject ("The default is 4MB.") is still found by the title that does. Embedding the title as well
 * raised bge-small-en-v1.5's dense nDCG@10 on SciFact test from 0.6909 to 0.7093 (published 0.7127,
 * which embeds title and text too; docs/decisions/0003-real-models.md).
 *
 * @example headedText('Lease', 'The rent is due.') // → 'Lease\n\nThe rent is due.'
 */
export function headedText(title: string, text: string): string {
  return title ? `${title}\n\n${text}` : text;
}
