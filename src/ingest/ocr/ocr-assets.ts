/**
 * Where the OCR engine (tesseract.js) reads its files: its worker script, its WebAssembly core and the
 * English recognition model. In a browser all three come from the app's own origin (`<base>ocr/`, emitted by
 * the build: `tools/ocr-assets.ts`), never from tesseract.js's default CDN, so scanned pages are read
 * offline and under the strict CSP, and added languages are handed to the worker as bytes from the store;
 * in Node, every language is read from one folder made of the installed packages' files (and any bytes given).
 */
import type { OcrLanguage } from './ocr-languages.ts';

/** Folder under the app's base URL where the build puts the OCR files. */
export const OCR_ASSET_ROOT = 'ocr/';

/** The English model shipped with the app: `@tesseract.js-data/eng`'s integer LSTM model (2.9 MB gzipped). */
export const OCR_LANGUAGE = 'eng';
export const OCR_MODEL_FOLDER = '4.0.0_best_int';

/**
 * Core builds the browser may pick (tesseract.js chooses by the CPU's WebAssembly features; LSTM-only
 * builds, as the engine runs the LSTM recogniser only).
 */
export const OCR_CORE_FILES = ['tesseract-core-relaxedsimd-lstm.wasm.js', 'tesseract-core-simd-lstm.wasm.js', 'tesseract-core-lstm.wasm.js'] as const;

/** tesseract.js's `createWorker` paths. */
export interface OcrAssets {
  /** The worker script; absent in Node (tesseract.js runs its own from the package). */
  workerPath?: string;
  /** Folder of the core builds, ending in `/`; absent in Node. */
  corePath?: string;
  /** Folder holding `eng.traineddata.gz` (in Node, every language's), ending in `/`: a URL, or a path in Node. */
  langPath: string;
  /**
   * Whether a language's bytes are handed to the worker (`{ code, data }`). The browser's worker script is
   * the app's own copy, in which tesseract.js 7's handling of such languages is fixed (`tools/ocr-assets.ts`);
   * Node runs the package's, so there the bytes are written to the `langPath` folder instead.
   */
  inlineData: boolean;
}

/**
 * The OCR files for the current environment, for reading in English and `languages`.
 *
 * @example
 * createWorker('eng', OEM.LSTM_ONLY, { ...locateOcrAssets(), workerBlobURL: false });
 */
export function locateOcrAssets(languages: readonly OcrLanguage[] = []): OcrAssets {
  if (typeof process !== 'undefined' && process.versions?.node) return { langPath: nodeLanguageFolder(languages), inlineData: false };
  const base = new URL(`${import.meta.env.BASE_URL}${OCR_ASSET_ROOT}`, self.location.href).href;
  return { workerPath: `${base}worker.min.js`, corePath: `${base}core/`, langPath: `${base}lang/`, inlineData: true };
}

/**
 * Node: a folder holding `<code>.traineddata.gz` for English and each of `languages`: linked from its
 * installed `@tesseract.js-data/<code>` package, or written from its bytes (tesseract.js unpacks a file
 * only when it is gzipped, whatever its name). One folder per set of languages, under the system's temp folder.
 */
function nodeLanguageFolder(languages: readonly OcrLanguage[]): string {
  // No static `node:` imports: this module is also bundled into the browser worker.
  const fs = process.getBuiltinModule('fs');
  const { join } = process.getBuiltinModule('path');
  const { createHash } = process.getBuiltinModule('crypto');
  const require = process.getBuiltinModule('module').createRequire(import.meta.url);
  const packaged = (code: string) => join(require.resolve(`@tesseract.js-data/${code}/package.json`), '..', OCR_MODEL_FOLDER, `${code}.traineddata.gz`);
  if (languages.length === 0) return join(packaged(OCR_LANGUAGE), '..') + '/';
  const hash = createHash('sha256');
  for (const l of languages) hash.update(l.code).update(l.data ?? new Uint8Array());
  const folder = join(process.getBuiltinModule('os').tmpdir(), `docqa-ocr-languages-${hash.digest('hex').slice(0, 16)}`);
  fs.mkdirSync(folder, { recursive: true });
  for (const l of [{ code: OCR_LANGUAGE } as OcrLanguage, ...languages]) {
    const target = join(folder, `${l.code}.traineddata.gz`);
    if (fs.existsSync(target)) continue;
    // Written whole, then renamed: a process stopped mid-copy leaves no short file for the next one.
    const partial = `${target}.${process.pid}`;
    if (l.data) fs.writeFileSync(partial, l.data);
    else fs.copyFileSync(packaged(l.code), partial);
    fs.renameSync(partial, target);
  }
  return `${folder}/`;
}
