/**
 * A TIFF (what scanners and fax software write, often one file of many pages) as a document read by OCR:
 * one block per page ("page 3"), as a scanned PDF's. Its pages and their sizes are read from its chain of
 * image directories before anything is decoded (`tiffPages`: a chain that loops or points outside the
 * file is refused, as are too many pages and a page over the pixel limit), then each page is decoded by
 * UTIF.js (photopea's TIFF decoder: uncompressed, LZW, Deflate, PackBits, JPEG, CCITT G3/G4 fax), read
 * as grey, shown as its Orientation tag says (mirrored, turned), and recognised like a PDF page: upright, with its words' boxes, resumable page by page.
 */
import UTIF from 'utif';
import { tiffOrientation } from '../core/image-orientation.ts';
import { toPageRanges } from '../core/page-ranges.ts';
import { DocQaError } from '../core/errors.ts';
import type { Block, PageReading, ParsedDoc, ReadProgress } from '../core/types.ts';
import { linesToParagraphs } from './clean.ts';
import { leaseOcrEngine } from './ocr/engine-pool.ts';
import { tiffPages } from './ocr/image-header.ts';
import { recogniseUpright, turnPgm } from './ocr/orientation.ts';
import { RecognitionClock } from './ocr/recognition-clock.ts';
import { LOW_CONFIDENCE, readingOf, toPgm, withLanguages } from './ocr/recognised-page.ts';
import { MAX_OCR_PIXELS } from './ocr/render-page.ts';
import type { OcrEngine } from './ocr/tesseract-engine.ts';
import { checkImagePixels, checkPdfPages, DEFAULT_READ_LIMITS, type ReadLimits } from './read-limits.ts';

export interface ParseTiffOptions {
  limits?: ReadLimits;
  /** Starts the OCR engine; default: one leased from those kept (as `parsePdf`). `null`: no OCR. */
  ocr?: (() => Promise<OcrEngine>) | null;
  /** Pages recognised by an earlier read of this file: used as they are. */
  recognised?: ReadonlyMap<number, PageReading>;
  /** Receives each page as OCR finishes it. */
  onRecognised?: (reading: PageReading) => void;
}

/**
 * A decoded page as grey PGM, as the page is seen (its Orientation tag applied: mirrored, turned), shrunk
 * (darkest pixel of each square) to the OCR pixel budget when larger.
 */
function pagePgm(ifd: UTIF.IFD): Uint8Array {
  const rgba = UTIF.toRGBA8(ifd);
  // A page whose pixels did not decode (an unknown or broken compression) comes back short or empty.
  if (!(ifd.width > 0 && ifd.height > 0) || rgba.length < ifd.width * ifd.height * 4) throw new Error('no pixels decoded');
  const pgm = toPgm(rgba, ifd.width, ifd.height);
  const step = Math.ceil(Math.sqrt((ifd.width * ifd.height) / MAX_OCR_PIXELS));
  const { mirror, turn } = tiffOrientation(ifd);
  return step > 1 || mirror || turn ? turnPgm(pgm, turn, step, mirror) : pgm;
}

export async function parseTiff(bytes: Uint8Array, name: string, onProgress?: ReadProgress, options: ParseTiffOptions = {}): Promise<ParsedDoc> {
  const limits = options.limits ?? DEFAULT_READ_LIMITS;
  const pages = tiffPages(bytes, limits.maxPdfPages);
  if (!pages) throw new DocQaError('corrupt-file', `${name}: this TIFF could not be read; it may be damaged (its list of pages is broken)`);
  if (pages.more) checkPdfPages(limits.maxPdfPages + 1, name, limits);
  if (!pages.sizes.length) throw new DocQaError('corrupt-file', `${name}: this TIFF holds no image`);
  for (const { width, height } of pages.sizes) checkImagePixels(width, height, name, limits);
  const startOcr = options.ocr === undefined ? leaseOcrEngine : options.ocr;
  if (!startOcr) throw new DocQaError('no-text-layer', `${name}: an image is read by recognising its text (OCR), which is not available here`);

  const buffer = bytes.slice().buffer;
  let images: UTIF.IFD[];
  try {
    // Safe to walk now: the chain is known to end within the page limit.
    images = UTIF.decode(buffer).filter((ifd) => ifd['t256'] !== undefined && ifd['t257'] !== undefined);
  } catch (err) {
    throw new DocQaError('corrupt-file', `${name}: this TIFF could not be read; it may be damaged`, { cause: err });
  }
  const count = images.length;
  const clock = new RecognitionClock(count);
  const blocks: Block[] = [];
  const recognised: number[] = [];
  const readings: PageReading[] = [];
  const lowConfidence: number[] = [];
  let engine: Promise<OcrEngine> | undefined;
  try {
    for (let p = 1; p <= count; p++) {
      let reading = options.recognised?.get(p);
      if (!reading) {
        const ifd = images[p - 1]!;
        let pgm: Uint8Array;
        try {
          UTIF.decodeImage(buffer, ifd);
          pgm = pagePgm(ifd);
        } catch (err) {
          throw new DocQaError('corrupt-file', `${name}: page ${p} of this TIFF could not be decoded; it may be damaged or use a compression this app does not read`, { cause: err });
        } finally {
          // The decoded pixels are not kept once the page is grey.
          ifd.data = new Uint8Array(0);
        }
        engine ??= startOcr();
        clock.start();
        onProgress?.((p - 1) / count, clock.at(p, 0));
        const started = await engine;
        reading = readingOf(p, await recogniseUpright(started, pgm, (f) => onProgress?.((p - 1 + f) / count, clock.at(p, f))), started.languages);
        clock.finish();
        options.onRecognised?.(reading);
      }
      if (reading.lines) {
        readings.push(reading);
        blocks.push({ label: `page ${p}`, page: p, text: linesToParagraphs(reading.lines).join('\n\n'), words: reading.words });
        recognised.push(p);
        if (reading.confidence < LOW_CONFIDENCE) lowConfidence.push(p);
      }
      onProgress?.(p / count);
    }
  } finally {
    if (engine) await engine.then((e) => e.close(), () => undefined);
  }
  if (!blocks.length) throw new DocQaError('no-text-layer', `${name}: no text found: no text was recognised on its ${count === 1 ? 'page' : `${count} pages`}`);
  return {
    pages: count,
    blocks,
    recognisedPages: toPageRanges(recognised),
    ...(lowConfidence.length && { lowConfidencePages: toPageRanges(lowConfidence) }),
    ...withLanguages(readings),
  };
}
