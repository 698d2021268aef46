import { CELL_SEPARATOR } from '../core/table-cells.ts';
import type { Block, ParsedDoc } from '../core/types.ts';
import { joinParagraphs, normalizeCode, normalizeText, readsAsProse, textToParagraphs } from './clean.ts';
import { parseHtmlWithDepthLimit } from './html-depth-limit.ts';
import { decodeText } from './parse-text.ts';
import { plausibleTitle } from './title.ts';

/** Elements whose content is never text a person reads. Nothing is executed: this is a tokenizer. */
const SKIP = new Set(['script', 'style', 'noscript', 'template', 'svg', 'math', 'iframe', 'object', 'canvas', 'head']);
/**
 * Block-level elements: each starts and ends a paragraph. Every other element (`b`, `i`, `em`, `strong`,
 * `font`, `span`, `a`, `code`, `sup`, `small`, `abbr`, custom elements…) is inline: its text stays in its
 * sentence. `br` is a line break inside the paragraph.
 */
const BLOCKS = new Set([
  'p', 'div', 'li', 'ul', 'ol', 'dl', 'dt', 'dd', 'section', 'article', 'header', 'footer', 'nav', 'aside', 'main',
  'blockquote', 'pre', 'figure', 'figcaption', 'hr', 'address', 'caption', 'details', 'summary', 'fieldset', 'legend',
  'form', 'center', 'menu', 'hgroup', 'dialog', 'search', 'body', 'html',
]);
const HEADING = /^h([1-6])$/;
/** HTML's own whitespace; outside `pre` any run of it, newlines included, is one space. */
const HTML_SPACE = /[ \t\n\r\f]+/g;

/** Navigation and side content: page chrome wherever it is. */
const CHROME = new Set(['nav', 'aside']);
/**
 * The page's banner and footer. Inside `article`, `aside`, `main`, `nav` or `section` they belong to that
 * content (an article's header holds its title and byline) and are kept: the rule ARIA uses to give
 * `header`/`footer` the banner/contentinfo roles.
 */
const PAGE_CHROME = new Set(['header', 'footer']);
const SECTIONING = new Set(['article', 'aside', 'main', 'nav', 'section']);
const CHROME_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'complementary']);

/** Classes that mark a heading's permalink (Sphinx, MkDocs, markdown-it-anchor, anchor.js, Docusaurus, GitHub). */
const PERMALINK_CLASSES = new Set(['headerlink', 'anchor', 'permalink', 'header-anchor', 'heading-anchor', 'anchor-link', 'anchorjs-link', 'hash-link']);
/** The whole text of a permalink or a note's back-link. */
const PERMALINK_TEXT = new Set(['¶', '#', '§', '🔗', '⚓', '↩', '↑', '^', '⇡']);
const VARIATION_SELECTORS = /[\uFE0E\uFE0F]/g;
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
const CLOSING_PUNCTUATION = /^[.,;:!?)\]}»”’]/;

export interface HtmlOptions {
  /** Drop navigation, asides and the page's header and footer. Default true. */
  dropChrome?: boolean;
  /**
   * Which list-item ids are notes (footnotes, endnotes). A note referenced earlier by `<a href="#id">`
   * moves from the list to the end of the section that references it, after "[n]" (the reference's text).
   * Default: none.
   */
  isNote?: (id: string) => boolean;
  /** The file's name: a `<title>` or heading that only repeats it is not a title. Default "". */
  fileName?: string;
}

interface AnchorMark {
  parts: string[];
  at: number;
  byClass: boolean;
  noteRef?: string;
}

interface Frame {
  skip?: boolean;
  sectioning?: boolean;
  pre?: boolean;
  cell?: boolean;
  anchor?: AnchorMark;
  /** A note's list item: where its paragraphs start in the block, and the block it started in. */
  note?: { id: string; from: number; block: number };
}

interface TableState {
  row: string[] | null;
  cell: string[] | null;
}

type Attributes = Record<string, string>;

/** Whether an anchor's collected text is a permalink sign, not words. */
function isPermalink(text: string, byClass: boolean): boolean {
  const t = text.replace(VARIATION_SELECTORS, '').trim();
  return PERMALINK_TEXT.has(t) || (byClass && !LETTER_OR_DIGIT.test(t));
}

