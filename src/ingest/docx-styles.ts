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

/** The parts of mammoth's document tree this module reads and writes. */
interface DocElement {
  type?: string;
  styleId?: string | null;
  styleName?: string | null;
  children?: DocElement[];
}

/**
 * A mammoth `transformDocument` that names each paragraph whose style has an outline level
 * "Heading n", so mammoth's default style map makes it an `hn`.
 */
export function headingsByOutline(levels: Map<string, number>): (document: DocElement) => DocElement {
  const visit = (element: DocElement): DocElement => {
    if (element.children) element.children = element.children.map(visit);
    const level = element.type === 'paragraph' && element.styleId ? levels.get(element.styleId) : undefined;
    return level ? { ...element, styleName: `Heading ${level}` } : element;
  };
  return visit;
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
