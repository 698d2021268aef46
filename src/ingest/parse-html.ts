import { Parser } from 'htmlparser2';
import type { Block, ParsedDoc } from '../core/types.ts';
import { normalizeText } from './clean.ts';
import { decodeText } from './parse-text.ts';

/** Elements whose content is never text a person reads. Nothing is executed: this is a tokenizer. */
const SKIP = new Set(['script', 'style', 'noscript', 'template', 'svg', 'math', 'iframe', 'object', 'canvas', 'head']);
const BREAKS = new Set([
  'p', 'div', 'br', 'li', 'ul', 'ol', 'tr', 'table', 'section', 'article', 'header', 'footer', 'nav', 'aside',
  'blockquote', 'pre', 'figure', 'figcaption', 'dd', 'dt', 'dl', 'hr', 'main', 'address', 'td', 'th', 'caption',
]);
const HEADING = /^h([1-6])$/;

/**
 * Text and heading structure of an HTML string: one block per section, labelled with its heading path.
 * Scripts, styles and other non-text elements are dropped.
 */
export function htmlToParsed(html: string): ParsedDoc {
  const blocks: Block[] = [];
  const path: string[] = [];
  let paragraphs: string[] = [];
  let buf = '';
  let skipDepth = 0;
  let headingLevel = 0;
  let headingBuf = '';
  let inTitle = false;
  let titleTag = '';
  let firstHeading: string | undefined;

  const endParagraph = () => {
    const p = normalizeText(buf);
    if (p) paragraphs.push(p);
    buf = '';
  };
  const flushBlock = () => {
    endParagraph();
    if (paragraphs.length) {
      const section = path.filter(Boolean).join(' › ');
      blocks.push({ label: section || 'beginning', section: section || undefined, text: paragraphs.join('\n\n') });
    }
    paragraphs = [];
  };

  const parser = new Parser(
    {
      onopentag(name) {
        if (name === 'title') inTitle = true;
        if (SKIP.has(name)) skipDepth++;
        if (skipDepth) return;
        const h = HEADING.exec(name);
        if (h) {
          flushBlock();
          headingLevel = Number(h[1]);
          headingBuf = '';
        } else if (BREAKS.has(name)) endParagraph();
      },
      ontext(text) {
        if (inTitle) titleTag += text;
        if (skipDepth) return;
        if (headingLevel) headingBuf += text;
        else buf += text;
      },
      onclosetag(name) {
        if (name === 'title') inTitle = false;
        if (SKIP.has(name)) {
          skipDepth = Math.max(0, skipDepth - 1);
          return;
        }
        if (skipDepth) return;
        if (HEADING.test(name) && headingLevel) {
          const text = normalizeText(headingBuf).replace(/\n/g, ' ');
          if (text) {
            path.length = headingLevel - 1;
            path[headingLevel - 1] = text;
            firstHeading ??= text;
          }
          headingLevel = 0;
        } else if (BREAKS.has(name)) endParagraph();
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  parser.write(html);
  parser.end();
  flushBlock();
  const title = normalizeText(titleTag).replace(/\n/g, ' ') || firstHeading;
  return { title: title || undefined, blocks };
}

export function parseHtml(bytes: Uint8Array, name: string): ParsedDoc {
  return htmlToParsed(decodeText(bytes, name));
}
