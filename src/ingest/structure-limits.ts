import { DocQaError } from '../core/errors.ts';

/**
 * Bounds on nesting, checked in one linear pass before (or while) a parser runs: the parsers this app uses
 * recurse, or copy, once per level of nesting, so a small file nested thousands deep costs memory or stack
 * super-linear in its size (a 4.5 MB Markdown file of 3,000 ever deeper quotes took gigabytes in marked, and
 * a worker that runs out of memory takes the tab down). Past a limit the text is kept and the structure
 * flattened where the format allows (Markdown, HTML), or the file is refused with a message saying why
 * (Word, whose reader cannot be fed a flattened file). Figures: docs/decisions/0001-structure-limits.md.
 */

/**
 * Most container markers (`>` quotes, list bullets and numbers) kept at the start of a Markdown line;
 * further ones are dropped, so deeper quotes and lists read as text of the deepest level kept. marked
 * re-lexes a container's text once per level (time and memory grow with depth × size).
 */
export const MAX_MARKDOWN_NESTING = 16;
/**
 * Most whitespace columns kept in a Markdown line's container prefix (a tab counts 4): indentation is how
 * lists nest, 2 columns a level, so this also bounds list depth. Beyond it the whitespace is cut.
 */
export const MAX_MARKDOWN_INDENT = 64;

/**
 * Times the quote depth may fall in one run of Markdown lines (a lazy line after a quoted one, `>>` after
 * `>>>`) before a blank line is put in, ending the quote: marked lexes the rest of a quote again at each
 * fall, so the time is the falls times the quote's length.
 */
export const MAX_QUOTE_RETURNS = 64;

/**
 * Most HTML elements open at once (real pages nest a few dozen deep, framework-heavy ones a few hundred).
 * htmlparser2's time grows with depth × size (its stack grows at the front, and a stray end tag searches
 * all of it): 10 MB of stray end tags took 1.1 s at depth 256, 2.4 s at 1,024, 8 s at 4,096.
 */
export const MAX_HTML_DEPTH = 1024;

const SPACE = 0x20;
const TAB = 0x09;
const isBlankAt = (line: string, at: number) => {
  const c = line.charCodeAt(at);
  return c === SPACE || c === TAB;
};

/**
 * The length of a container marker at `at`, with the blank after it, or 0: `>` (its blank optional), or
 * `-`, `+`, `*`, `1.`, `1)` followed by a blank or the end of the line (CommonMark's block quote and list
 * item markers).
 */
function markerLength(line: string, at: number): number {
  const c = line.charCodeAt(at);
  if (c === 0x3e /* > */) return isBlankAt(line, at + 1) ? 2 : 1;
  let end = at;
  if (c === 0x2d /* - */ || c === 0x2b /* + */ || c === 0x2a /* * */) end++;
  else {
    while (end - at < 9 && line.charCodeAt(end) >= 0x30 && line.charCodeAt(end) <= 0x39) end++;
    const next = line.charCodeAt(end);
    if (end === at || (next !== 0x2e /* . */ && next !== 0x29 /* ) */)) return 0;
    end++;
  }
  if (end === line.length) return end - at;
  return isBlankAt(line, end) ? end + 1 - at : 0;
}

/**
 * A Markdown line with its container prefix (the markers and whitespace before its text) bounded: at most
 * `maxMarkers` markers (each with the blank after it) and `maxIndent` further columns of whitespace are
 * kept; past the last marker kept the rest of the prefix is dropped, so the text reads at that depth as a
 * paragraph. Lines within the limits come back unchanged. Linear in the prefix's length.
 *
 * @param maxMarkers default {@link MAX_MARKDOWN_NESTING}
 * @param maxIndent default {@link MAX_MARKDOWN_INDENT}
 * @example capContainerPrefix('>'.repeat(3000) + ' deep') // → '>'.repeat(16) + ' deep'
 */
export function capContainerPrefix(line: string, maxMarkers = MAX_MARKDOWN_NESTING, maxIndent = MAX_MARKDOWN_INDENT): string {
  let markers = 0;
  let columns = 0;
  const kept: string[] = [];
  let keptUpTo = 0; // kept = line.slice(0, keptUpTo) while nothing was cut
  let cut = false;
  let at = 0;
  for (;;) {
    const blank = isBlankAt(line, at);
    const length = blank ? 1 : markerLength(line, at);
    if (!length) break;
    if (!blank && ++markers > maxMarkers) return dropRestOfPrefix(line, at, cut ? kept.join('') : line.slice(0, keptUpTo));
    if (blank) columns += line.charCodeAt(at) === TAB ? 4 : 1;
    if (blank && columns > maxIndent) {
      if (!cut) kept.push(line.slice(0, keptUpTo));
      cut = true;
    } else if (cut) kept.push(line.slice(at, at + length));
    else keptUpTo = at + length;
    at += length;
  }
  return cut ? kept.join('') + line.slice(at) : line;
}

