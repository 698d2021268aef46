import { DocQaError } from '../core/errors.ts';
import { firstDate, parsePdfDate } from './doc-date.ts';
import { toPageRanges } from '../core/page-ranges.ts';
import type { Block, PageReading, ParsedDoc, ReadProgress, WordBox } from '../core/types.ts';
import { linesToParagraphs, removeRunningLines } from './clean.ts';
import { locatePdfAssets, type PdfAssets } from './pdf-assets.ts';
import { entriesByPage, readOutline, refKey, splitPage, type OutlineEntry } from './pdf-outline.ts';
import { pageLines, type TextItemLike } from './pdf-lines.ts';
import { isReadable } from './readable.ts';
import { checkImagePixels, checkPdfPages, DEFAULT_READ_LIMITS, type ReadLimits } from './read-limits.ts';
import { largestPdfImage } from './ocr/image-header.ts';
import { firstPlausibleTitle } from './title.ts';
import { LOW_CONFIDENCE, readingOf, withLanguages } from './ocr/recognised-page.ts';
import { recogniseUpright } from './ocr/orientation.ts';
import { RecognitionClock } from './ocr/recognition-clock.ts';
import { OffscreenCanvasFactory, renderPageForOcr, type PageCanvasFactory } from './ocr/render-page.ts';
import { leaseOcrEngine } from './ocr/engine-pool.ts';
import type { OcrEngine } from './ocr/tesseract-engine.ts';

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

/** Longest part of a page that joins its neighbour when it has no letter. */
const MAX_STRAY_CHARS = 20;

/**
 * A page's parts with text, a short part without a letter (a page number or a rule above the first
 * heading) joined to the next part, or to the previous when it is the last: alone it would be a chunk
 * nobody searches for. A longer one (a table of figures going on from the page before) keeps its section.
 */
function withoutStrayParts(parts: Array<{ section?: string; text: string }>): Array<{ section?: string; text: string }> {
  const out: Array<{ section?: string; text: string }> = [];
  let pending = '';
  for (const part of parts) {
    if (!/\S/.test(part.text)) continue;
    if (part.text.length <= MAX_STRAY_CHARS && !/\p{L}/u.test(part.text)) pending = pending ? `${pending}\n\n${part.text}` : part.text;
    else {
      out.push(pending ? { ...part, text: `${pending}\n\n${part.text}` } : part);
      pending = '';
    }
  }
  const last = out.at(-1);
  if (pending && last) last.text = `${last.text}\n\n${pending}`;
  else if (pending) out.push({ section: parts.find((p) => /\S/.test(p.text))?.section, text: pending });
  return out;
}

/**
 * Blocks of the pages with text: one per page ("page 3"), or one per section of it when outline entries
 * start on it ({@link splitPage}); each carries the section in force. A page whose text is symbol
 * garbage ({@link isReadable}: its fonts do not map glyphs to characters) is left out whole and its
 * number returned, so it is never searched or quoted. A page read by OCR has its recognised words
 * (`recognisedWords`, by page) on each of its blocks.
 */
function pageBlocks(pages: string[][], byPage: readonly OutlineEntry[][], recognisedWords: ReadonlyMap<number, WordBox[]>): { blocks: Block[]; unreadable: number[] } {
  const blocks: Block[] = [];
  const unreadable: number[] = [];
  let inForce: string | undefined;
  pages.forEach((lines, i) => {
    const page = i + 1;
    const split = splitPage(lines, byPage[page] ?? [], inForce);
    inForce = split.inForce;
    const parts = withoutStrayParts(split.segments.map((s) => ({ section: s.section, text: linesToParagraphs(s.lines).join('\n\n') })));
    if (!parts.length) return;
    if (!isReadable(parts.map((s) => s.text).join('\n\n'))) {
      unreadable.push(page);
      return;
    }
    const words = recognisedWords.get(page);
    for (const { section, text } of parts) blocks.push({ label: `page ${page}`, page, ...(section && { section }), text, ...(words?.length && { words }) });
  });
  return { blocks, unreadable };
}

/** Whether a page paints an image (a scan is one image a page). */
async function paintsImage(page: { getOperatorList(): Promise<{ fnArray: number[] }> }, ops: PdfJs['OPS']): Promise<boolean> {
  const images = new Set([ops.paintImageXObject, ops.paintInlineImageXObject, ops.paintImageMaskXObject, ops.paintImageXObjectRepeat, ops.paintInlineImageXObjectGroup]);
  const { fnArray } = await page.getOperatorList();
  return fnArray.some((fn) => images.has(fn));
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
  /**
   * Starts the OCR engine, the first time a page needs it ({@link needsOcr}); it is closed when the file is
   * read. Default: a tesseract.js engine leased from those kept between files (`ocr/engine-pool.ts`), given
   * back when the file is read. `null`: no OCR, a scanned PDF fails as before.
   */
  ocr?: (() => Promise<OcrEngine>) | null;
  /** Pages already recognised by an earlier read of this file, by page: used as they are, not recognised again. */
  recognised?: ReadonlyMap<number, PageReading>;
  /** Receives each page as OCR finishes it (the library keeps them until the document is stored). */
  onRecognised?: (reading: PageReading) => void;
}

/** Fewest visible characters a page's text layer has for the page not to be read from its image when it paints one. */
const MIN_TEXT_LAYER_CHARS = 20;

/**
 * Whether a page is read by OCR: its text is symbol garbage ({@link isReadable}: its glyphs may still show
 * letters), or it paints an image and has (almost) no text layer: a scanned page, also one with a stamped
 * page or Bates number. A page of a few words and no image (a title page, "Page 7") keeps its text.
 */