function isChrome(name: string, attrs: Attributes, sectioningDepth: number): boolean {
  return CHROME.has(name) || (PAGE_CHROME.has(name) && sectioningDepth === 0) || CHROME_ROLES.has(attrs.role?.trim().toLowerCase() ?? '');
}

/**
 * Walks htmlparser2's events into blocks. Text goes to one sink at a time: the open table cell, else the
 * heading being read, else the paragraph being read. Each of those is a list of parts joined once.
 */
class HtmlWalker {
  readonly blocks: Block[] = [];
  private readonly path: string[] = [];
  private paragraphs: string[] = [];
  /** Which of {@link paragraphs} were `<pre>` (code: `Block.code`); whether the paragraph being read has text from one. */
  private codeParagraphs = new Set<number>();
  private paraInPre = false;
  private para: string[] = [];
  private heading: string[] = [];
  private headingLevel = 0;
  private readonly frames: Frame[] = [];
  private readonly tables: TableState[] = [];
  private skipDepth = 0;
  private sectioningDepth = 0;
  private preDepth = 0;
  private titleParts: string[] = [];
  private inTitle = false;
  /** The document's `<title>` has closed: an SVG's `<title>` further on is not the page's. */
  private titleDone = false;
  /** The first `h1`'s text: the title when `<title>` is missing or not plausible. */
  firstTopHeading: string | undefined;
  private readonly noteRefs = new Map<string, { block: number; label: string }>();
  private readonly notes: { block: number; text: string }[] = [];
  /** The sink a permalink was just dropped from, with the space before it: "Run ¶ it" → "Run it", "Run ¶." → "Run.". */
  private spaceAfterDrop: string[] | undefined;

  constructor(private readonly options: Required<HtmlOptions>) {}

  get title(): string {
    return normalizeText(this.titleParts.join('')).replace(/\n/g, ' ');
  }

  private sink(): string[] {
    return this.tables.at(-1)?.cell ?? (this.headingLevel ? this.heading : this.para);
  }

  private endParagraph(): void {
    const cell = this.tables.at(-1)?.cell;
    if (cell) {
      cell.push(' ');
      return;
    }
    const raw = this.para.join('');
    this.para = [];
    const inPre = this.paraInPre;
    this.paraInPre = false;
    // Prose set in fixed lines (an e-mail or an RFC in <pre>) is read as a text file is: lines re-joined.
    if (inPre && readsAsProse(raw)) {
      this.paragraphs.push(...textToParagraphs(raw));
      return;
    }
    const p = inPre ? normalizeCode(raw) : normalizeText(raw);
    if (p && inPre) this.codeParagraphs.add(this.paragraphs.length);
    if (p) this.paragraphs.push(p);
  }

  private flushBlock(): void {
    this.endParagraph();
    if (this.paragraphs.length) {
      const section = this.path.filter(Boolean).join(' › ');
      this.blocks.push({ label: section || 'beginning', section: section || undefined, ...joinParagraphs(this.paragraphs, this.codeParagraphs) });
    }
    this.paragraphs = [];
    this.codeParagraphs = new Set();
  }

  onopentag(name: string, attrs: Attributes): void {
    if (name === 'title' && !this.titleDone) this.inTitle = true;
    const frame: Frame = {};
    this.frames.push(frame);
    if (this.skipDepth || SKIP.has(name) || (this.options.dropChrome && isChrome(name, attrs, this.sectioningDepth))) {
      frame.skip = true;
      this.skipDepth++;
      return;
    }
    if (SECTIONING.has(name)) {
      frame.sectioning = true;
      this.sectioningDepth++;
    }
    if (name === 'pre') {
      frame.pre = true;
      this.preDepth++;
    }
    const h = HEADING.exec(name);
    if (name === 'a') this.openAnchor(frame, attrs);
    else if (name === 'br') this.sink().push(this.tables.at(-1)?.cell ? ' ' : '\n');
    else if (name === 'table') this.openTable();
    else if (name === 'tr') this.openRow();
    else if (name === 'td' || name === 'th') frame.cell = this.openCell();
    else if (h && this.tables.at(-1)?.cell) this.endParagraph();
    else if (h) {
      this.flushBlock();
      this.headingLevel = Number(h[1]);
      this.heading = [];
    } else if (BLOCKS.has(name)) {
      this.endParagraph();
      if (name === 'li' && attrs.id && this.noteRefs.has(attrs.id)) {
        frame.note = { id: attrs.id, from: this.paragraphs.length, block: this.blocks.length };
      }
    }
  }

