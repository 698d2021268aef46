/**
 * Which text may stand as a document's title. A title is shown in the Library and indexed as the header
 * line of every chunk, so a wrong one (a tool's placeholder, a file name, an RFC's first header line, a
 * CI badge, symbol garbage) costs every search of the document. Parsers offer candidates in order of
 * trust (metadata, then the first top-level heading); the first plausible one wins, else the file name
 * stands in and is not indexed. Pure: shared by every parser (Markdown's can call
 * {@link titleOfMarkdownHeading}).
 */
import { isReadable } from './readable.ts';

/** Longer text is a paragraph, not a title. */
const MAX_TITLE = 300;
/** What tools write when a person set no title: "Untitled", "Untitled-1", "Document1", "Slide 3"… */
const PLACEHOLDER = /^(?:untitled|no title|new document|document|title|presentation|slide|page|draft|template|blank|book|workbook)[\s_-]*\d*$/i;
const UNTITLED = /^untitled\b/i;
/** "Microsoft Word - lease.doc": Office's PDF printer names the file, not the document. */
const TOOL_PREFIX = /^(?:microsoft\s+(?:office\s+)?(?:word|powerpoint|excel)|ms\s?word)\s*-\s/i;
/** A file name or path as a title. */
const FILE_EXTENSION = /\.(?:pdf|docx?|dotx?|rtf|odt|pages|txt|md|markdown|html?|xml|pptx?|xlsx?|tex|dvi|e?ps|indd|qxd|wpd|tmp|qxp)$/i;
const PATH = /^(?:[a-z]:\\|\\\\|\/|~\/)|\\/i;
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
/** One word joined by underscores: a file stem ("lease_final_v2"), not a title. */
const IDENTIFIER = /^[^\s_]+(?:_[^\s_]*)+$/;

/** Whitespace that collapsing to single spaces changes: a run of two or more, or one that is not " ". */
const WHITESPACE_TO_COLLAPSE = / \s+|[^\S ]\s*/g;

function collapse(text: string): string {
  return text.replace(WHITESPACE_TO_COLLAPSE, ' ').trim();
}

/** The title {@link plausibleTitle} last accepted, and for which file name. */
let lastAccepted: { title: string; fileName: string } | undefined;

/**
 * `text` as a title, or undefined when it is not a plausible one: empty or over 300 characters, a
 * placeholder ("Untitled", "Document1"), "Microsoft Word - x.doc", a file name or path (the document's
 * own name, anything ending in a document extension, a stem like "lease_final_v2"), no letter or digit,
 * or unreadable by {@link isReadable} (symbol garbage, "ÿþ"). A heading "Guide" in guide.md is a title.
 *
 * @example plausibleTitle('Microsoft Word - lease.doc', 'lease.pdf') // → undefined
 * @example plausibleTitle('  Tenancy  agreement ', 'lease.pdf') // → 'Tenancy agreement'
 */
export function plausibleTitle(text: string | undefined, fileName: string): string | undefined {
  // A title accepted once is accepted again as it is (it is collapsed already, and every check reads only
  // it and the file name), so the check a parser made and parseFile repeats is done once.
  if (text !== undefined && text === lastAccepted?.title && fileName === lastAccepted.fileName) return text;
  const t = collapse(text ?? '');
  if (!t || t.length > MAX_TITLE || !LETTER_OR_DIGIT.test(t)) return undefined;
  if (PLACEHOLDER.test(t) || UNTITLED.test(t) || TOOL_PREFIX.test(t) || FILE_EXTENSION.test(t) || PATH.test(t) || IDENTIFIER.test(t)) return undefined;
  if (t.toLowerCase() === fileName.toLowerCase()) return undefined;
  if (!isReadable(t)) return undefined;
  lastAccepted = { title: t, fileName };
  return t;
}

/** The first plausible title among `candidates`, in order of trust. */
export function firstPlausibleTitle(candidates: ReadonlyArray<string | undefined>, fileName: string): string | undefined {
  for (const c of candidates) {
    const t = plausibleTitle(c, fileName);
    if (t) return t;
  }
  return undefined;
}

const MAX_LINE_TITLE = 80;
const MAX_LINE_WORDS = 12;
/** Column layout: an RFC's "Internet Engineering Task Force (IETF)            A. Author". */
const COLUMN_GAP = / {3}|\t/;
/** A line that ends like a sentence or a label, not a title. */
const SENTENCE_END = /[.,;:]$/;
const STARTS_WITH_LETTER = /^\p{L}/u;
/** Dates: 2024-03-01, 3/1/2024, "March 2031", "March 3, 2031", "1 Mar. 2024". */
const DATES = [/\d{4}-\d\d-\d\d/, /\d\/\d{1,2}\/\d\d/, /\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.? (?:\d{1,2},? )?\d{4}\b/i];
/** Document furniture: series numbers, identifiers, page marks, addresses. */
const FURNITURE = /\b(?:rfc|request for comments|internet[- ]draft|issn|isbn|doi|category|obsoletes|updates)\b|\[page|https?:|www\.|@/i;

/**
 * The first line of a plain-text file as its title, only when it looks like one: alone in its
 * paragraph (the caller checks), 80 characters at most, 12 words at most, starting with a letter, no
 * column layout (three spaces or a tab inside), not ending in . , ; or :, and no date, RFC number,
 * identifier, URL or e-mail address; and {@link plausibleTitle}. An RFC's first lines ("Internet
 * Engineering Task Force (IETF)   A. Author") never are.
 *
 * @example titleOfFirstLine('The Widget Exchange Protocol', 'wxp.txt') // → 'The Widget Exchange Protocol'
 * @example titleOfFirstLine('Network Working Group          J. Postel', 'rfc.txt') // → undefined
 */
export function titleOfFirstLine(line: string, fileName: string): string | undefined {
  const t = line.trim();
  if (t.length > MAX_LINE_TITLE || COLUMN_GAP.test(t) || SENTENCE_END.test(t) || !STARTS_WITH_LETTER.test(t)) return undefined;
  if (t.split(' ').length > MAX_LINE_WORDS || DATES.some((d) => d.test(t)) || FURNITURE.test(t)) return undefined;
  return plausibleTitle(t, fileName);
}

/** An image `![alt](src)`; link text and destinations stop at the next bracket, so the pattern stays linear. */
const MD_IMAGE = /!\[[^[\]]*\]\([^()]*\)/g;
const MD_LINK = /\[([^[\]]*)\]\([^()]*\)/g;
const MD_EMPHASIS = /[*_`~]+/g;

/**
 * A Markdown heading's text (what follows the `#`s, inline syntax still in it) as a title. Images are
 * never title text: a heading of badges (`[![CI](…/badge.svg)](…)`) or a logo alone gives undefined,
 * and "![logo](logo.png) Widget" gives "Widget". Links keep their text; then {@link plausibleTitle}.
 * For parse-markdown's first `#` heading.
 *
 * @example titleOfMarkdownHeading('[![CI](https://x/badge.svg)](https://x) [![npm](b.svg)](n)', 'README.md') // → undefined
 */
export function titleOfMarkdownHeading(raw: string, fileName: string): string | undefined {
  const text = raw.replace(MD_IMAGE, ' ').replace(MD_LINK, '$1').replace(MD_EMPHASIS, '');
  return plausibleTitle(text, fileName);
}
