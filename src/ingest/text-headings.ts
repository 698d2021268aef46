/**
 * Headings in plain text (RFCs, man pages, plain-text books and reports). A heading is only looked for
 * in a paragraph that starts after a blank line (or the start of the text); each test reads one line of
 * at most 80 characters, so finding them is linear in the text.
 *
 * - Numbered: a line in column 0 that is the whole paragraph, a section number ("4", "4.6.1.", "A.1.",
 *   "Appendix A.", "Annex B") then spaces then a title that starts with a capital letter (or, after a
 *   number with several parts, a digit: "10.4.15 414 Request-URI Too Long"), holds a letter and does
 *   not end like a sentence or a lead-in (. , ; :). A numbered list item inside a paragraph, an
 *   indented one, or one that is a sentence, is not a heading.
 * - Capitals: a line of capital letters (at least two), digits, spaces and - & / ' : , . ( ), at most
 *   60 characters, that is the whole paragraph, or that starts in column 0 and is followed by more
 *   indented lines (a man page's "NAME" then its indented text).
 * - Outdented: a line in column 0 that is the whole paragraph, starts with a capital letter, has at most
 *   8 words and no sentence end, when the next paragraph is indented by 2 or more ("Abstract",
 *   "Status of This Memo" in an RFC, where all body text is indented).
 * - Underlined: a line of at most 80 characters with a letter, under (and maybe over) a rule of one
 *   repeated mark (= - ~ ^ * # + : " ' `) at least 3 long and at least half the line's length, as
 *   reStructuredText, Markdown's setext headings and many plain-text READMEs write them
 *   ({@link underlinedHeading}). A rule with spaces in it ("----   -----") underlines table columns.
 * A line with dot leaders ("Introduction . . . . 5", "Scope.....3") is a table of contents entry,
 * never a heading.
 */

const MAX_HEADING = 80;
const MAX_CAPS = 60;
const NUMBERED = /^(\d{1,3}(?:\.\d{1,3}){0,6}\.?|[A-Z](?:\.\d{1,3}){1,6}\.?|(?:Appendix|Annex|APPENDIX|ANNEX) [A-Z](?:\.\d{1,3}){0,6}\.?)[ \t]+(\S.*)$/;
const CAPS = /^[\p{Lu}\p{N}][\p{Lu}\p{M}\p{N} '’&/:,.()\-–—]*$/u;
const UPPER = /\p{Lu}/gu;
const LOWER = /\p{Ll}/u;
const LETTER = /\p{L}/u;
const CAPITAL_START = /^\p{Lu}/u;
const SENTENCE_END = /[.,;:!?]$/;
const LEAD_IN_END = /[.,;:]$/;

const RULE = /^([=\-~^*#+:"'`])\1{2,}$/;

/** The mark of a rule line ("=====" → "="), undefined for any other line. */
function ruleMark(line: string): string | undefined {
  const text = line.trim();
  return RULE.test(text) ? text[0] : undefined;
}

/**
 * A heading written as a line under a rule, or between two rules of the same mark, at the start of a
 * paragraph: the heading, spaces collapsed, and how many lines it takes (2 or 3); the rest is body text.
 *
 * @example underlinedHeading(['Installation', '============', 'Run make.']) // → { heading: 'Installation', lines: 2 }
 */
export function underlinedHeading(lines: readonly string[]): { heading: string; lines: number } | undefined {
  const over = ruleMark(lines[0] ?? '');
  const at = over ? 1 : 0;
  const title = (lines[at] ?? '').trim();
  const rule = (lines[at + 1] ?? '').trim();
  const under = ruleMark(rule);
  if (!under || (over && over !== under) || !title || title.length > MAX_HEADING || ruleMark(title) || !LETTER.test(title)) return undefined;
  if (rule.length < Math.max(3, title.length / 2) || indentOf(lines[at + 1]!) > indentOf(lines[at]!)) return undefined;
  return { heading: title.split(/[ \t]+/).join(' '), lines: at + 2 };
}

/** Leading spaces and tabs of a line. */
export function indentOf(line: string): number {
  let i = 0;
  while (i < line.length && (line[i] === ' ' || line[i] === '\t')) i++;
  return i;
}

function hasDotLeaders(text: string): boolean {
  return text.includes('..') || text.includes('. .') || text.includes('…');
}

/** "4.6.1.  New Session Ticket Message" → "4.6.1. New Session Ticket Message"; see the module comment. */
function numberedHeading(line: string): string | undefined {
  const m = NUMBERED.exec(line);
  if (!m) return undefined;
  const [, number = '', title = ''] = m;
  // "4.6", "4.6.1.", "A.1", "Appendix B": more than a bare "4" or "4.".
  const severalParts = /\.\d/.test(number) || !/^\d/.test(number);
  const first = title[0] ?? '';
  const startsWell = CAPITAL_START.test(first) || (severalParts && first >= '0' && first <= '9');
  if (!startsWell || !LETTER.test(title) || LEAD_IN_END.test(title.trimEnd())) return undefined;
  return `${number} ${title.trim()}`;
}

function isCaps(text: string): boolean {
  if (text.length > MAX_CAPS || LOWER.test(text) || !CAPS.test(text)) return false;
  let upper = 0;
  for (const _ of text.matchAll(UPPER)) if (++upper >= 2) return true;
  return false;
}

function isOutdented(text: string): boolean {
  return text.length <= MAX_CAPS && CAPITAL_START.test(text) && !SENTENCE_END.test(text) && !text.includes('  ') && text.split(' ').length <= 8;
}

/**
 * The heading a paragraph starts with, if any, spaces collapsed: always its first line, the rest is body
 * text. `lines` are the paragraph's lines (it follows a blank line or the start of the text); `next` is
 * the first line of the next paragraph.
 *
 * @example textHeading(['4.6.1.  New Session Ticket Message'], '   At any time…') // → '4.6.1. New Session Ticket Message'
 */
export function textHeading(lines: string[], next: string | undefined): string | undefined {
  const line = lines[0] ?? '';
  const text = line.trim();
  if (!text || text.length > MAX_HEADING || hasDotLeaders(text)) return undefined;
  const column0 = indentOf(line) === 0;
  const collapse = (s: string) => s.split(/[ \t]+/).join(' ');
  if (lines.length === 1) {
    const numbered = column0 ? numberedHeading(text) : undefined;
    if (numbered) return collapse(numbered);
    if (isCaps(text)) return collapse(text);
    if (column0 && next !== undefined && indentOf(next) >= 2 && isOutdented(text)) return text;
    return undefined;
  }
  const hanging = column0 && indentOf(lines[1] ?? '') > 0;
  return hanging && isCaps(text) ? collapse(text) : undefined;
}