  ontext(text: string): void {
    if (this.inTitle) this.titleParts.push(text);
    if (this.skipDepth) return;
    const sink = this.sink();
    const t = this.preDepth ? text : text.replace(HTML_SPACE, ' ');
    if (this.preDepth && sink === this.para && t.trim()) this.paraInPre = true;
    if (this.spaceAfterDrop === sink && !CLOSING_PUNCTUATION.test(t)) sink.push(' ');
    this.spaceAfterDrop = undefined;
    sink.push(t);
  }

  onclosetag(name: string): void {
    if (name === 'title' && this.inTitle) {
      this.inTitle = false;
      this.titleDone = true;
    }
    const frame = this.frames.pop() ?? {};
    if (frame.skip) {
      this.skipDepth--;
      return;
    }
    if (frame.sectioning) this.sectioningDepth--;
    if (frame.pre) this.preDepth--;
    if (frame.anchor) this.closeAnchor(frame.anchor);
    else if (name === 'table') this.closeTable();
    else if (frame.cell) this.closeCell();
    else if (name === 'tr' && this.tables.length) this.closeRow();
    else if (name === 'tr' || name === 'td' || name === 'th') this.endParagraph();
    else if (HEADING.test(name) && this.headingLevel) this.closeHeading();
    else if (BLOCKS.has(name)) {
      this.endParagraph();
      if (frame.note) this.takeNote(frame.note);
    }
  }

  private openAnchor(frame: Frame, attrs: Attributes): void {
    const byClass = (attrs.class ?? '').split(' ').some((c) => PERMALINK_CLASSES.has(c.toLowerCase()));
    const parts = this.sink();
    const href = attrs.href ?? '';
    const noteRef = href.startsWith('#') && this.options.isNote(href.slice(1)) ? href.slice(1) : undefined;
    frame.anchor = { parts, at: parts.length, byClass, noteRef };
  }

  /** Drops a permalink's sign; remembers where a note is referenced, and by which label ("[1]"). */
  private closeAnchor(mark: AnchorMark): void {
    if (this.sink() !== mark.parts) return;
    const text = mark.parts.slice(mark.at).join('');
    if (mark.noteRef) {
      if (!this.noteRefs.has(mark.noteRef)) this.noteRefs.set(mark.noteRef, { block: this.blocks.length, label: normalizeText(text) });
    } else if (isPermalink(text, mark.byClass)) {
      mark.parts.length = mark.at;
      const before = mark.parts.at(-1);
      if (before?.endsWith(' ')) {
        mark.parts[mark.parts.length - 1] = before.trimEnd();
        this.spaceAfterDrop = mark.parts;
      }
    }
  }

  private closeHeading(): void {
    const text = normalizeText(this.heading.join('')).replace(/\n/g, ' ');
    if (text) {
      this.path.length = this.headingLevel - 1;
      this.path[this.headingLevel - 1] = text;
      if (this.headingLevel === 1) this.firstTopHeading ??= text;
    }
    this.headingLevel = 0;
  }

  /** Takes a note's paragraphs out of the flow, to be placed in the section that references it. */
  private takeNote(note: NonNullable<Frame['note']>): void {
    const ref = this.noteRefs.get(note.id);
    if (!ref || note.block !== this.blocks.length) return;
    const text = this.paragraphs.splice(note.from).join(' ');
    for (const i of this.codeParagraphs) if (i >= note.from) this.codeParagraphs.delete(i);
    if (text) this.notes.push({ block: ref.block, text: ref.label ? `${ref.label} ${text}` : text });
  }

