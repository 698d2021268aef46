import JSZip from 'jszip';
import mammoth from 'mammoth';
import { DocQaError } from '../core/errors.ts';
import type { ParsedDoc } from '../core/types.ts';
import { htmlToParsed } from './parse-html.ts';
import { checkDocxSize, type ReadLimits } from './read-limits.ts';

const XML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** The title set in the document's properties (`docProps/core.xml`, `dc:title`), if any. */
async function coreTitle(buffer: ArrayBuffer): Promise<string | undefined> {
  try {
    const core = await (await JSZip.loadAsync(buffer)).file('docProps/core.xml')?.async('string');
    const raw = core && /<dc:title>([^<]*)<\/dc:title>/.exec(core)?.[1];
    const title = raw?.replace(/&(amp|lt|gt|quot|apos);/g, (_, e: string) => XML_ENTITIES[e]!).trim();
    return title || undefined;
  } catch (err) {
    // The title is optional: the first heading or the file name stands in.
    console.warn('Word title property unreadable', err);
    return undefined;
  }
}

/**
 * Word files: mammoth turns the document into semantic HTML (headings kept), then the HTML parser. The
 * title is the document's title property, else its first heading.
 */
export async function parseDocx(bytes: Uint8Array, name: string, limits: ReadLimits): Promise<ParsedDoc> {
  checkDocxSize(bytes, name, limits);
  let html: string;
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  try {
    // The browser build of mammoth reads `arrayBuffer`, the Node build `buffer`; both accept an ArrayBuffer.
    const input = { arrayBuffer: buffer, buffer } as unknown as Parameters<typeof mammoth.convertToHtml>[0];
    // Images are never read: they carry no text, and inflating them only costs memory.
    const result = await mammoth.convertToHtml(input, { convertImage: mammoth.images.imgElement(async () => ({ src: '' })) });
    html = result.value;
  } catch (err) {
    throw new DocQaError('corrupt-file', `${name}: this Word file could not be read; it may be damaged. Open it in Word, save it again, and add it again`, { cause: err });
  }
  const parsed = htmlToParsed(html);
  // Word's own title property wins over the first heading.
  return { ...parsed, title: (await coreTitle(buffer)) ?? parsed.title };
}
