/**
 * OCR engines kept between files. Starting tesseract.js (its worker, the WebAssembly core, the 2.9 MB
 * English model) takes a few tenths of a second and, in Node, leaves memory behind each time (about 18 MB
 * a start); a folder of scans or photos would pay that for every file. An engine is therefore leased for a
 * file and given back after it, kept for the next file, and closed after {@link IDLE_MS} unused. A file read
 * while another holds the engine (the Node tools prepare the next file ahead) gets a second one. An engine
 * that failed is closed, not kept. The parse worker's watchdog ends the worker, and its engines with it.
 */
import { installedOcrLanguages, type OcrLanguageSource } from './language-store.ts';
import type { OcrLanguage } from './ocr-languages.ts';
import { createTesseractEngine, type OcrEngine } from './tesseract-engine.ts';

/**
 * How long an unused engine is kept: the next file of a drop starts reading within a second of the last
 * one's end; and in Node the engine's worker thread keeps a tool from exiting until it is closed.
 */
export const IDLE_MS = 5_000;

interface Kept {
  engine: OcrEngine;
  /** The languages it reads in ({@link OcrLanguageSource.key}). */
  key: string;
  timer?: ReturnType<typeof setTimeout>;
}

const free: Kept[] = [];

/**
 * An engine for one file, reading in the languages `languages` names now: a kept one for the same
 * languages, or a new one from `start`. Kept engines for other languages (the person added or removed one)
 * are closed. Its `close` gives it back to be kept (or closes it, when it failed).
 */
export async function leaseOcrEngine(
  start: (languages: OcrLanguage[]) => Promise<OcrEngine> = createTesseractEngine,
  languages: OcrLanguageSource = installedOcrLanguages(),
): Promise<OcrEngine> {
  const key = await languages.key();
  for (const stale of free.filter((k) => k.key !== key)) {
    free.splice(free.indexOf(stale), 1);
    clearTimeout(stale.timer);
    void stale.engine.close().catch(() => undefined);
  }
  const kept = free.pop() ?? { engine: await start(await languages.read()), key };
  clearTimeout(kept.timer);
  let failed = false;
  let returned = false;
  return {
    languages: kept.engine.languages,
    async recognise(image, onProgress) {
      try {
        return await kept.engine.recognise(image, onProgress);
      } catch (err) {
        failed = true;
        throw err;
      }
    },
    async close() {
      if (returned) return;
      returned = true;
      if (failed) return kept.engine.close().catch(() => undefined);
      kept.timer = setTimeout(() => {
        const at = free.indexOf(kept);
        if (at >= 0) free.splice(at, 1);
        void kept.engine.close().catch(() => undefined);
      }, IDLE_MS);
      // Node: a kept engine's timer does not keep a tool running.
      (kept.timer as { unref?: () => void }).unref?.();
      free.push(kept);
    },
  };
}

/** Closes every kept engine now (tests, and tools that end). */
export async function closeKeptOcrEngines(): Promise<void> {
  const all = free.splice(0);
  await Promise.all(all.map((k) => (clearTimeout(k.timer), k.engine.close().catch(() => undefined))));
}
