/**
 * Where pdf.js reads its data files: Adobe's predefined CMaps (`cmaps/`, packed `.bcmap`), without which
 * Chinese, Japanese and Korean text in fonts that use them (e.g. `/Encoding /UniJIS-UCS2-H` and no
 * ToUnicode) is lost, and the standard font data (`standard_fonts/`) for the 14 fonts a PDF may use
 * without embedding them. Both come from the app itself, never from a CDN, so parsing works offline.
 */

/** Folder under the app's base URL where the build puts pdf.js's data folders (see `tools/pdfjs-assets.ts`). */
export const PDFJS_ASSET_ROOT = 'pdfjs/';

/** pdf.js's data folders, as named in `pdfjs-dist` and in the build output. */
export const PDFJS_ASSET_FOLDERS = ['cmaps', 'standard_fonts'] as const;

/** The `getDocument` parameters that locate pdf.js's data files. */
export interface PdfAssets {
  /** Folder of packed CMaps (`cMapPacked: true`), ending in `/`: an http(s) URL, or a path in Node. */
  cMapUrl: string;
  /** Folder of standard font data, ending in `/`: an http(s) URL, or a path in Node. */
  standardFontDataUrl: string;
  /**
   * true in a browser: pdf.js's own (in-thread) worker code fetches the files with `fetch`. pdf.js's
   * other way, through the API side, reads `document.baseURI`, which a worker has not.
   */
  useWorkerFetch: boolean;
}

/**
 * The data folders for the current environment: in Node (unit tests, eval CLI, benchmarks) the folders of
 * the installed `pdfjs-dist`, read from disk; in a browser (the library worker) `<base>pdfjs/…` on the
 * app's own origin, which the build emits and the service worker precaches.
 *
 * @example
 * pdfjs.getDocument({ data, cMapPacked: true, ...locatePdfAssets() });
 */
export function locatePdfAssets(): PdfAssets {
  if (typeof process !== 'undefined' && process.versions?.node) {
    // No static `node:` import: this module is also bundled into the browser worker.
    const require = process.getBuiltinModule('module').createRequire(import.meta.url);
    const root = require.resolve('pdfjs-dist/package.json').replace(/package\.json$/, '');
    return { cMapUrl: `${root}cmaps/`, standardFontDataUrl: `${root}standard_fonts/`, useWorkerFetch: false };
  }
  // BASE_URL is '/' or an absolute path such as '/docqa/'; resolving it against the worker's own URL gives
  // the app's origin.
  const base = new URL(`${import.meta.env.BASE_URL}${PDFJS_ASSET_ROOT}`, self.location.href).href;
  return { cMapUrl: `${base}cmaps/`, standardFontDataUrl: `${base}standard_fonts/`, useWorkerFetch: true };
}
