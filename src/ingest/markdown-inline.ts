import { decodeHTML } from 'entities';
import type { Token } from 'marked';
import { isSkipped, tagName } from './markdown-html.ts';

/**
 * Inline Markdown reduced to the words a person reads: emphasis, code spans, link text (inline,
 * reference and autolinks), image alt text, raw inline HTML without its tags, template directives
 * dropped. Works on marked's inline tokens.
 */

/** A hard line break (`<br>`, two trailing spaces, a backslash) until cleaning makes it a newline. */
export const HARD_BREAK = '\u2028';

/** mdBook's own directives: a code block made of `{{#include file.rs}}` lines holds no code of its own. */
const MDBOOK_DIRECTIVE = /^\s*\{\{#(include|rustdoc_include|playground|playpen|title)\b[^{}]*\}\}\s*$/;

/**
 * Text without template directives: `{{ … }}` (mdBook, Handlebars, Jinja, Liquid output) and `{% … %}`
 * (Jinja, Liquid tags). One left-to-right scan with `indexOf`: once a closing mark is missing, none
 * follows, so a long run of `{{` costs one pass.
 */
export function dropDirectives(text: string): string {
  if (!text.includes('{')) return text;
  const out: string[] = [];
  let at = 0;
  for (;;) {
    const a = text.indexOf('{{', at);
    const b = text.indexOf('{%', at);
    const open = a < 0 ? b : b < 0 ? a : Math.min(a, b);
    if (open < 0) break;
    const close = text.indexOf(open === a ? '}}' : '%}', open + 2);
    if (close < 0) break;
    out.push(text.slice(at, open));
    at = close + 2;
  }
  out.push(text.slice(at));
  return out.join('');
}

/** A code block's lines without mdBook's directive lines. */
export function dropDirectiveLines(code: string): string {
  return code.includes('{{#') ? code.split('\n').filter((line) => !MDBOOK_DIRECTIVE.test(line)).join('\n') : code;
}

/** Options bounding how much marked's inline lexer sees at once; see {@link inlinePieces}. */
export interface PieceLimits {
  /** Characters per piece. Default 4096. */
  maxChars: number;
  /** Emphasis delimiter characters (`*`, `_`, `~`) per piece. Default 64. */
  maxDelimiters: number;
}

export const DEFAULT_PIECE_LIMITS: PieceLimits = { maxChars: 4096, maxDelimiters: 64 };

const isDelimiter = (c: number) => c === 42 || c === 95 || c === 126; // * _ ~
const isSpace = (c: number) => c === 32 || c === 10 || c === 9;
const isLowSurrogate = (c: number) => c >= 0xdc00 && c <= 0xdfff;

/**
 * Inline source cut into pieces that marked's inline lexer handles in bounded time. Its emphasis rule
 * scans ahead from every `*`/`_` for a closing one, so a paragraph of 40k characters of `*a_` took 40 s
 * (quadratic); bounding the delimiters and characters per piece makes the whole linear. Pieces end after
 * the last space before the limit where there is one, so links and emphasis in ordinary prose are never
 * cut: only paragraphs of more than 4096 characters or 64 delimiters are cut at all.
 */
export function inlinePieces(src: string, limits: PieceLimits = DEFAULT_PIECE_LIMITS): string[] {
  if (src.length <= Math.min(limits.maxChars, limits.maxDelimiters)) return [src];
  const pieces: string[] = [];
  let start = 0;
  let delimiters = 0;
  let lastSpace = -1;
  for (let i = 0; i < src.length; i++) {
    const c = src.charCodeAt(i);
    if (isDelimiter(c)) delimiters++;
    else if (isSpace(c)) lastSpace = i;
    if (i - start + 1 < limits.maxChars && delimiters <= limits.maxDelimiters) continue;
    let cut = lastSpace > start ? lastSpace + 1 : i + 1;
    if (cut < src.length && isLowSurrogate(src.charCodeAt(cut))) cut--;
    if (cut <= start) cut = i + 1;
    pieces.push(src.slice(start, cut));
    start = cut;
    i = cut - 1;
    delimiters = 0;
    lastSpace = -1;
  }
  if (start < src.length) pieces.push(src.slice(start));
  return pieces;
}

/** Walks inline tokens into text; tracks raw `<script>`/`<style>` spans, whose content is dropped. */
export class InlineReducer {
  private skipDepth = 0;

  /** The text of inline tokens (not yet cleaned: may hold newlines and {@link HARD_BREAK}). */
  reduce(tokens: readonly Token[]): string {
    this.skipDepth = 0;
    const parts: string[] = [];
    this.walk(tokens, parts);
    return parts.join('');
  }

  private walk(tokens: readonly Token[], parts: string[]): void {
    for (const token of tokens) {
      if (token.type === 'html') {
        this.tag(token.text, parts);
        continue;
      }
      if (this.skipDepth) continue;
      switch (token.type) {
        case 'text':
          if (token.tokens?.length) this.walk(token.tokens, parts);
          else parts.push(dropDirectives(token.text.includes('&') ? decodeHTML(token.text) : token.text));
          break;
        case 'escape':
        case 'codespan':
          parts.push(token.text);
          break;
        case 'image':
          parts.push(decodeHTML(token.text));
          break;
        case 'br':
          parts.push(HARD_BREAK);
          break;
        case 'checkbox':
          break;
        default:
          if ('tokens' in token && token.tokens) this.walk(token.tokens, parts);
          else if ('text' in token && typeof token.text === 'string') parts.push(token.text);
      }
    }
  }

  /** An inline HTML tag or comment: `<br>` is a line break, script-like elements hide their content. */
  private tag(html: string, parts: string[]): void {
    const tag = tagName(html);
    if (!tag) return; // a comment, a processing instruction, CDATA
    if (isSkipped(tag.name)) {
      if (tag.closing) this.skipDepth = Math.max(0, this.skipDepth - 1);
      else if (!html.trimEnd().endsWith('/>')) this.skipDepth++;
    } else if (tag.name === 'br' && !this.skipDepth) parts.push(HARD_BREAK);
  }
}
