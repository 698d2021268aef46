/**
 * The leaf types a search filter is made of: which kind a document is, a date range and the filter
 * itself. Kept apart so that the document types, the answer types and the question's filter readers
 * can all use them without importing each other.
 */
import type { DocId } from './ids.ts';

export type DocType = 'pdf' | 'docx' | 'html' | 'markdown' | 'text' | 'image';

/** Which date a range restricts: when the document was added, or the date it carries. */
export type DateField = 'added' | 'dated';

/** A date range, `from` inclusive and `before` exclusive (ms since the epoch); either may be open. */
export interface DateRange {
  from?: number;
  before?: number;
}

export interface SearchFilter {
  docIds?: DocId[];
  folders?: string[];
  types?: DocType[];
  tags?: string[];
  /** Added to the library in this range. */
  added?: DateRange;
  /** The document's own date in this range (a document without one is left out). */
  dated?: DateRange;
}

