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
