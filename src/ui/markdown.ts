/**
 * Answers written by a model are Markdown, rendered as HTML only after DOMPurify: a model (or a document
 * it quoted) writing `<script>`, `<img onerror>`, `javascript:` links or styles never runs or loads
 * anything. Links are kept only when they point at a source of the answer (the `[n]` citations:
 * `#source-n`, or `#source-n-a-b` for the `[n]` after segments a to b); every other link becomes plain
 * text, so nothing in an answer can take the person elsewhere.
 *
 * Raw HTML in the Markdown is shown as the text it is, except plain tags of the allowed set (`<b>`, `<br>`,
 * the app's own `<span class="unsupported" title="…">`). Reason: DOMPurify parses its input into a document
 * of this page, and Chromium checks that parse against the page's Content-Security-Policy: every event
 * handler attribute, style attribute or `<style>` element in it raises a violation report, at every
 * re-render of a streamed answer, although the sanitiser removes them all. So what DOMPurify parses holds
 * only markup it keeps, and a real violation is not lost among hundreds of harmless ones.
 */
import DOMPurify from 'dompurify';
import { Marked, type Tokens } from 'marked';

const ALLOWED_TAGS = ['p', 'br', 'strong', 'em', 'b', 'i', 'code', 'pre', 'ul', 'ol', 'li', 'blockquote', 'h3', 'h4', 'h5', 'h6', 'a', 'span', 'mark', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'del', 'hr'];
const ALLOWED_ATTR = ['href', 'class', 'title'];

/**
 * A raw tag passed through as HTML: an allowed element, opening or closing, with at most `class` and
 * `title` attributes whose values are double-quoted and hold no markup. Anything else is shown as text.
 */
const PLAIN_TAG = new RegExp(`^<(?:/(?:${ALLOWED_TAGS.join('|')})\\s*|(?:${ALLOWED_TAGS.join('|')})(?:\\s+(?:class|title)="[^"<>&]*")*\\s*/?)>$`, 'i');

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const markdown = new Marked({
  async: false,
  gfm: true,
  breaks: false,
  renderer: {
    html({ text, block }: Tokens.HTML | Tokens.Tag): string {
      if (!block && PLAIN_TAG.test(text.trim())) return text;
      // A raw HTML block (several tags, lines) is a paragraph of its text.
      return block ? `<p>${escapeHtml(text.trim())}</p>\n` : escapeHtml(text);
    },
    // No image is ever shown (the policy allows none from elsewhere): its alternative text stands in.
    image({ text }: Tokens.Image): string {
      return escapeHtml(text);
    },
  },
});

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
  return DOMPurify.sanitize(html, { ALLOWED_TAGS, ALLOWED_ATTR, ALLOW_DATA_ATTR: false });
}

/** Markdown → sanitised HTML (block level: paragraphs, lists, tables). */
export function renderMarkdown(text: string): string {
  return purify(markdown.parse(text, { async: false }));
}