async function needsOcr(lines: readonly string[], paintsImage: () => Promise<boolean>): Promise<boolean> {
  const text = lines.join('\n');
  const visible = text.replace(/\s+/gu, '').length;
  if (visible >= MIN_TEXT_LAYER_CHARS) return !isReadable(text);
  return (visible > 0 && !isReadable(text)) || (await paintsImage());
}

/**
 * PDF: one block per page ("page 3"), or per section of a page when the outline (bookmarks) starts
 * sections on it, each block with its outline path as `section` (`pdf-outline.ts`); running headers and
 * footers removed, hyphenated line breaks re-joined, unreadable pages left out (`unreadablePages`). The
 * title is the Title of the document information or XMP metadata when plausible (`ingest/title.ts`), never
 * the first line: that is a running header, a journal name or a date as often as a title.
 * Password-protected files, files without a text layer, files with no readable text, and damaged files
 * get a clear error; a broken outline only costs the sections.
 */
export async function parsePdf(bytes: Uint8Array, name: string, onProgress?: ReadProgress, options: ParsePdfOptions = {}): Promise<ParsedDoc> {
  const pdfjs = await loadPdfJs();
  const assets = options.assets === undefined ? locatePdfAssets() : options.assets;
  const task = pdfjs.getDocument({
    data: bytes.slice(),
    ...(assets && { ...assets, cMapPacked: true }),
    isEvalSupported: false,
    // An image over the pixel limit is left out by pdf.js before it is decoded (a 40,000 × 40,000 page
    // image in a few kilobytes would take gigabytes); the file then says why it gave no text.
    maxImageSize: (options.limits ?? DEFAULT_READ_LIMITS).maxImagePixels,
    // In the parse worker pdf.js has no `document` to make canvases with (OCR renders pages).
    ...(!('document' in globalThis) && typeof OffscreenCanvas !== 'undefined' && { CanvasFactory: OffscreenCanvasFactory }),
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
    // Outline destinations name pages by reference: the pages' own, gathered while reading them.
    const pageOfRef = new Map<string, number>();
    const startOcr = options.ocr === undefined ? leaseOcrEngine : options.ocr;
    let ocr: Promise<OcrEngine> | undefined;
    const recognised: number[] = [];
    const readings: PageReading[] = [];
    const lowConfidence: number[] = [];
    const recognisedWords = new Map<number, WordBox[]>();
    const clock = new RecognitionClock(doc.numPages);
    try {
      for (let p = 1; p <= doc.numPages; p++) {
        const page = await doc.getPage(p);
        const ref = refKey(page.ref);
        if (ref) pageOfRef.set(ref, p);
        const content = await page.getTextContent();
        let lines = pageLines(content.items as TextItemLike[], content.styles);
        if (startOcr && (await needsOcr(lines, () => paintsImage(page, pdfjs.OPS)))) {
          let reading = options.recognised?.get(p);
          if (!reading) {
            ocr ??= startOcr();
            clock.start();
            onProgress?.((p - 1) / doc.numPages, clock.at(p, 0));
            const engine = await ocr;
            const image = await renderPageForOcr(page as never, doc.canvasFactory as PageCanvasFactory);
            reading = readingOf(p, await recogniseUpright(engine, image, (f) => onProgress?.((p - 1 + f) / doc.numPages, clock.at(p, f))), engine.languages);
            clock.finish();
            options.onRecognised?.(reading);
          }
          // What OCR makes of a page of symbols is no better than its text layer: the page stays unreadable.
          if (reading.lines) {
            lines = reading.lines;
            readings.push(reading);
            recognised.push(p);
            recognisedWords.set(p, reading.words);
            if (reading.confidence < LOW_CONFIDENCE) lowConfidence.push(p);
          }
        }
        pages.push(lines);
        page.cleanup();
        onProgress?.(p / doc.numPages);
      }
    } finally {
      if (ocr) await ocr.then((engine) => engine.close(), () => undefined);
    }
    const outline = await readOutline(doc, pageOfRef, doc.numPages);
    const { blocks, unreadable } = pageBlocks(removeRunningLines(pages), entriesByPage(outline, doc.numPages), recognisedWords);
    if (!blocks.length && unreadable.length) {
      throw new DocQaError(
        'no-readable-text',
        `${name}: no readable text: the PDF's fonts do not map to characters, so its text comes out as symbols. Add the original document (Word, HTML or text) or a PDF made by another program`,
      );
    }
    if (!blocks.length) {
      const image = largestPdfImage(bytes);
      if (image) checkImagePixels(image.width, image.height, name, options.limits ?? DEFAULT_READ_LIMITS);
      throw new DocQaError('no-text-layer', `${name}: no text found: the PDF has no text layer and no text was recognised on its pages`);
    }
    const meta = await doc.getMetadata().catch(() => undefined);
    const info = meta?.info as { Title?: unknown; ModDate?: unknown; CreationDate?: unknown } | undefined;
    const date = firstDate(parsePdfDate(info?.ModDate), parsePdfDate(info?.CreationDate));
    const title = firstPlausibleTitle([typeof info?.Title === 'string' ? info.Title : undefined, meta?.metadata?.get('dc:title') ?? undefined], name);
    return {
      ...(title && { title, titleSource: 'metadata' as const }),
      pages: doc.numPages,
      ...(date !== undefined && { date }),
      blocks,
      ...(unreadable.length && { unreadablePages: toPageRanges(unreadable) }),
      ...(recognised.length && { recognisedPages: toPageRanges(recognised) }),
      ...(lowConfidence.length && { lowConfidencePages: toPageRanges(lowConfidence) }),
      ...withLanguages(readings),
    };
  } finally {
    await doc.destroy();
  }
}
