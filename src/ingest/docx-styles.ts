import { Parser } from 'htmlparser2';
import type JSZip from 'jszip';

/**
 * mammoth's style map on top of its defaults (which map "Heading 1".."Heading 6", in any case, to h1..h6):
 * Word's Title style is the top heading.
 */
export const DOCX_STYLE_MAP = [
  "p[style-name='Title'] => h1:fresh",
  // Code paragraphs ("Code", "Code Block", Word's "HTML Preformatted", "Source Code") become one <pre> per
  // run of them, which the HTML parser keeps as code (`Block.code`).
  "p[style-name^='Code'] => pre:separator('\\n')",
  "p[style-name='HTML Preformatted'] => pre:separator('\\n')",
  "p[style-name='Source Code'] => pre:separator('\\n')",
];

/** Deepest `w:basedOn` chain followed; Word itself nests styles a few levels at most. */
const MAX_BASED_ON = 16;

interface StyleInfo {
  basedOn?: string;
  outline?: number;
}

/**
 * Heading level (1–6) of each paragraph style that has an outline level in `word/styles.xml`, itself or
 * through the styles it is based on: custom heading styles ("Chapter", "Clause Heading") that Word shows
 * in the navigation pane. Outline levels 0–5 are h1–h6, 6–8 are h6, 9 is body text. mammoth does not read
 * outline levels, so these styles would otherwise be plain paragraphs. An outline level set on one
 * paragraph (not through its style) is not seen.
 */
export function outlineLevels(stylesXml: string): Map<string, number> {
  const styles = new Map<string, StyleInfo>();
  let current: StyleInfo | undefined;
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (name === 'w:style' && attrs['w:type'] === 'paragraph' && attrs['w:styleid']) {
          current = {};
          styles.set(attrs['w:styleid'], current);
        } else if (current && name === 'w:basedon') current.basedOn = attrs['w:val'];
        else if (current && name === 'w:outlinelvl') current.outline = Number(attrs['w:val']);
      },
      onclosetag(name) {
        if (name === 'w:style') current = undefined;
      },
    },
    { xmlMode: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(stylesXml);
  parser.end();
  const levels = new Map<string, number>();
  for (const id of styles.keys()) {
    let style = styles.get(id);
    for (let i = 0; style && style.outline === undefined && style.basedOn && i < MAX_BASED_ON; i++) style = styles.get(style.basedOn);
    const outline = style?.outline;
    if (outline !== undefined && Number.isInteger(outline) && outline >= 0 && outline <= 8) levels.set(id, Math.min(outline + 1, 6));
  }
  return levels;
}

/** Fonts whose every letter is as wide as the next (lower case), besides any named "… Mono". */
const MONOSPACE_FONTS = new Set([
  'courier',
  'courier new',
  'consolas',
  'menlo',
  'monaco',
  'lucida console',
  'lucida sans typewriter',
  'cascadia code',
  'fira code',
  'source code pro',
  'inconsolata',
  'hack',
  'ocr a extended',
  'monospace',
]);

/** Whether `font` (a Word font name) is a monospace font: what code pasted into Word is set in. */
function isMonospaceFont(font: string | null | undefined): boolean {
  const name = font?.trim().toLowerCase();
  return !!name && (MONOSPACE_FONTS.has(name) || name.endsWith(' mono'));
}

/** The parts of mammoth's document tree this module reads and writes. */
interface DocElement {
  type?: string;
  styleId?: string | null;
  styleName?: string | null;
  font?: string | null;
  value?: string;
  children?: DocElement[];
}

/** Each run with visible text under `element` (through hyperlinks and the like). */
function textRuns(element: DocElement, into: DocElement[] = []): DocElement[] {
  for (const child of element.children ?? []) {
    if (child.type === 'run') {
      if (child.children?.some((c) => c.type === 'text' && c.value?.trim())) into.push(child);
    } else textRuns(child, into);
  }
  return into;
}

/**
 * Whether a paragraph is code set by hand: every run of its text in a monospace font (code pasted into
 * Word keeps its font, and no style). One monospace word in a sentence is not. A style's own font is
 * not read: documents converted from web pages carry styles in Courier for headlines and news text
 * (seen in Apache POI's test files), while code pasted by hand keeps its font on the runs.
 */
function isMonospaceParagraph(paragraph: DocElement): boolean {
  const runs = textRuns(paragraph);
  return runs.length > 0 && runs.every((run) => isMonospaceFont(run.font));
}

/** Paragraph styles that may hold code set by hand in a monospace font (others map to headings, list items…), lower case. */
const PLAIN_STYLES = new Set(['normal', 'body text', 'default paragraph font', 'plain text', 'no spacing']);

/** Every paragraph under `element`, in document order. */
function paragraphsOf(element: DocElement, into: DocElement[] = []): DocElement[] {
  if (element.type === 'paragraph') into.push(element);
  for (const child of element.children ?? []) paragraphsOf(child, into);
  return into;
}

const textLength = (paragraph: DocElement) => textRuns(paragraph).reduce((n, run) => n + (run.children ?? []).reduce((m, c) => m + (c.value?.length ?? 0), 0), 0);

/**
 * A mammoth `transformDocument` that names each paragraph whose style has an outline level
 * "Heading n", so mammoth's default style map makes it an `hn`; and each plain paragraph set in a
 * monospace font "Code", so the style map makes a run of them one `<pre>` ({@link DOCX_STYLE_MAP}).
 * A document mostly in a monospace font (a filing typed in Courier) is prose: none of it is code then.
 */
export function wordStructure(levels: Map<string, number>): (document: DocElement) => DocElement {
  const levelOf = (p: DocElement) => (p.styleId ? levels.get(p.styleId) : undefined);
  const mayBeCode = (p: DocElement) => (!p.styleName || PLAIN_STYLES.has(p.styleName.toLowerCase())) && isMonospaceParagraph(p);
  return (document) => {
    const body = paragraphsOf(document).filter((p) => !levelOf(p));
    const candidates = body.filter(mayBeCode);
    // Lengths are counted only where there is code to weigh (most documents have none).
    const share = candidates.length ? candidates.reduce((n, p) => n + textLength(p), 0) / Math.max(1, body.reduce((n, p) => n + textLength(p), 0)) : 0;
    const code = new Set(share <= 0.5 ? candidates : []);
    const visit = (element: DocElement): DocElement => {
      if (element.children) element.children = element.children.map(visit);
      const level = element.type === 'paragraph' ? levelOf(element) : undefined;
      if (level) return { ...element, styleName: `Heading ${level}` };
      return code.has(element) ? { ...element, styleName: 'Code' } : element;
    };
    return visit(document);
  };
}

/** Reads `word/styles.xml` from an opened Word file; no styles (or an unreadable part) means no levels. */
export async function readOutlineLevels(zip: JSZip): Promise<Map<string, number>> {
  try {
    const xml = await zip.file('word/styles.xml')?.async('string');
    return xml ? outlineLevels(xml) : new Map();
  } catch (err) {
    console.warn('Word styles unreadable; custom heading styles stay paragraphs', err);
    return new Map();
  }
}
