import JSZip from 'jszip';
import { firstDate, parseIsoDate } from './doc-date.ts';
import mammoth from 'mammoth';
import { DocQaError } from '../core/errors.ts';
import type { ParsedDoc } from '../core/types.ts';
import { DOCX_STYLE_MAP, readOutlineLevels, wordStructure } from './docx-styles.ts';
import { htmlToParsed } from './parse-html.ts';
import { checkDocxSize, type ReadLimits } from './read-limits.ts';
import { checkXmlNesting, isStackOverflow, tooDeeplyNested } from './structure-limits.ts';
import { plausibleTitle } from './title.ts';

const XML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** mammoth's ids for the list items of footnotes and endnotes. */
const NOTE_ID = /^(?:footnote|endnote)-\d+$/;

/** First bytes of an OLE compound file (Word 97–2003, and Office's container for encrypted files). */
const OLE_SIGNATURE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
/** "EncryptedPackage" in UTF-16LE, as a directory entry of an encrypted Office file names its stream. */
const ENCRYPTED_PACKAGE = [...'EncryptedPackage'].flatMap((c) => [c.charCodeAt(0), 0]);

function startsWith(bytes: Uint8Array, prefix: number[], at = 0): boolean {
  return prefix.every((b, i) => bytes[at + i] === b);
}

/**
 * Whether `bytes` hold the UTF-16 name "EncryptedPackage". Scanned rather than read from the compound
 * file's directory (which needs its FAT): the name can only otherwise occur inside ciphertext. Linear:
 * at most 32 comparisons per byte.
 */
function holdsEncryptedPackage(bytes: Uint8Array): boolean {
  for (let i = bytes.indexOf(ENCRYPTED_PACKAGE[0]!); i >= 0; i = bytes.indexOf(ENCRYPTED_PACKAGE[0]!, i + 1)) {
    if (startsWith(bytes, ENCRYPTED_PACKAGE, i)) return true;
  }
  return false;
}

/**
 * A .docx is a ZIP. Word saves a password-protected one as an OLE compound file holding an
 * `EncryptedPackage` stream; an OLE file without one is a Word 97–2003 document named .docx.
 */
function checkNotOle(bytes: Uint8Array, name: string): void {
  if (!startsWith(bytes, OLE_SIGNATURE)) return;
  if (holdsEncryptedPackage(bytes)) {
    throw new DocQaError('password-protected', `${name}: password-protected: remove the password and add it again`);
  }
  throw new DocQaError('unsupported-type', `${name}: this is an older Word 97–2003 document, not a .docx: open it in Word, save it as .docx, and add it again`);
}

/** The text of the first `<name …>text</name>` element of an XML text (plain string search). */
function elementText(xml: string, name: string): string | undefined {
  const open = xml.indexOf(`<${name}`);
  const start = open < 0 ? -1 : xml.indexOf('>', open);
  const end = start < 0 ? -1 : xml.indexOf(`</${name}>`, start);
  return end < 0 ? undefined : xml.slice(start + 1, end);
}

/**
 * The title and date set in the document's properties (`docProps/core.xml`: `dc:title`; `dcterms:modified`,
 * else `dcterms:created`), if any.
 */
async function coreProperties(zip: JSZip | undefined): Promise<{ title?: string; date?: number }> {
  try {
    const core = await zip?.file('docProps/core.xml')?.async('string');
    const raw = core && /<dc:title>([^<]*)<\/dc:title>/.exec(core)?.[1];
    const title = raw?.replace(/&(amp|lt|gt|quot|apos);/g, (_, e: string) => XML_ENTITIES[e]!).trim();
    const modified = core ? elementText(core, 'dcterms:modified') : undefined;
    const created = core ? elementText(core, 'dcterms:created') : undefined;
    return { title: title || undefined, date: firstDate(parseIsoDate(modified), parseIsoDate(created)) };
  } catch (err) {
    // The properties are optional: the first top-level heading or the file name stands in for the title.
    console.warn('Word document properties unreadable', err);
    return {};
  }
}

/**
 * Throws `read-limit` when an XML part nests deeper than the limit ({@link checkXmlNesting}), before
 * mammoth recurses into it. The parts are read one at a time, so only one is in memory at once.
 */
async function checkDocxNesting(zip: JSZip, name: string, limits: ReadLimits): Promise<void> {
  for (const file of Object.values(zip.files)) {
    if (!file.dir && /\.xml$/i.test(file.name)) checkXmlNesting(await file.async('string'), name, limits.maxDocxDepth);
  }
}

async function openZip(buffer: ArrayBuffer): Promise<JSZip | undefined> {
  try {
    return await JSZip.loadAsync(buffer);
  } catch {
    // mammoth reads it next and says the file is damaged.
    return undefined;
  }
}

/**
 * Word files: mammoth turns the document into semantic HTML, then the HTML parser. Headings ("Heading 1"…,
 * Title, and styles with an outline level) become sections, tables rows, and each footnote or endnote
 * moves to the end of the section that references it. The title is the document's title property when
 * plausible (`ingest/title.ts`: Word fills it with "Document1", a template's name…), else its first
 * top-level heading (Title or Heading 1).
 */
export async function parseDocx(bytes: Uint8Array, name: string, limits: ReadLimits): Promise<ParsedDoc> {
  checkNotOle(bytes, name);
  checkDocxSize(bytes, name, limits);
  let html: string;
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const zip = await openZip(buffer);
  if (zip) await checkDocxNesting(zip, name, limits);
  const levels = zip ? await readOutlineLevels(zip) : new Map<string, number>();
  try {
    // The browser build of mammoth reads `arrayBuffer`, the Node build `buffer`; both accept an ArrayBuffer.
    const input = { arrayBuffer: buffer, buffer } as unknown as Parameters<typeof mammoth.convertToHtml>[0];
    const result = await mammoth.convertToHtml(input, {
      styleMap: DOCX_STYLE_MAP,
      transformDocument: wordStructure(levels),
      // Images are never read: they carry no text, and inflating them only costs memory.
      convertImage: mammoth.images.imgElement(async () => ({ src: '' })),
    });
    html = result.value;
  } catch (err) {
    if (isStackOverflow(err)) throw tooDeeplyNested(name, err);
    throw new DocQaError('corrupt-file', `${name}: this Word file could not be read; it may be damaged. Open it in Word, save it again, and add it again`, { cause: err });
  }
  const parsed = htmlToParsed(html, { isNote: (id) => NOTE_ID.test(id), fileName: name });
  // Word's own title property wins over the first heading.
  const properties = await coreProperties(zip);
  const meta = plausibleTitle(properties.title, name);
  const dated = properties.date !== undefined ? { ...parsed, date: properties.date } : parsed;
  return meta ? { ...dated, title: meta, titleSource: 'metadata' } : dated;
}
