import { decodeHTML } from 'entities';
import { Parser, type Handler } from 'htmlparser2';
import { normalizeText } from './clean.ts';
import { MAX_HTML_DEPTH } from './structure-limits.ts';

/**
 * htmlparser2 with a bound on element nesting. Its stack of open elements grows at the front (`unshift`)
 * and an end tag that matches nothing searches all of it, so time grows with depth × size: 100k nested
 * `<div>`s took 5.8 s, 200k 25 s; a page of unclosed `<i>`s nests as deep as it is long. Past
 * {@link MAX_HTML_DEPTH} open elements the parse stops and the rest of the page is read as plain text.
 */

/** The parse reached the depth limit at this offset of the HTML (the start of the tag one too deep). */
class DepthLimitReached extends Error {
  constructor(readonly at: number) {
    super('HTML nesting limit reached');
  }
}

type Events = Pick<Handler, 'onopentag' | 'ontext' | 'onclosetag'>;

/**
 * Feeds `html` to htmlparser2 (entities decoded, names lower-cased), sending its events to `events`; past
 * `maxDepth` nested elements it stops and calls `onLimit` with the paragraphs of the rest of the page read
 * as plain text ({@link htmlPlainParagraphs}). Returns whether the whole page was parsed.
 */
export function parseHtmlWithDepthLimit(html: string, events: Events, onLimit: (rest: string[]) => void, maxDepth = MAX_HTML_DEPTH): boolean {
  let depth = 0;
  const parser: Parser = new Parser(
    {
      onopentag(name, attrs, implied) {
        if (++depth > maxDepth) throw new DepthLimitReached(parser.startIndex);
        events.onopentag?.(name, attrs, implied);
      },
      ontext: (text) => events.ontext?.(text),
      onclosetag(name, implied) {
        depth--;
        events.onclosetag?.(name, implied);
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  try {
    parser.write(html);
    parser.end();
    return true;
  } catch (error) {
    if (!(error instanceof DepthLimitReached)) throw error;
    onLimit(htmlPlainParagraphs(html.slice(error.at)));
    return false;
  }
}

/** Elements whose content is not read as text (as in the HTML parser). */
const SKIPPED = new Set(['script', 'style', 'noscript', 'template', 'svg', 'math', 'iframe', 'object', 'canvas', 'head', 'title']);
/** Elements that end a paragraph of the plain reading. */
const BREAKS = new Set([
  'p', 'div', 'li', 'ul', 'ol', 'dl', 'dt', 'dd', 'section', 'article', 'header', 'footer', 'nav', 'aside', 'main',
  'blockquote', 'pre', 'figure', 'figcaption', 'hr', 'br', 'address', 'caption', 'details', 'summary', 'table', 'tr',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'body', 'html',
]);
const TAG_NAME = /<(\/?)([A-Za-z][A-Za-z0-9:-]{0,63})/y;
const HTML_SPACE = /[ \t\n\r\f]+/g;

/** The offset just past `</name…>` (any case) at or after `from`, or the end of `html`. */
function skipElement(html: string, name: string, from: number): number {
  for (let at = html.indexOf('</', from); at >= 0; at = html.indexOf('</', at + 2)) {
    if (html.slice(at + 2, at + 2 + name.length).toLowerCase() === name) {
      const gt = html.indexOf('>', at);
      return gt < 0 ? html.length : gt + 1;
    }
  }
  return html.length;
}

/**
 * The text of an HTML fragment without its structure, in one linear pass: tags are dropped (block
 * elements end a paragraph), comments and script-like elements with their content, entities decoded.
 *
 * @example htmlPlainParagraphs('<div><b>Rent</b> is due</div><p>Mon &amp; Tue') // → ['Rent is due', 'Mon & Tue']
 */
export function htmlPlainParagraphs(html: string): string[] {
  const paragraphs: string[] = [];
  let parts: string[] = [];
  const endParagraph = () => {
    const text = normalizeText(decodeHTML(parts.join('')).replace(HTML_SPACE, ' '));
    if (text) paragraphs.push(text);
    parts = [];
  };
  let at = 0;
  while (at < html.length) {
    const lt = html.indexOf('<', at);
    parts.push(html.slice(at, lt < 0 ? html.length : lt));
    if (lt < 0) break;
    TAG_NAME.lastIndex = lt;
    const tag = TAG_NAME.exec(html);
    const isMarkup = tag || html[lt + 1] === '!' || html[lt + 1] === '?';
    if (!isMarkup) {
      parts.push('<');
      at = lt + 1;
      continue;
    }
    const comment = html.startsWith('<!--', lt);
    const end = comment ? html.indexOf('-->', lt + 4) : html.indexOf('>', lt);
    at = end < 0 ? html.length : end + (comment ? 3 : 1);
    const name = tag?.[2]!.toLowerCase() ?? '';
    if (tag && !tag[1] && SKIPPED.has(name)) at = skipElement(html, name, at);
    else if (BREAKS.has(name)) endParagraph();
  }
  endParagraph();
  return paragraphs;
}
