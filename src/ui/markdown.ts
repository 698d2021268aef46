/**
 * Answers written by a model are Markdown, rendered as HTML only after DOMPurify: a model (or a document
 * it quoted) writing `<script>`, `<img onerror>`, `javascript:` links or styles never runs or loads
 * anything. Links are kept only when they point at a source of the answer (the `[n]` citations:
 * `#source-n`, or `#source-n-a-b` for the `[n]` after segments a to b); every other link becomes plain
 * text, so nothing in an answer can take the person elsewhere.
 */
import DOMPurify from 'dompurify';
import { marked } from 'marked';

const ALLOWED_TAGS = ['p', 'br', 'strong', 'em', 'b', 'i', 'code', 'pre', 'ul', 'ol', 'li', 'blockquote', 'h3', 'h4', 'h5', 'h6', 'a', 'span', 'mark', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'del', 'hr'];

let hooked = false;

function purify(html: string): string {
  if (!hooked) {
    DOMPurify.addHook('afterSanitizeAttributes', (node) => {
      if (node.tagName === 'A') {
        const href = node.getAttribute('href') ?? '';
        if (!/^#source-\d+(?:-\d+-\d+)?$/.test(href)) node.removeAttribute('href');
      }
    });
    hooked = true;
  }
  return DOMPurify.sanitize(html, { ALLOWED_TAGS, ALLOWED_ATTR: ['href', 'class'], ALLOW_DATA_ATTR: false });
}

/** Markdown → sanitised HTML (block level: paragraphs, lists, tables). */
export function renderMarkdown(text: string): string {
  return purify(marked.parse(text, { async: false, gfm: true, breaks: false }));
}
