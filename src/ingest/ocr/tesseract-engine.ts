/**
 * The OCR engine: tesseract.js (Tesseract 5's LSTM recogniser compiled to WebAssembly) with the English
 * integer model. Chosen over PaddleOCR PP-OCRv4 by measurement (`tools/ocr-engines.ts`, decision 0032): on
 * the same pages it made fewer errors in every condition and read them 1.4–3× faster. Its files come from `locateOcrAssets()`.
 */
import { createWorker, OEM } from 'tesseract.js';
import { DocQaError } from '../../core/errors.ts';
import { locateOcrAssets, type OcrAssets } from './ocr-assets.ts';
import { engineLanguages, type OcrLanguage } from './ocr-languages.ts';
import { readPgmHeader } from './pgm.ts';
import type { RecognisedPage, RecognisedWord } from './recognised-page.ts';

/** Reads page images. One page at a time; `close` ends its worker. */
export interface OcrEngine {
  /** `image`: an encoded image (PGM, PNG, JPEG…). `onProgress` receives 0–1 within the page. */
  recognise(image: Uint8Array, onProgress?: (fraction: number) => void): Promise<RecognisedPage>;
  close(): Promise<void>;
  /** The language codes it reads in, in tesseract's order; absent when not known (a test's engine). */
  readonly languages?: readonly string[];
}

interface TesseractWord {
  text: string;
  confidence: number;
  bbox: { x0: number; y0: number; x1: number; y1: number };
}
interface TesseractBlock {
  paragraphs: Array<{ lines: Array<{ words: TesseractWord[] }> }>;
}

/**
 * Starts tesseract.js with the app's own files (its worker, core and models are loaded once, ~0.3 s in
 * Node), reading in `languages` (those the person added, in order) and English last ({@link engineLanguages}).
 * A language with `data` is handed to the worker as bytes (the browser: from the store); one without is
 * read from `assets.langPath`.
 */
export async function createTesseractEngine(languages: readonly OcrLanguage[] = [], assets: OcrAssets = locateOcrAssets(languages)): Promise<OcrEngine> {
  let progress: ((fraction: number) => void) | undefined;
  const langs = engineLanguages(languages).map((l) => (l.data && assets.inlineData ? { code: l.code, data: l.data } : l.code));
  // tesseract.js takes codes and `{ code, data }` mixed (its types name only one kind per array).
  const worker = await createWorker(langs as Parameters<typeof createWorker>[0], OEM.LSTM_ONLY, {
    ...assets,
    // Never a blob: worker importing a CDN script: the worker script is the app's own file.
    workerBlobURL: false,
    gzip: true,
    // English is one of the app's files, kept by the service worker; added languages are kept by the app
    // (language-store.ts). tesseract's own IndexedDB copy would be a second one.
    cacheMethod: 'none',
    logger: (m: { status: string; progress: number }) => {
      if (m.status === 'recognizing text') progress?.(m.progress);
    },
    errorHandler: () => undefined,
  }).catch((err: unknown) => {
    throw new DocQaError('ocr-failed', `the text recogniser (OCR) could not start: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  });
  return {
    languages: engineLanguages(languages).map((l) => l.code),
    async recognise(image, onProgress) {
      progress = onProgress;
      try {
        // tesseract.js reads any Uint8Array (its types name only Buffer among byte arrays).
        const { data } = await worker.recognize(image as Buffer, {}, { blocks: true, text: false });
        return pageOf((data.blocks ?? []) as unknown as TesseractBlock[], image);
      } finally {
        progress = undefined;
      }
    },
    async close() {
      await worker.terminate();
    },
  };
}

function pageOf(blocks: TesseractBlock[], image: Uint8Array): RecognisedPage {
  const paragraphs: RecognisedWord[][][] = [];
  let sum = 0;
  let count = 0;
  for (const block of blocks) {
    for (const p of block.paragraphs) {
      const lines = p.lines.map((l) =>
        l.words
          .filter((w) => w.text.trim() !== '')
          .map((w): RecognisedWord => {
            sum += w.confidence;
            count++;
            return { text: w.text, confidence: w.confidence, box: { x0: w.bbox.x0, y0: w.bbox.y0, x1: w.bbox.x1, y1: w.bbox.y1 } };
          }),
      );
      paragraphs.push(lines.filter((l) => l.length > 0));
    }
  }
  const { width, height } = imageSize(image);
  return { paragraphs: paragraphs.filter((p) => p.length > 0), confidence: count ? sum / count : 0, width, height };
}

/** The size a PGM header states; 0 × 0 for other formats (the engine does not report it). */
function imageSize(image: Uint8Array): { width: number; height: number } {
  const header = readPgmHeader(image);
  return header ? { width: header.width, height: header.height } : { width: 0, height: 0 };
}