/** `prefix`, then the line's text after the prefix that goes on at `at`, apart from the last marker kept. */
function dropRestOfPrefix(line: string, at: number, prefix: string): string {
  while (isBlankAt(line, at) || markerLength(line, at)) at += markerLength(line, at) || 1;
  const apart = prefix && !isBlankAt(prefix, prefix.length - 1) ? ' ' : '';
  return prefix + apart + line.slice(at);
}

/** How deep an XML text nests, and which element nests deepest within itself. */
export interface XmlNesting {
  /** Most elements open at once. */
  depth: number;
  /** The element open the most times at once ("w:tbl" for tables in tables), with that count. */
  deepest: { name: string; count: number } | undefined;
}

/**
 * The nesting of an XML text, in one pass over its tags (comments, declarations and self-closing tags do
 * not nest). Linear in the text's length; the per-name counts are a map of the few names in use.
 *
 * @example measureXmlNesting('<a><b><b/></b></a>') // → { depth: 2, deepest: { name: 'a', count: 1 } }
 */
export function measureXmlNesting(xml: string): XmlNesting {
  const open = new Map<string, number>();
  const most = new Map<string, number>();
  let depth = 0;
  let deepest = 0;
  for (let lt = xml.indexOf('<'); lt >= 0; lt = xml.indexOf('<', lt + 1)) {
    const gt = xml.indexOf('>', lt);
    if (gt < 0) break;
    const next = xml[lt + 1];
    if (next === '?' || next === '!' || xml[gt - 1] === '/') continue;
    const closing = next === '/';
    const name = xmlName(xml, closing ? lt + 2 : lt + 1, gt);
    const count = (open.get(name) ?? 0) + (closing ? -1 : 1);
    open.set(name, count);
    depth += closing ? -1 : 1;
    deepest = Math.max(deepest, depth);
    if (!closing && count > (most.get(name) ?? 0)) most.set(name, count);
    lt = gt;
  }
  let top: XmlNesting['deepest'];
  for (const [name, count] of most) if (!top || count > top.count) top = { name, count };
  return { depth: deepest, deepest: top };
}

/** The element name of the tag whose name starts at `from` (up to a blank, `/` or `>`). */
function xmlName(xml: string, from: number, gt: number): string {
  let end = from;
  while (end < gt && !' \t\r\n/'.includes(xml[end]!)) end++;
  return xml.slice(from, end);
}

/** What a person calls Word's elements that nest. */
const WORD_NESTING_NAMES: Record<string, string> = {
  'w:tbl': 'tables',
  'w:hyperlink': 'hyperlinks',
  'w:sdt': 'content controls',
  'w:smartTag': 'smart tags',
  'w:fldSimple': 'fields',
  'w:customXml': 'custom XML elements',
  'w:txbxContent': 'text boxes',
  'w:ins': 'tracked insertions',
  'w:del': 'tracked deletions',
};

/**
 * Throws `read-limit` when an XML part of a Word file nests deeper than `maxDepth` elements: mammoth
 * converts the document by recursion, several calls a level, and a stack overflow would read as a damaged
 * file (in Node it overflowed at tables nested ~340 deep, ~1,000 elements, and hyperlinks ~1,160 deep).
 */
export function checkXmlNesting(xml: string, name: string, maxDepth: number): void {
  const { depth, deepest } = measureXmlNesting(xml);
  if (depth <= maxDepth) return;
  const what = deepest && deepest.count > 1 ? `${WORD_NESTING_NAMES[deepest.name] ?? `${deepest.name} elements`} nested ${deepest.count.toLocaleString('en')} deep, ` : '';
  throw new DocQaError(
    'read-limit',
    `${name}: too deeply nested to read here (${what}${depth.toLocaleString('en')} levels in all; the limit is ${maxDepth.toLocaleString('en')}). Press Try again to insist`,
  );
}

/** Whether `error` is the engine running out of stack (V8's RangeError, Firefox's InternalError). */
export function isStackOverflow(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return (error instanceof RangeError && /call stack/i.test(error.message)) || (error.name === 'InternalError' && /recursion/i.test(error.message));
}

/** The error for a file whose nesting ran a parser out of stack: the same family as the limits above. */
export function tooDeeplyNested(name: string, cause?: unknown): DocQaError {
  return new DocQaError('read-limit', `${name}: too deeply nested to read here (its nesting ran the reader out of stack space). Simplify or split it, then add it again`, { cause });
}
