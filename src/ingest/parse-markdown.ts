import { CELL_SEPARATOR } from '../core/table-cells.ts';
import { Lexer, type Token, type Tokens } from 'marked';
import type { Block, ParsedDoc } from '../core/types.ts';
import { joinLines, joinParagraphs, normalizeCode, normalizeText, textToParagraphs } from './clean.ts';
import { htmlPieces } from './markdown-html.ts';
import { dropDirectiveLines, dropDirectives, inlinePieces, InlineReducer } from './markdown-inline.ts';
import { decodeText } from './parse-text.ts';
import { capContainerPrefix, MAX_QUOTE_RETURNS } from './structure-limits.ts';
import { plausibleTitle, titleOfMarkdownHeading } from './title.ts';

/**
 * Markdown through marked's lexer (CommonMark + GFM tables), walked token by token: the text is what a
 * reader of the rendered page sees, one block per section labelled by its heading path. See docs/decisions/0005-document-structure.md.
 */

/** `title: x` (YAML) or `title = "x"` (TOML); the value is sliced off, not matched (`\s*(.*)` is quadratic). */
const FRONT_MATTER_TITLE = /^title[ \t]*[:=]/;

/**
 * YAML (`---`) or TOML (`+++`) front matter at the very top: its lines are dropped, its `title` kept
 * (a static-site page often has no `#` heading: the layout prints the front matter's title).
 */
export function splitFrontMatter(source: string): { body: string; title?: string } {
  const fence = source.startsWith('---\n') ? '---' : source.startsWith('+++\n') ? '+++' : undefined;
  if (!fence) return { body: source };
  const lines = source.split('\n');
  const end = lines.findIndex((line, i) => i > 0 && (line.trimEnd() === fence || (fence === '---' && line.trimEnd() === '...')));
  if (end < 0) return { body: source };
  let title: string | undefined;
  for (const line of lines.slice(1, end)) {
    const m = FRONT_MATTER_TITLE.exec(line.trim());
    if (m && title === undefined) title = unquote(line.trim().slice(m[0].length).trim()) || undefined;
  }
  // Blank lines keep the body's line count.
  return { body: '\n'.repeat(end + 1) + lines.slice(end + 1).join('\n'), title };
}

function unquote(value: string): string {
  const q = value[0];
  return (q === '"' || q === "'") && value.endsWith(q) && value.length > 1 ? value.slice(1, -1) : value;
}

/** Lazy continuation lines of one list item before a blank line is put in; see {@link guardSource}. */
const MAX_LAZY_LINES = 256;
const LIST_MARKER = /^ {0,3}(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)/;
const QUOTE_PREFIX = /^(?: {0,3}>[ \t]?)+/;
const FENCE = /^ {0,3}(?:```|~~~)/;

/**
 * The source with the shapes marked takes super-linear time or memory on made harmless, leaving the text:
 * - a list item's lazy continuation lines (not indented): marked re-reads the item's text on each one,
 *   quadratic (20k lines: 7.7 s); after {@link MAX_LAZY_LINES} of them a blank line ends the item, so the
 *   rest is a paragraph of its own;
 * - deep nesting: marked lexes a quote's or list item's text again at each level, so 1,000 nested list
 *   levels took 9.5 s, and 2,000 lines each one quote deeper 2.7 GB. Each line's markers and indentation
 *   are capped ({@link capContainerPrefix}): deeper quotes and lists read as text at the deepest level kept;
 * - a quote whose depth keeps falling (lazy lines, `>>` after `>>>`): marked lexes the rest of the quote
 *   again each time, quadratic (40k lines alternating `> a` and `b`: 9.4 s); after
 *   {@link MAX_QUOTE_RETURNS} falls a blank line ends the quote.
 */
export function guardSource(source: string): string {
  const lines = source.split('\n');
  const out: string[] = [];
  let inFence = false;
  let lazy = -1; // lazy lines since the last list marker, -1 outside a list item
  let quoteDepth = 0; // `>` markers of the line before, 0 after a blank line
  let returns = 0; // times the depth fell since the last blank line
  for (let line of lines) {
    line = capContainerPrefix(line);
    const quote = QUOTE_PREFIX.exec(line)?.[0] ?? '';
    const content = line.slice(quote.length);
    const depth = quote.split('>').length - 1;
    if (!line.trim()) returns = 0;
    else if (depth < quoteDepth && ++returns > MAX_QUOTE_RETURNS) {
      out.push('');
      returns = 0;
    }
    quoteDepth = line.trim() ? depth : 0;
    if (FENCE.test(content)) inFence = !inFence;
    if (inFence || !content.trim()) lazy = -1;
    else if (LIST_MARKER.test(content)) lazy = 0;
    else if (lazy >= 0 && !/^[ \t]/.test(content) && ++lazy > MAX_LAZY_LINES) {
      out.push(quote.trimEnd());
      lazy = -1;
    }
    out.push(line);
  }
  return out.join('\n');
}

/**
 * Where marked's inline lexer (GFM) could find anything but text: the characters that start an escape,
 * a tag or autolink, a link or image, emphasis, strikethrough or a code span; a character reference
 * (`&`, which it decodes); a hard line break (two spaces before a newline); a URL or e-mail address.
 * Inline source without any of them lexes to text that is the source itself.
 */
const INLINE_SYNTAX = /[\\<![`*_~&@]| {2}\n|:\/\/|www\./i;

