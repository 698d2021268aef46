import { DocQaError } from '../core/errors.ts';
import type { Block, ParsedDoc } from '../core/types.ts';
import { linesToParagraphs, removeRunningLines } from './clean.ts';
import { locatePdfAssets, type PdfAssets } from './pdf-assets.ts';
import { checkPdfPages, DEFAULT_READ_LIMITS, type ReadLimits } from './read-limits.ts';

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
 * re-joined. Password-protected files, files without a text layer, and damaged files get a clear error.
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
    const cleaned = removeRunningLines(pages);
    const blocks: Block[] = [];
    cleaned.forEach((lines, i) => {
      const paragraphs = linesToParagraphs(lines);
      if (paragraphs.length) blocks.push({ label: `page ${i + 1}`, page: i + 1, text: paragraphs.join('\n\n') });
    });
    if (!blocks.some((b) => /\S/.test(b.text))) {
      throw new DocQaError('no-text-layer', `${name}: no text layer: OCR is not supported (this looks like a scanned PDF)`);
    }
    const info = (await doc.getMetadata().catch(() => undefined))?.info as { Title?: unknown } | undefined;
    const metaTitle = typeof info?.Title === 'string' ? info.Title.trim() : '';
    return { title: metaTitle || blocks[0]?.text.split('\n')[0]?.slice(0, 120), pages: doc.numPages, blocks };
  } finally {
    await doc.destroy();
  }
}
