import { DocQaError } from '../core/errors.ts';
import { toPageRanges } from '../core/page-ranges.ts';
import type { Block, ParsedDoc } from '../core/types.ts';
import { linesToParagraphs, removeRunningLines } from './clean.ts';
import { locatePdfAssets, type PdfAssets } from './pdf-assets.ts';
import { isReadable } from './readable.ts';
import { checkPdfPages, DEFAULT_READ_LIMITS, type ReadLimits } from './read-limits.ts';
import { firstPlausibleTitle } from './title.ts';

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
let pdfjsPromise: Promise<PdfJs> | undefined;

/**
 * pdf.js runs in this thread (we are already in a worker, or in Node): registering its worker module as
 * `globalThis.pdfjsWorker` makes it skip spawning a nested worker. The legacy build also runs on Node 20.
 */
function loadPdfJs(): Promise<PdfJs> {
  pdfjsPromise ??= (async () => {
    const worker = await import('pdfjs-dist/legacy/build/pdf.worker.mjs');
    (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = worker;
    return import('pdfjs-dist/legacy/build/pdf.mjs');
  })();
  return pdfjsPromise;
}

interface TextItemLike {
  str: string;
  hasEOL?: boolean;
  transform?: number[];
  height?: number;
}

/**
 * Lines of one page in reading order. A gap between lines much taller than the line height starts a new
 * paragraph (marked by an empty line).
 */
function pageLines(items: TextItemLike[]): string[] {
  const lines: Array<{ text: string; y: number; h: number }> = [];
  // Pieces of the current line, joined once: a line made of thousands of items stays linear.
  let parts: string[] = [];
  let hasText = false;
  let y: number | undefined;
  let h = 0;
  const push = () => {
    if (hasText) lines.push({ text: parts.join('').trim(), y: y ?? 0, h: h || 10 });
    parts = [];
    hasText = false;
    y = undefined;
    h = 0;
  };
  for (const item of items) {
    const iy = item.transform?.[5];
    if (y !== undefined && iy !== undefined && Math.abs(iy - y) > Math.max(2, h * 0.5) && hasText) push();
    if (y === undefined && iy !== undefined) y = iy;
    h = Math.max(h, item.height ?? 0);
    parts.push(item.str);
    hasText ||= item.str.trim() !== '';
    if (item.hasEOL) push();
  }
  push();
  const out: string[] = [];
  lines.forEach((line, i) => {
    const prev = lines[i - 1];
    if (prev && Math.abs(prev.y - line.y) > Math.max(prev.h, line.h) * 1.8) out.push('');
    out.push(line.text);
  });
  return out;
}

/**
 * One block per page with text ("page 3"). A page whose text is symbol garbage ({@link isReadable}: its
 * fonts do not map glyphs to characters) is left out and its number returned, so it is never searched
 * or quoted.
 */
function pageBlocks(pages: string[][]): { blocks: Block[]; unreadable: number[] } {
  const blocks: Block[] = [];
  const unreadable: number[] = [];
  pages.forEach((lines, i) => {
    const text = linesToParagraphs(lines).join('\n\n');
    if (!/\S/.test(text)) return;
    if (isReadable(text)) blocks.push({ label: `page ${i + 1}`, page: i + 1, text });
    else unreadable.push(i + 1);
  });
  return { blocks, unreadable };
}

export interface ParsePdfOptions {
  /**
   * Where pdf.js loads CMaps and standard font data from. Default: `locatePdfAssets()`, the app's own
   * origin in a browser and the installed `pdfjs-dist` in Node. `null` gives pdf.js none, as before CJK
   * support: text in fonts that need a predefined CMap is then lost (tests use it to show that).
   */
  assets?: PdfAssets | null;
  /** Size caps checked before pages are read; default {@link DEFAULT_READ_LIMITS}. */
  limits?: ReadLimits;
}

/**
 * PDF: one block per page ("page 3"), running headers and footers removed, hyphenated line breaks
 * re-joined, unreadable pages left out (`unreadablePages`). The title is the Title of the document
 * information or XMP metadata when plausible (`ingest/title.ts`), never the first line: that is a
 * running header, a journal name or a date as often as a title. Password-protected files, files without
 * a text layer, files with no readable text, and damaged files get a clear error.
 */
export async function parsePdf(bytes: Uint8Array, name: string, onProgress?: (fraction: number) => void, options: ParsePdfOptions = {}): Promise<ParsedDoc> {
  const pdfjs = await loadPdfJs();
  const assets = options.assets === undefined ? locatePdfAssets() : options.assets;
  const task = pdfjs.getDocument({
    data: bytes.slice(),
    ...(assets && { ...assets, cMapPacked: true }),
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    stopAtErrors: false,
    verbosity: 0,
  });
  let doc: Awaited<typeof task.promise>;
  try {
    doc = await task.promise;
  } catch (err) {
    const errName = (err as { name?: string }).name;
    if (errName === 'PasswordException') {
      throw new DocQaError('password-protected', `${name}: password-protected: remove the password and add it again`, { cause: err });
    }
    throw new DocQaError('corrupt-file', `${name}: this PDF could not be read; it may be damaged or not a PDF at all`, { cause: err });
  }
  try {
    checkPdfPages(doc.numPages, name, options.limits ?? DEFAULT_READ_LIMITS);
    const pages: string[][] = [];
    for (let p = 1; p <= doc.numPages; p++) {
      const page = await doc.getPage(p);
      const content = await page.getTextContent();
      pages.push(pageLines(content.items as TextItemLike[]));
      page.cleanup();
      onProgress?.(p / doc.numPages);
    }
    const { blocks, unreadable } = pageBlocks(removeRunningLines(pages));
    if (!blocks.length && unreadable.length) {
      throw new DocQaError(
        'no-readable-text',
        `${name}: no readable text: the PDF's fonts do not map to characters, so its text comes out as symbols. Add the original document (Word, HTML or text) or a PDF made by another program; OCR is not supported`,
      );
    }
    if (!blocks.length) {
      throw new DocQaError('no-text-layer', `${name}: no text layer: OCR is not supported (this looks like a scanned PDF)`);
    }
    const meta = await doc.getMetadata().catch(() => undefined);
    const info = meta?.info as { Title?: unknown } | undefined;
    const title = firstPlausibleTitle([typeof info?.Title === 'string' ? info.Title : undefined, meta?.metadata?.get('dc:title') ?? undefined], name);
    return {
      ...(title && { title, titleSource: 'metadata' as const }),
      pages: doc.numPages,
      blocks,
      ...(unreadable.length && { unreadablePages: toPageRanges(unreadable) }),
    };
  } finally {
    await doc.destroy();
  }
}
