import { CELL_SEPARATOR } from '../core/table-cells.ts';
import { normalizeText } from './clean.ts';
import { parseHtmlWithDepthLimit } from './html-depth-limit.ts';

/**
 * Raw HTML inside Markdown (a README's centred banner, `<details>`, an HTML table): its text only. The
 * same rules as the HTML parser (`parse-html.ts`): nothing executed, script-like elements dropped, block
 * elements end paragraphs, table rows are one paragraph with cells joined by " | ", `h1`–`h6` headings.
 */

/** Elements whose content is never text a person reads (as in `parse-html.ts`). */
const SKIP = new Set(['script', 'style', 'noscript', 'template', 'svg', 'math', 'iframe', 'object', 'canvas', 'head', 'title']);
const BLOCKS = new Set([
  'p', 'div', 'li', 'ul', 'ol', 'dl', 'dt', 'dd', 'section', 'article', 'header', 'footer', 'nav', 'aside', 'main',
  'blockquote', 'pre', 'figure', 'figcaption', 'hr', 'address', 'caption', 'details', 'summary', 'fieldset', 'legend',
  'form', 'center', 'menu', 'hgroup', 'dialog', 'search', 'body', 'html', 'table', 'thead', 'tbody', 'tfoot', 'tr',
]);
const HEADING = /^h([1-6])$/;
const HTML_SPACE = /[ \t\n\r\f]+/g;

/** A paragraph of an HTML block, or a heading (`level` 1–6). */
export interface HtmlPiece {
  level?: number;
  text: string;
}

/** An inline tag's name, lower-cased, and whether it closes ("</sup>" → { name: 'sup', closing: true }). */
export function tagName(tag: string): { name: string; closing: boolean } | undefined {
  const m = /^<(\/?)([A-Za-z][A-Za-z0-9-]*)/.exec(tag);
  return m ? { name: m[2]!.toLowerCase(), closing: m[1] === '/' } : undefined;
}

/** Whether an element's content is dropped (scripts, styles…). */
export function isSkipped(name: string): boolean {
  return SKIP.has(name);
}

/** The paragraphs and headings of an HTML fragment, in order. */
export function htmlPieces(html: string): HtmlPiece[] {
  const pieces: HtmlPiece[] = [];
  let parts: string[] = [];
  let skipDepth = 0;
  let preDepth = 0;
  let cellsInRow = 0;
  let level = 0;
  const end = () => {
    const text = normalizeText(parts.join(''));
    parts = [];
    if (!text) return;
    pieces.push(level ? { level, text: text.replace(/\n/g, ' ') } : { text });
  };
  parseHtmlWithDepthLimit(
    html,
    {
      onopentag(name) {
        if (skipDepth || SKIP.has(name)) {
          skipDepth++;
          return;
        }
        const h = HEADING.exec(name);
        if (h) {
          end();
          level = Number(h[1]);
        } else if (name === 'pre') preDepth++;
        if (name === 'br') parts.push('\n');
        else if (name === 'td' || name === 'th') parts.push(cellsInRow++ ? CELL_SEPARATOR : '');
        else if (name === 'tr') {
          end();
          cellsInRow = 0;
        } else if (BLOCKS.has(name)) end();
      },
      ontext(text) {
        if (!skipDepth) parts.push(preDepth ? text : text.replace(HTML_SPACE, ' '));
      },
      onclosetag(name) {
        if (skipDepth) {
          skipDepth--;
          return;
        }
        if (name === 'pre') preDepth = Math.max(0, preDepth - 1);
        if (HEADING.test(name) && level) {
          end();
          level = 0;
        } else if (BLOCKS.has(name)) end();
      },
    },
    (rest) => {
      level = 0;
      end();
      for (const text of rest) pieces.push({ text });
    },
  );
  end();
  return pieces;
}
