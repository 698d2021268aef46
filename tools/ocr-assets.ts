/**
 * Vite plugin: serves the OCR engine's files from the app's own origin, at `<base>ocr/`, where
 * `locateOcrAssets()` points tesseract.js: its worker script (`worker.min.js`), its WebAssembly core builds
 * (`core/`) and the English model (`lang/eng.traineddata.gz`). The build emits them as assets (so the PWA
 * precaches them and scans are read offline); the dev server reads them from `node_modules`. Nothing is
 * downloaded: the files come with the `tesseract.js`, `tesseract.js-core` and `@tesseract.js-data/eng` packages.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Plugin } from 'vite';
import { OCR_ASSET_ROOT, OCR_CORE_FILES, OCR_LANGUAGE, OCR_MODEL_FOLDER } from '../src/ingest/ocr/ocr-assets.ts';

const CONTENT_TYPES: Record<string, string> = { js: 'text/javascript', gz: 'application/gzip' };

/** Output path under `<base>ocr/` → file on disk. */
function ocrFiles(root: string): Map<string, string> {
  const require = createRequire(join(root, 'package.json'));
  const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));
  const tesseract = packageDir('tesseract.js');
  // tesseract.js-core is tesseract.js's own dependency: resolved from there.
  const core = dirname(createRequire(join(tesseract, 'package.json')).resolve('tesseract.js-core/package.json'));
  const lang = join(packageDir(`@tesseract.js-data/${OCR_LANGUAGE}`), OCR_MODEL_FOLDER);
  return new Map<string, string>([
    ['worker.min.js', join(tesseract, 'dist', 'worker.min.js')],
    ...OCR_CORE_FILES.map((name): [string, string] => [`core/${name}`, join(core, name)]),
    [`lang/${OCR_LANGUAGE}.traineddata.gz`, join(lang, `${OCR_LANGUAGE}.traineddata.gz`)],
  ]);
}

export function ocrAssets(): Plugin {
  let files = new Map<string, string>();
  let base = '/';
  return {
    name: 'docqa:ocr-assets',
    configResolved(config) {
      files = ocrFiles(config.root);
      base = config.base;
    },
    configureServer(server) {
      // Mounted at the prefix, so `req.url` is `/<path>`. Only the listed files are served (looked up by
      // name, so no path escapes); anything else is a 404, not the SPA page.
      server.middlewares.use(`${base}${OCR_ASSET_ROOT}`, (req, res) => {
        const name = decodeURIComponent((req.url ?? '').split('?')[0]!.replace(/^\//, ''));
        const path = files.get(name);
        if (!path) {
          res.statusCode = 404;
          res.end();
          return;
        }
        res.setHeader('Content-Type', CONTENT_TYPES[name.split('.').pop()!] ?? 'application/octet-stream');
        res.end(readFileSync(path));
      });
    },
    generateBundle() {
      if (this.environment.name !== 'client') return;
      for (const [name, path] of files) this.emitFile({ type: 'asset', fileName: `${OCR_ASSET_ROOT}${name}`, source: readFileSync(path) });
    },
  };
}
