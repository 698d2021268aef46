import type { DocType } from '../core/filter-types.ts';
import type { DocRecord } from '../core/types.ts';
import { pageCount } from '../core/page-ranges.ts';
import { ocrLanguageName } from './ocr/ocr-languages.ts';

/**
 * Which version of each reader reads files now. A reader's version goes up when a change to it gives better
 * text from the same file (not for a fix that only refuses or speeds up): a document stored by an older
 * version keeps its old text until it is read again, which the Library offers for documents whose
 * original file was kept ({@link readingAgainGives}).
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
 * What reading a stored document again would give, as the Library's offer says it: its type's reader is
 * newer than the one that read it ("read tables in PDFs row by row"), and it has pages that reader reads (a
 * PDF every page of which was recognised by OCR reads the same again, only slower); or its scanned pages
 * were read before a language OCR reads now was added ("read French in scans"). Undefined: nothing.
 * `ocrLanguages`: the languages the person added for OCR (English is always read).
 */
export function readingAgainGives(doc: Pick<DocRecord, 'type' | 'reader' | 'pages' | 'recognisedPages' | 'ocrLanguages'>, ocrLanguages: readonly string[] = []): string | undefined {
  const allRecognised = !!(doc.pages && doc.recognisedPages && pageCount(doc.recognisedPages) >= doc.pages);
  if (readerOf(doc) < READERS[doc.type].version && !allRecognised) return READERS[doc.type].better ?? 'read them better';
  if (!doc.recognisedPages) return undefined;
  // Read before the languages were kept: in English alone, the only language there was.
  const read = doc.ocrLanguages ?? ['eng'];
  const missing = ocrLanguages.filter((code) => !read.includes(code));
  return missing.length ? `read ${listed(missing.map(ocrLanguageName))} in scans` : undefined;
}

/** "French", "French and German", "French, German and Spanish". */
function listed(names: readonly string[]): string {
  return names.length < 2 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}
