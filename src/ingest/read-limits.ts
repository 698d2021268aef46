import { DocQaError } from '../core/errors.ts';
import { readZipDirectory } from '../core/zip-directory.ts';

/**
 * Caps checked before a parser decompresses or walks a file, so a small hostile file (a ZIP bomb, a
 * PDF with a million pages) fails with a message instead of exhausting memory. The parse watchdog
 * (`library/parse-watchdog`) is the backstop for what cannot be known in advance.
 */
export interface ReadLimits {
  /**
   * Most bytes the XML parts of a Word file may expand to, summed from its ZIP directory. mammoth builds a
   * tree of the whole XML (roughly 10–20× its size in memory). Default 64 MB: a 600-page book is ~10 MB.
   */
  maxDocxXmlBytes: number;
  /** Most pages read from one PDF. Default 10,000. */
  maxPdfPages: number;
  /**
   * Most XML elements open at once in a part of a Word file (tables in tables, hyperlinks in hyperlinks…):
   * mammoth recurses on each. Default 256 (real documents nest a few dozen deep; mammoth ran out of stack
   * past ~1,000). See `structure-limits.ts`.
   */
  maxDocxDepth: number;
  /**
   * Most pixels of an image file, read from its header before it is decoded (4 bytes a pixel once
   * decoded). Default 64 million: a phone's photo is 12–50, an A4 page scanned at 600 dpi 35.
   */
  maxImagePixels: number;
}

export const DEFAULT_READ_LIMITS: ReadLimits = { maxDocxXmlBytes: 64 * 2 ** 20, maxPdfPages: 10_000, maxDocxDepth: 256, maxImagePixels: 64_000_000 };

/** Limits when the person insists ("Try again" on a file that was too large or too slow): four times larger. */
export function relaxedLimits(limits: ReadLimits): ReadLimits {
  return { maxDocxXmlBytes: limits.maxDocxXmlBytes * 4, maxPdfPages: limits.maxPdfPages * 4, maxDocxDepth: limits.maxDocxDepth * 4, maxImagePixels: limits.maxImagePixels * 4 };
}

const megabytes = (n: number) => `${Math.round(n / 2 ** 20)} MB`;

/** Throws `too-large` when a DOCX's XML would expand past the limit; leaves unreadable ZIPs to the parser. */
export function checkDocxSize(bytes: Uint8Array, name: string, limits: ReadLimits): void {
  const entries = readZipDirectory(bytes);
  if (!entries) return;
  const xml = entries.filter((e) => /\.(xml|rels)$/i.test(e.name)).reduce((sum, e) => sum + e.uncompressedSize, 0);
  if (xml > limits.maxDocxXmlBytes) {
    throw new DocQaError(
      'read-limit',
      `${name}: too large to read here: its text expands to ${megabytes(xml)} (the limit is ${megabytes(limits.maxDocxXmlBytes)}). Split it into smaller files, or press Try again to insist`,
    );
  }
}

/** Throws `too-large` when a PDF has more pages than the limit. */
export function checkPdfPages(pages: number, name: string, limits: ReadLimits): void {
  if (pages > limits.maxPdfPages) {
    throw new DocQaError(
      'read-limit',
      `${name}: too large to read here: ${pages.toLocaleString('en')} pages (the limit is ${limits.maxPdfPages.toLocaleString('en')}). Split it into smaller files, or press Try again to insist`,
    );
  }
}

/** Throws `read-limit` when an image has more pixels than the limit (its size read from its header). */
export function checkImagePixels(width: number, height: number, name: string, limits: ReadLimits): void {
  if (width * height > limits.maxImagePixels) {
    throw new DocQaError(
      'read-limit',
      `${name}: too large to read here: ${width.toLocaleString('en')} × ${height.toLocaleString('en')} pixels (the limit is ${Math.round(limits.maxImagePixels / 1e6)} megapixels). Scale the image down, or press Try again to insist`,
    );
  }
}
