import mammoth from 'mammoth';
import { DocQaError } from '../core/errors.ts';
import type { ParsedDoc } from '../core/types.ts';
import { htmlToParsed } from './parse-html.ts';

/** Word files: mammoth turns the document into semantic HTML (headings kept), then the HTML parser. */
export async function parseDocx(bytes: Uint8Array, name: string): Promise<ParsedDoc> {
  let html: string;
  try {
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    // The browser build of mammoth reads `arrayBuffer`, the Node build `buffer`; both accept an ArrayBuffer.
    const input = { arrayBuffer: buffer, buffer } as unknown as Parameters<typeof mammoth.convertToHtml>[0];
    const result = await mammoth.convertToHtml(input);
    html = result.value;
  } catch {
    throw new DocQaError('corrupt-file', `${name}: this Word file could not be read; it may be damaged. Open it in Word, save it again, and add it again`);
  }
  return htmlToParsed(html);
}
