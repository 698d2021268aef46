import { CELL_SEPARATOR } from '../core/table-cells.ts';

/**
 * Tables of contents: a passage that lists a document's sections ("6.2.1. Which other codenames have been
 * used in the past?", "2.3 Installation ........ 14") holds every heading's words and so wins keyword
 * searches, but states nothing a question can be answered by. Retrieval puts such passages after the
 * others (`retrievePassages`).
 */

/** A section number opening a line: "6.2.1.", "12 ", "A.3 ", "IV. " before a title. */
const SECTION_NUMBER = /^(?:\p{Nd}+(?:\.\p{Nd}+)*\.?|[A-Z](?:\.\p{Nd}+)+\.?|[IVXLC]+\.)\s+\S/u;
/** A number of two levels or more ("6.2", "A.3"): numbered steps of a procedure have one. */
const NESTED_NUMBER = /^(?:\p{Nd}+|[A-Z])\.\p{Nd}+/u;
const DIGIT = /\p{Nd}/u;

/**
 * Whether a line ends with a page number after dot leaders or a wide gap ("Installation ........ 14",
 * "Index   231"). Read from the end by hand: a regular expression for it backtracks polynomially on long
 * runs of spaces.
 */
function endsWithPage(line: string): boolean {
  let i = line.length;
  while (i > 0 && DIGIT.test(line[i - 1]!)) i--;
  if (i === line.length || i === 0) return false;
  const head = line.slice(0, i);
  const text = head.trimEnd();
  return head.length - text.length >= 3 || text.endsWith('...') || text.endsWith('…');
}
/** Lines needed before a window can read as a table of contents. */
const MIN_ENTRIES = 4;
/** Share of the window's lines that must be entries. */
const ENTRY_SHARE = 0.6;

/**
 * A contents entry read as a table row (`pdf-lines.ts` reads a contents page without dot leaders as rows):
 * a title with letters, then its page number alone in the last cell ("20 Policy changes process | 137").
 */
function rowPage(line: string): number | undefined {
  const at = line.lastIndexOf(CELL_SEPARATOR);
  if (at <= 0 || !/\p{L}/u.test(line.slice(0, at))) return undefined;
  const page = line.slice(at + CELL_SEPARATOR.length);
  return /^\p{Nd}{1,5}$/u.test(page) ? Number(page) : undefined;
}

/** Whether a line reads as an entry of a table of contents: a numbered title (no sentence's full stop) or a title with its page. */
function isEntry(line: string): 'nested' | 'flat' | 'page' | undefined {
  if (endsWithPage(line)) return 'page';
  if (!SECTION_NUMBER.test(line) || /[.;:,]$/u.test(line)) return undefined;
  return NESTED_NUMBER.test(line) ? 'nested' : 'flat';
}

/**
 * Whether a passage's text is a table of contents: at least {@link MIN_ENTRIES} non-blank lines, most of
 * them ({@link ENTRY_SHARE}) numbered titles or titles with page numbers, and at least half of those
 * numbered in two levels or more or carrying pages. Numbered steps ("1. Open Settings.", "2. Choose
 * Privacy") end like sentences or are numbered in one level, so a procedure never reads as one.
 *
 * @example
 * readsAsContents('6.1. How many Debian distributions are there?\n6.2. What are all those names?\n6.2.1. Which other codenames…?\n6.3. What about "sid"?') // → true
 */
export function readsAsContents(text: string): boolean {
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean);
  if (lines.length < MIN_ENTRIES) return false;
  // Rows ending in a number are a contents page's entries only when those numbers never go down, as pages
  // do (a table of settings and their values, "port | 5432", "work_mem | 4", is not one).
  const pages = lines.map(rowPage);
  const numbers = pages.filter((n) => n !== undefined);
  const ascending = numbers.length >= MIN_ENTRIES && numbers.every((n, i) => i === 0 || n >= numbers[i - 1]!);
  const entries = lines.map((line, i) => (ascending && pages[i] !== undefined ? 'page' : isEntry(line))).filter((e) => e !== undefined);
  if (entries.length < ENTRY_SHARE * lines.length) return false;
  return entries.filter((e) => e !== 'flat').length * 2 >= entries.length;
}
