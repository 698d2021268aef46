/**
 * Where the OCR engine (tesseract.js) reads its files: its worker script, its WebAssembly core and the
 * English recognition model. In a browser all three come from the app's own origin (`<base>ocr/`, emitted by
 * the build: `tools/ocr-assets.ts`), never from tesseract.js's default CDN, so scanned pages are read
 * offline and under the strict CSP; in Node, from the installed packages.
 */

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
  /** Folder holding `eng.traineddata.gz`, ending in `/`: a URL, or a path in Node. */
  langPath: string;
}

/**
 * The OCR files for the current environment.
 *
 * @example
 * createWorker(OCR_LANGUAGE, OEM.LSTM_ONLY, { ...locateOcrAssets(), workerBlobURL: false });
 */
export function locateOcrAssets(): OcrAssets {
  if (typeof process !== 'undefined' && process.versions?.node) {
    // No static `node:` import: this module is also bundled into the browser worker.
    const require = process.getBuiltinModule('module').createRequire(import.meta.url);
    const root = require.resolve('@tesseract.js-data/eng/package.json').replace(/package\.json$/, '');
    return { langPath: `${root}${OCR_MODEL_FOLDER}/` };
  }
  const base = new URL(`${import.meta.env.BASE_URL}${OCR_ASSET_ROOT}`, self.location.href).href;
  return { workerPath: `${base}worker.min.js`, corePath: `${base}core/`, langPath: `${base}lang/` };
}