/** Whether marked's inline lexer gives `src` back as one run of text, itself ({@link INLINE_SYNTAX}). */
export function isPlainInline(src: string): boolean {
  return !INLINE_SYNTAX.test(src);
}

/**
 * Block tokens with their inline tokens, the inline lexer run on bounded pieces ({@link inlinePieces}).
 * Inline source without {@link INLINE_SYNTAX} (most prose) becomes its text token without the lexer:
 * marked's inline rules took about a quarter of the time parsing SciFact's records.
 * Throws RangeError when nesting is deep enough to exhaust the stack (10k `> ` or `1. ` in a row).
 */
function lex(source: string): Token[] {
  const lexer = new Lexer({ gfm: true });
  const tokens = lexer.blockTokens(source, lexer.tokens);
  for (const { src, tokens: inline } of lexer.inlineQueue) {
    if (isPlainInline(src)) {
      if (src) inline.push({ type: 'text', raw: src, text: src, escaped: false });
      continue;
    }
    for (const piece of inlinePieces(src)) {
      lexer.state.inRawBlock = false;
      lexer.inlineTokens(piece, inline);
    }
  }
  lexer.inlineQueue = [];
  return tokens;
}

/**
 * A footnote mark, "[^1]" or "[^note]" (GFM): a reference, unless a colon follows (a definition, "[^1]: …";
 * checked in code: recheck cannot decide the pattern with a lookahead in reasonable time).
 */
const FOOTNOTE_REF = /\[\^([^\][\s]+)\]/g;
const isDefinition = (text: string, at: number) => text[at] === ':';
/** A paragraph that starts with a footnote definition. */
const FOOTNOTE_DEF_START = /^\[\^[^\][\s]+\]:/;
/** Each definition of a definitions paragraph (soft line breaks are spaces by now). */
const FOOTNOTE_DEF = /(?:^|\s)\[\^([^\][\s]+)\]:[ \t]*/g;

/** The footnotes a source refers to: only their definitions move to where they are referenced. */
function referencedFootnotes(source: string): Set<string> {
  const labels = new Set<string>();
  for (const m of source.matchAll(FOOTNOTE_REF)) if (!isDefinition(source, m.index + m[0].length)) labels.add(m[1]!);
  return labels;
}

/**
 * Collects paragraphs into blocks, one per section, as the token walk meets headings. GFM footnotes:
 * references ("[^1]") are dropped from the text, and a referenced note's text joins the section that
 * first refers to it (as Word's and HTML's notes do), wherever its definition stands.
 */
class MarkdownWalker {
  readonly blocks: Block[] = [];
  /** The first top-level heading that reads as a title (never a row of badges): see `title.ts`. */
  title: string | undefined;
  private readonly path: string[] = [];
  private paragraphs: string[] = [];
  /** Which of {@link paragraphs} are code blocks (`Block.code`). */
  private codeParagraphs = new Set<number>();
  private readonly inline = new InlineReducer();
  /** Footnote label → the index of the block that first refers to it (the block being collected then). */
  private readonly noteBlock = new Map<string, number>();
  /** Referenced footnotes' texts, placed by {@link finish}. */
  private readonly notes: Array<{ label: string; text: string }> = [];

  constructor(
    private readonly fileName: string,
    private readonly referenced: ReadonlySet<string> = new Set(),
  ) {}

  walk(tokens: readonly Token[], nested = false): void {
    for (const token of tokens) this.block(token, nested);
  }

  private block(token: Token, nested: boolean): void {
    switch (token.type) {
      case 'heading':
        if (nested) this.paragraph(this.inlineText(token.tokens));
        else {
          this.heading(token.depth, this.inlineText(token.tokens));
          if (token.depth === 1) this.title ??= titleOfMarkdownHeading(token.text, this.fileName);
        }
        break;
      case 'paragraph':
      case 'text':
        this.paragraph(token.tokens ? this.inlineText(token.tokens) : dropDirectives(token.text));
        break;
      case 'code': {
        const p = normalizeCode(dropDirectiveLines(token.text));
        if (p) {
          this.codeParagraphs.add(this.paragraphs.length);
          this.paragraphs.push(p);
        }
        break;
      }
      case 'table':
        this.table(token as Tokens.Table);
        break;
      case 'list':
        for (const item of (token as Tokens.List).items) this.walk(item.tokens, true);
        break;
      case 'blockquote':
        this.walk(token.tokens ?? [], true);
        break;
      case 'html':
        for (const piece of htmlPieces(token.text)) {
          if (piece.level && !nested) {
            this.heading(piece.level, piece.text);
            if (piece.level === 1) this.title ??= plausibleTitle(piece.text, this.fileName);
          }
          else this.paragraph(piece.text);
        }
        break;
      default: // space, hr, def (reference definitions), checkbox: no text
    }
  }

