/**
 * How every parser writes a table (HTML, DOCX through mammoth's HTML, Markdown, PDF): one row a paragraph,
 * its cells joined by {@link CELL_SEPARATOR}. The answer reads rows by it (`generate/answer-sentences.ts`);
 * a page's own text has no separator, so a quoted row is found on it without them.
 */
export const CELL_SEPARATOR = ' | ';

/** A row's text as the page shows it: cells side by side. */
export function withoutCellSeparators(text: string): string {
  return text.split(CELL_SEPARATOR).join(' ');
}

/**
 * Dot leaders (". . . ." or "...."): a line holding them is an entry of a table of contents, a list of
 * tables or an index ("1.21 Shell glob patterns . . . . . 27"), never a table's row (`ingest/pdf-lines.ts`)
 * nor a sentence an answer quotes (`generate/extractive-answer.ts`): it names a section and states nothing.
 */
export const DOT_LEADER = /(?:\.\s?){4,}/u;
