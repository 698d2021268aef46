import { DocQaError } from '../core/errors.ts';
import type { ParsedDoc, ReadProgress } from '../core/types.ts';
import { linesToParagraphs } from './clean.ts';
import { imageToPgm } from './ocr/decode-image.ts';
import { isBigTiff, isTiff, readImageHeader } from './ocr/image-header.ts';
import { recogniseUpright } from './ocr/orientation.ts';
import { RecognitionClock } from './ocr/recognition-clock.ts';
import { acceptedLines, LOW_CONFIDENCE, pageWords } from './ocr/recognised-page.ts';
import { MAX_OCR_PIXELS } from './ocr/render-page.ts';
import { leaseOcrEngine } from './ocr/engine-pool.ts';
import type { OcrEngine } from './ocr/tesseract-engine.ts';
import { checkImagePixels, DEFAULT_READ_LIMITS, type ReadLimits } from './read-limits.ts';
import { parseTiff, type ParseTiffOptions } from './parse-tiff.ts';

export interface ParseImageOptions extends ParseTiffOptions {
  /** Size caps; the image's pixels are checked against `maxImagePixels` before it is decoded. */
  limits?: ReadLimits;
  /** Starts the OCR engine; default tesseract.js (as `parsePdf`). `null`: no OCR, so an image cannot be read. */
  ocr?: (() => Promise<OcrEngine>) | null;
}

/**
 * An image file (PNG, JPEG, WebP: a photographed or scanned page; a TIFF, of one page or many, in `parse-tiff.ts`) as a one-page document read by OCR:
 * one block "page 1", recognised as a scanned PDF page is. Its size is read from its header first, so a
 * decompression bomb (40,000 × 40,000 pixels in a few kilobytes) is refused before anything is decoded.
 */
export async function parseImage(bytes: Uint8Array, name: string, onProgress?: ReadProgress, options: ParseImageOptions = {}): Promise<ParsedDoc> {
  // A TIFF may hold many pages (`parse-tiff.ts`); the others are one picture.
  if (isTiff(bytes)) return parseTiff(bytes, name, onProgress, options);
  if (isBigTiff(bytes)) throw new DocQaError('unsupported-type', `${name}: this is a BigTIFF (the TIFF variant for files over 4 GB), which this app does not read: save it as an ordinary TIFF or as a PDF`);
  const header = readImageHeader(bytes);
  if (!header) throw new DocQaError('corrupt-file', `${name}: this image could not be read; it may be damaged, or not a PNG, JPEG, WebP or TIFF image`);
  checkImagePixels(header.width, header.height, name, options.limits ?? DEFAULT_READ_LIMITS);
  const startOcr = options.ocr === undefined ? leaseOcrEngine : options.ocr;
  if (!startOcr) throw new DocQaError('no-text-layer', `${name}: an image is read by recognising its text (OCR), which is not available here`);
  let image: Uint8Array;
  try {
    image = await imageToPgm(bytes, MAX_OCR_PIXELS);
  } catch (err) {
    throw new DocQaError('corrupt-file', `${name}: this image could not be read; it may be damaged`, { cause: err });
  }
  const clock = new RecognitionClock(1);
  clock.start();
  onProgress?.(0, clock.at(1, 0));
  const engine = await startOcr();
  let read;
  try {
    read = await recogniseUpright(engine, image, (f) => onProgress?.(f, clock.at(1, f)));
  } finally {
    await engine.close();
  }
  const lines = acceptedLines(read);
  if (!lines) throw new DocQaError('no-text-layer', `${name}: no text found: no text was recognised in this image`);
  onProgress?.(1);
  return {
    pages: 1,
    blocks: [{ label: 'page 1', page: 1, text: linesToParagraphs(lines).join('\n\n'), words: pageWords(read) }],
    recognisedPages: [[1, 1]],
    ...(read.confidence < LOW_CONFIDENCE && { lowConfidencePages: [[1, 1]] }),
    ...(engine.languages && { ocrLanguages: [...engine.languages] }),
  };
}