  /**
   * The page nested too deep to parse on: what is open is closed (tables, a heading, skipped content) and
   * the rest of the page's paragraphs, read as plain text, join the current section.
   */
  continueAsText(rest: readonly string[]): void {
    while (this.tables.length) this.closeTable();
    if (this.headingLevel) this.closeHeading();
    this.skipDepth = this.preDepth = 0;
    this.inTitle = false;
    this.endParagraph();
    for (const p of rest) this.paragraphs.push(p);
  }

  /** Ends the last block and places the notes. */
  finish(): void {
    this.flushBlock();
    this.placeNotes();
  }

  /** Notes go to the end of the block that references them (the next block with text, if that one had none). */
  private placeNotes(): void {
    for (const { block, text } of this.notes) {
      const target = this.blocks[Math.min(block, this.blocks.length - 1)];
      if (target) target.text += `\n\n${text}`;
    }
  }

  // Tables: one paragraph per row, cells joined by " | " (see docs/decisions/0005-document-structure.md). A table inside a cell is
  // flattened into that cell.
  private openTable(): void {
    if (!this.tables.at(-1)?.cell) this.endParagraph();
    this.tables.push({ row: null, cell: null });
  }

  private openRow(): void {
    const t = this.tables.at(-1);
    if (!t) return this.endParagraph();
    this.closeRow();
    t.row = [];
  }

  private openCell(): boolean {
    const t = this.tables.at(-1);
    if (!t) {
      this.endParagraph();
      return false;
    }
    this.closeCell();
    t.row ??= [];
    t.cell = [];
    return true;
  }

  private closeCell(): void {
    const t = this.tables.at(-1);
    if (!t?.cell) return;
    t.row?.push(normalizeText(t.cell.join('')).replace(/\n/g, ' '));
    t.cell = null;
  }

  private closeRow(): void {
    const t = this.tables.at(-1);
    if (!t?.row) return;
    this.closeCell();
    const row = t.row.some(Boolean) ? t.row.join(CELL_SEPARATOR) : '';
    t.row = null;
    const outer = this.tables.at(-2)?.cell;
    if (!row) return;
    if (outer) outer.push(` ${row} `);
    else if (this.headingLevel) this.heading.push(` ${row} `);
    else {
      this.endParagraph();
      this.paragraphs.push(normalizeText(row));
    }
  }

  private closeTable(): void {
    this.closeRow();
    this.tables.pop();
  }
}

function walk(html: string, options: Required<HtmlOptions>): { blocks: Block[]; title: string; firstTopHeading?: string } {
  const walker = new HtmlWalker(options);
  const events = {
    onopentag: (name: string, attrs: Attributes) => walker.onopentag(name, attrs),
    ontext: (text: string) => walker.ontext(text),
    onclosetag: (name: string) => walker.onclosetag(name),
  };
  parseHtmlWithDepthLimit(html, events, (rest) => walker.continueAsText(rest));
  walker.finish();
  return { blocks: walker.blocks, title: walker.title, firstTopHeading: walker.firstTopHeading };
}

/**
 * Text and heading structure of an HTML string: one block per section, labelled with its heading path.
 * Scripts, styles and other non-text elements are dropped; so is page chrome (navigation, asides, the
 * page's header and footer) unless it is all the text there is.
 *
 * @example htmlToParsed('<h1>Rent</h1><p>The <b>rent</b> is due.</p>').blocks
 *   // → [{ label: 'Rent', section: 'Rent', text: 'The rent is due.' }]
 */
export function htmlToParsed(html: string, options: HtmlOptions = {}): ParsedDoc {
  const opts = { dropChrome: true, isNote: () => false, fileName: '', ...options };
  let result = walk(html, opts);
  if (opts.dropChrome && !result.blocks.length) result = walk(html, { ...opts, dropChrome: false });
  const meta = plausibleTitle(result.title, opts.fileName);
  if (meta) return { title: meta, titleSource: 'metadata', blocks: result.blocks };
  const heading = plausibleTitle(result.firstTopHeading, opts.fileName);
  return { ...(heading && { title: heading, titleSource: 'heading' as const }), blocks: result.blocks };
}

/** HTML: see {@link htmlToParsed}. The title is `<title>` when plausible (`ingest/title.ts`), else the first `h1`. */
export function parseHtml(bytes: Uint8Array, name: string): ParsedDoc {
  return htmlToParsed(decodeText(bytes, name), { fileName: name });
}