  /**
   * Inline tokens as one paragraph's text, not yet cleaned: soft line breaks joined (re-joining hyphenated
   * words), hard ones kept (cleaning turns them into newlines).
   */
  private inlineText(tokens: readonly Token[] = []): string {
    const text = this.inline.reduce(tokens);
    return text.includes('\n') ? joinLines(text.split('\n')) : text;
  }

  private paragraph(text: string): void {
    if (FOOTNOTE_DEF_START.test(text)) return this.footnotes(text);
    if (text.includes('[^')) {
      text = text.replace(FOOTNOTE_REF, (mark: string, label: string, at: number, whole: string) => {
        if (isDefinition(whole, at + mark.length)) return mark;
        if (!this.noteBlock.has(label)) this.noteBlock.set(label, this.blocks.length);
        return '';
      });
    }
    const p = normalizeText(text);
    if (p) this.paragraphs.push(p);
  }

  /** A paragraph of footnote definitions: referenced ones are kept for {@link finish}, others stay here. */
  private footnotes(text: string): void {
    const defs = [...text.matchAll(FOOTNOTE_DEF)];
    defs.forEach((m, i) => {
      const body = text.slice(m.index + m[0].length, defs[i + 1]?.index ?? text.length);
      if (this.referenced.has(m[1]!)) this.notes.push({ label: m[1]!, text: body });
      else this.paragraph(body);
    });
  }

  private heading(level: number, text: string): void {
    const t = normalizeText(text.replace(FOOTNOTE_REF, '')).replace(/\n/g, ' ');
    if (!t) return;
    this.flush();
    // A note referred to from a heading belongs to the section the heading starts.
    for (const m of text.matchAll(FOOTNOTE_REF)) if (!this.noteBlock.has(m[1]!)) this.noteBlock.set(m[1]!, this.blocks.length);
    this.path.length = level - 1;
    this.path[level - 1] = t;
  }

  /** Each row one paragraph, cells joined by " | " as in HTML tables; rows with no text are dropped. */
  private table(table: Tokens.Table): void {
    for (const row of [table.header, ...table.rows]) {
      const cells = row.map((cell) => normalizeText(this.inlineText(cell.tokens)).replace(/\n/g, ' '));
      if (cells.some(Boolean)) this.paragraph(cells.join(CELL_SEPARATOR));
    }
  }

  /** Ends the walk: the last section's block, then each referenced note in the block that refers to it. */
  finish(): void {
    this.flush();
    for (const note of this.notes) {
      const text = normalizeText(note.text.replace(FOOTNOTE_REF, ''));
      const block = this.blocks[this.noteBlock.get(note.label) ?? this.blocks.length - 1];
      if (!text) continue;
      if (block) block.text += `\n\n${text}`;
      else this.blocks.push({ label: 'beginning', text });
    }
  }

  flush(): void {
    if (this.paragraphs.length) {
      const section = this.path.filter(Boolean).join(' › ');
      this.blocks.push({ label: section || 'beginning', section: section || undefined, ...joinParagraphs(this.paragraphs, this.codeParagraphs) });
    }
    this.paragraphs = [];
    this.codeParagraphs = new Set();
  }
}

/**
 * Markdown: one block per section, labelled with its heading path ("Setup › Install"); the title is the
 * front matter's `title`, else the first heading. Inline markup is reduced to its text (links to their
 * text, images to their alt text, reference definitions dropped), raw HTML to its text, template
 * directives (`{{…}}`, `{% … %}`) are dropped, code blocks are kept as text, table rows are ' | ' lines.
 *
 * @example parseMarkdown(enc('# Rent\n\nThe **rent** is [due][d].\n\n[d]: http://x'), 'a.md').blocks
 *   // → [{ label: 'Rent', section: 'Rent', text: 'The rent is due.' }]
 */
export function parseMarkdown(bytes: Uint8Array, name: string): ParsedDoc {
  const { body, title } = splitFrontMatter(decodeText(bytes, name).replace(/\r\n?/g, '\n'));
  let tokens: Token[];
  try {
    tokens = lex(guardSource(body));
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    // Nesting too deep for the lexer's recursion: read as plain text rather than lose the file.
    const text = textToParagraphs(body).join('\n\n');
    return { title, blocks: text ? [{ label: 'beginning', text }] : [] };
  }
  const walker = new MarkdownWalker(name, referencedFootnotes(body));
  walker.walk(tokens);
  walker.finish();
  return { title: title ?? walker.title, blocks: walker.blocks };
}
