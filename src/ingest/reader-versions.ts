import type { DocType } from '../core/filter-types.ts';
import type { DocRecord } from '../core/types.ts';
import { pageCount } from '../core/page-ranges.ts';

/**
 * Which version of each reader reads files now. A reader's version goes up when a change to it gives better
 * text from the same file (not for a fix that only refuses or speeds up): a document stored by an older
 * version keeps its old text until it is read again, which the Library offers for documents whose
 * original file was kept ({@link readAgainWorthwhile}).
 */
export interface ReaderVersion {
  version: number;
  /** What the newest version does that those before did not, as the offer says it ("…stored before this app could read tables in PDFs row by row"). */
  better?: string;
}

export const READERS: Readonly<Record<DocType, ReaderVersion>> = {
  // 2: tables read as rows of cells (`pdf-lines.ts`), where version 1 ran a table's cells together as one paragraph.
  pdf: { version: 2, better: 'read tables in PDFs row by row' },
  docx: { version: 1 },
  html: { version: 1 },
  markdown: { version: 1 },
  text: { version: 1 },
  image: { version: 1 },
};

/** The version of its type's reader that read a stored document (1 for documents stored before versions were kept). */
export function readerOf(doc: Pick<DocRecord, 'reader'>): number {
  return doc.reader ?? 1;
}

/**
 * Whether reading a stored document again would give better text: its type's reader is newer than the one
 * that read it, and it has pages the reader reads (a PDF every page of which was recognised by OCR reads
 * the same again, only slower).
 */
export function readAgainWorthwhile(doc: Pick<DocRecord, 'type' | 'reader' | 'pages' | 'recognisedPages'>): boolean {
  if (readerOf(doc) >= READERS[doc.type].version) return false;
  return !(doc.pages && doc.recognisedPages && pageCount(doc.recognisedPages) >= doc.pages);
}
