/**
 * Text cleaning shared by every parser: Unicode NFC, whitespace normalisation, words re-joined across
 * line-break hyphens, and running headers/footers removed from paginated documents.
 */

// eslint-disable-next-line no-control-regex -- stripping control characters is the point
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\u200B\uFEFF]/g;
/** Bidi embeddings, overrides, isolates and marks: invisible, they reorder labels and answers. */
const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;
const LINE_BREAKS = /\r\n?|\u2028|\u2029/g;
/** Any character that {@link LINE_BREAKS}, {@link CONTROL} or {@link BIDI} rewrites: most text has none. */
// eslint-disable-next-line no-control-regex -- see CONTROL
const LINE_CONTROL_OR_BIDI = /[\r\u2028\u2029\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\u200B\uFEFF\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;
/**
 * The runs of spaces, tabs and no-break spaces that collapsing to one " " changes: two characters or
 * more, or one that is not " ". A lone " " (most of them) is no match, so ordinary text is not rebuilt.
 */
const SPACE_RUNS = / [ \t\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000]+|[\t\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000][ \t\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000]*/g;
/** Runs of whitespace that collapsing to one " " changes (as {@link SPACE_RUNS}, all of `\s`). */
const WHITESPACE_RUNS = / \s+|[^\S ]\s*/g;

/**
 * NFC, no control or bidi characters, single spaces, trimmed lines, at most one blank line in a row.
 * Each pass runs only where it can change something (a paragraph without line breaks, control or bidi
 * characters and double spaces costs NFC, one test and one scan).
 */
export function normalizeText(text: string): string {
  let t = text.normalize('NFC');
  if (LINE_CONTROL_OR_BIDI.test(t)) t = t.replace(LINE_BREAKS, '\n').replace(CONTROL, '').replace(BIDI, '');
  t = t.replace(SPACE_RUNS, ' ');
  if (t.includes('\n')) {
    if (t.includes(' \n') || t.includes('\n ')) t = t.replace(/ ?\n ?/g, '\n');
    if (t.includes('\n\n\n')) t = t.replace(/\n{3,}/g, '\n\n');
  }
  return t.trim();
}

/** Spaces other than " " and tab (no-break, ideographic, …): in code they are spaces. */
const ODD_SPACES = /[\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000]/g;

/**
 * A code block's text: NFC, no control or bidi characters, but its lines' indentation kept (Python
 * without it is another program), less the indentation all its lines share; trailing spaces, blank
 * lines before and after, and more than one blank line in a row dropped. Chunk ids do not change
 * ({@link normalizeForId} collapses the spaces again).
 */
export function normalizeCode(text: string): string {
  let t = text.normalize('NFC');
  if (LINE_CONTROL_OR_BIDI.test(t)) t = t.replace(LINE_BREAKS, '\n').replace(CONTROL, '').replace(BIDI, '');
  const lines = t.replace(ODD_SPACES, ' ').split('\n').map((l) => l.trimEnd());
  let shared = Infinity;
  for (const l of lines) if (l) shared = Math.min(shared, l.length - l.trimStart().length);
  const out: string[] = [];
  for (const l of lines) {
    // Blank lines before the first line and a second one in a row are dropped; trailing ones below.
    if (!l && !out.at(-1)) continue;
    out.push(l.slice(shared));
  }
  if (out.length && !out.at(-1)) out.pop();
  return out.join('\n');
}

/** Code punctuation: over this share of a block's visible characters, preformatted text is code. */
const PROSE_MAX_SYMBOL_SHARE = 0.03;
/** Hard-wrapped prose fills its lines: at least this many words a line, on average. */
const PROSE_MIN_WORDS_PER_LINE = 6;
/** And ends sentences: at least one for every this many lines. */
const PROSE_MAX_LINES_PER_SENTENCE = 4;
/** Wrapped prose: at least this share of its line breaks fall inside a sentence (the next line goes on in lower case). */
const PROSE_MIN_WRAP_SHARE = 0.5;
/** Or unwrapped prose: a paragraph a line, lines this long on average. */
const PROSE_MIN_LINE_CHARS = 120;
const CODE_PUNCTUATION = /[=(){}[\]<>;_$#@\\*&|^~`+]/g;
const WORDS = /\p{L}+/gu;
const VISIBLE_CHARS = /\S/gu;
/** A sentence's end: a letter or digit, then . ! or ?, then a space or the line's end. */
const SENTENCE_ENDS = /(?<=[\p{L}\p{N}])[.!?](?=\s|$)/gmu;
/** A shell prompt or a program's message opening a line ("$ ls", "# apt install", "ERROR:  …"): output, not prose. */
const SESSION_LINE = /^(?:[$#%]\s|\p{Lu}{3,}:)/u;
const ENDS_SENTENCE = /[.!?:]["'”’)\]]*$/u;
const STARTS_LOWER = /^["'“‘(]?\p{Ll}/u;

/**
 * Whether preformatted text (an HTML `<pre>`, a Word paragraph in "HTML Preformatted") is prose set in
 * fixed lines rather than code or a program's output: a plain-text e-mail, an RFC, a news text pasted
 * from a web page. Its lines are full of words and end sentences, almost no code punctuation, no shell
 * prompt or "ERROR:" opening a line, and its sentences run on across line breaks (or each line is a
 * long paragraph). A short command such as "npm install harbourlog" has no sentence: it stays code.
 */
export function readsAsProse(text: string): boolean {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  if (!lines.length || lines.some((l) => SESSION_LINE.test(l))) return false;
  const visible = text.match(VISIBLE_CHARS)?.length ?? 0;
  const words = text.match(WORDS)?.length ?? 0;
  const sentences = text.match(SENTENCE_ENDS)?.length ?? 0;
  const symbols = text.match(CODE_PUNCTUATION)?.length ?? 0;
  if (words < PROSE_MIN_WORDS_PER_LINE * lines.length || sentences * PROSE_MAX_LINES_PER_SENTENCE < lines.length || symbols > PROSE_MAX_SYMBOL_SHARE * visible) return false;
  let wraps = 0;
  for (let i = 1; i < lines.length; i++) if (!ENDS_SENTENCE.test(lines[i - 1]!) && STARTS_LOWER.test(lines[i]!)) wraps++;
  return (lines.length > 1 && wraps >= PROSE_MIN_WRAP_SHARE * (lines.length - 1)) || visible >= PROSE_MIN_LINE_CHARS * lines.length;
}

/** Collapses all whitespace to single spaces and drops bidi controls: the form chunk ids are computed from. */
export function normalizeForId(text: string): string {
  return text.normalize('NFC').replace(BIDI, '').replace(WHITESPACE_RUNS, ' ').trim();
}

const BROKEN_WORD_END = /\p{L}[-\u00AD\u2010]$/u;

/**
 * Joins lines of one paragraph. A line ending in a hyphen after a letter, followed by a line starting
 * with a lower-case letter, is a word broken by the layout ("inter-\nnational" → "international").
 * Linear in the paragraph's length: pieces are joined once, and the hyphen test sees one line.
 */
export function joinLines(lines: string[]): string {
  const parts: string[] = [];
  let last = '';
  for (const raw of lines) {
    const line = raw.trim();
    if (!line) continue;
    if (BROKEN_WORD_END.test(last) && /^\p{Ll}/u.test(line)) {
      parts[parts.length - 1] = parts[parts.length - 1]!.slice(0, -1);
      parts.push(line);
    } else parts.push(parts.length ? ' ' + line : line);
    last = line;
  }
  return parts.join('');
}

/** Lines are compared with digits masked, so "Page 3 of 9" matches "Page 4 of 9". */
function lineKey(line: string): string {
  return line.trim().toLowerCase().replace(/\d+/g, '#').replace(/\s+/g, ' ');
}

/**
 * Running headers and footers: for each page, the indexes of its lines among the first or last `edge`
 * lines that repeat (digits masked) on at least `minShare` of the pages, or on {@link LOCAL_RUN} or more
 * pages in a row (every page or every other page): a book's chapter header ("Chapter 3: Basic Shell
 * Features 41"), which runs for one chapter only, often on every other page. Needs 3 pages or more.
 * A page is a list of lines; an empty string marks a paragraph break and is never a running line.
 * A page whose every line would go keeps them all: pages cut from one template (an invoice or a form
 * on each page, "Invoice 1234 total 56.00") hold nothing else, and dropping them would lose the text.
 */
export function runningLineIndexes(pages: string[][], edge = 2, minShare = 0.6): Set<number>[] {
  if (pages.length < 3) return pages.map(() => new Set());
  const edgeIndexes = (page: string[]): number[] => {
    const content = page.map((l, i) => (l.trim() ? i : -1)).filter((i) => i >= 0);
    return [...new Set([...content.slice(0, edge), ...content.slice(-edge)])];
  };
  // For each key, the pages (in order) that have it at an edge.
  const pagesOf = new Map<string, number[]>();
  pages.forEach((page, p) => {
    for (const k of new Set(edgeIndexes(page).map((i) => lineKey(page[i] ?? '')))) {
      const list = pagesOf.get(k);
      if (list) list.push(p);
      else pagesOf.set(k, [p]);
    }
  });
  const threshold = Math.max(2, Math.ceil(pages.length * minShare));
  // Pages where a key belongs to a chain of at least LOCAL_RUN pages, each at most MAX_GAP after the last.
  const local = new Map<string, Set<number>>();
  for (const [key, list] of pagesOf) {
    if (list.length < LOCAL_RUN || list.length >= threshold) continue;
    let start = 0;
    for (let i = 1; i <= list.length; i++) {
      if (i < list.length && list[i]! - list[i - 1]! <= MAX_GAP) continue;
      if (i - start >= LOCAL_RUN) {
        const set = local.get(key) ?? new Set<number>();
        for (let j = start; j < i; j++) set.add(list[j]!);
        local.set(key, set);
      }
      start = i;
    }
  }
  const running = (key: string, p: number): boolean => (pagesOf.get(key)?.length ?? 0) >= threshold || Boolean(local.get(key)?.has(p));
  return pages.map((page, p) => {
    const drop = new Set(edgeIndexes(page).filter((i) => running(lineKey(page[i] ?? ''), p)));
    const keepsContent = page.some((l, i) => l.trim() && !drop.has(i));
    return keepsContent ? drop : new Set();
  });
}

/** A line at a page edge on this many pages in a row (see {@link MAX_GAP}) is running there. */
const LOCAL_RUN = 3;
/** Pages "in a row" may be this far apart: a header on every other page (odd pages only) still runs. */
const MAX_GAP = 2;

/** Pages without their running headers and footers ({@link runningLineIndexes}). */
export function removeRunningLines(pages: string[][], edge = 2, minShare = 0.6): string[][] {
  const drops = runningLineIndexes(pages, edge, minShare);
  return pages.map((page, p) => (drops[p]?.size ? page.filter((_, i) => !drops[p]!.has(i)) : page));
}

/** A line ending like this is part of a sentence or ends one: never taken for a heading. */
const ENDS_SENTENCE_OR_WORD = /[.,;:!?…\-\u00AD\u2010]["'”’)\]]*$/u;
const STARTS_SENTENCE = /^["'“‘([]?[\p{Lu}\p{N}]/u;
/** A heading line is at most this share of the paragraph's longest line (a wrapped line of prose is near full width). */
const HEADING_SHARE = 0.6;
const HEADING_CHARS = 80;

/**
 * Joins a paragraph's lines, but keeps a line break after a short line without final punctuation that is
 * followed by one starting like a sentence: a heading the layout set without a gap ("Chapter 4. Results"
 * over "The trial enrolled…"), which joined would open the sentence ("Results The trial enrolled…").
 */
function joinParagraph(lines: readonly string[]): string {
  const trimmed = lines.map((l) => l.trim()).filter(Boolean);
  // A loop, not Math.max(...): a paragraph may have more lines than a call takes arguments.
  let longest = 0;
  for (const l of trimmed) longest = Math.max(longest, l.length);
  const groups: string[][] = [[]];
  trimmed.forEach((line, i) => {
    groups.at(-1)!.push(line);
    const next = trimmed[i + 1];
    const heading = line.length <= Math.min(HEADING_CHARS, longest * HEADING_SHARE) && /\p{L}/u.test(line) && !ENDS_SENTENCE_OR_WORD.test(line);
    if (next !== undefined && heading && STARTS_SENTENCE.test(next)) groups.push([]);
  });
  return groups.map(joinLines).join('\n');
}

/** Splits lines into paragraphs at empty lines and joins each paragraph's lines ({@link joinParagraph}). */
export function linesToParagraphs(lines: readonly string[]): string[] {
  const paragraphs: string[] = [];
  let current: string[] = [];
  for (const line of lines) {
    if (line.trim()) current.push(line);
    else if (current.length) {
      paragraphs.push(joinParagraph(current));
      current = [];
    }
  }
  if (current.length) paragraphs.push(joinParagraph(current));
  return paragraphs.map(normalizeText).filter((p) => p.length > 0);
}

/** Splits plain text into paragraphs at blank lines, re-joining the lines inside each. */
export function textToParagraphs(text: string): string[] {
  return linesToParagraphs(normalizeText(text).split('\n'));
}

/**
 * A block's text from its paragraphs (joined by a blank line), with the ranges of those that were code
 * (`codeParagraphs`: their indexes) as `Block.code`, absent when there are none.
 */
export function joinParagraphs(paragraphs: readonly string[], codeParagraphs: ReadonlySet<number>): { text: string; code?: Array<{ start: number; end: number }> } {
  const code: Array<{ start: number; end: number }> = [];
  let at = 0;
  paragraphs.forEach((p, i) => {
    if (codeParagraphs.has(i)) code.push({ start: at, end: at + p.length });
    at += p.length + 2;
  });
  return { text: paragraphs.join('\n\n'), ...(code.length ? { code } : {}) };
}
