/**
 * Vite plugin: serves the OCR engine's files from the app's own origin, at `<base>ocr/`, where
 * `locateOcrAssets()` points tesseract.js: its worker script (`worker.min.js`), its WebAssembly core builds
 * (`core/`), the English model (`lang/eng.traineddata.gz`) and the offered languages' models
 * (`lang/<code>.traineddata.gz`, fetched only when a person adds the language, so never precached: see
 * `vite.config.ts`). The build emits them as assets; the dev server reads them from `node_modules`. Nothing
 * is downloaded: the files come with the `tesseract.js`, `tesseract.js-core` and `@tesseract.js-data/<code>`
 * packages.
 *
 * The worker script is served with one fix: tesseract.js 7's worker starts Tesseract with a language given
 * as bytes (`{ code, data }`, its documented way to pass a model from memory) under the bytes' text instead
 * of the code, so the start fails (naptha/tesseract.js PR #1052, open). The build fails if the script no
 * longer has the faulty expression nor the fixed one, so an update of the package is looked at.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Plugin } from 'vite';
import { OCR_ASSET_ROOT, OCR_CORE_FILES, OCR_LANGUAGE, OCR_MODEL_FOLDER } from '../src/ingest/ocr/ocr-assets.ts';
import { OFFERED_OCR_LANGUAGES } from '../src/ingest/ocr/ocr-languages.ts';

const CONTENT_TYPES: Record<string, string> = { js: 'text/javascript', gz: 'application/gzip' };

/** Output path under `<base>ocr/` → file on disk. */
function ocrFiles(root: string): Map<string, string> {
  const require = createRequire(join(root, 'package.json'));
  const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));
  const tesseract = packageDir('tesseract.js');
  // tesseract.js-core is tesseract.js's own dependency: resolved from there.
  const core = dirname(createRequire(join(tesseract, 'package.json')).resolve('tesseract.js-core/package.json'));
  const lang = (code: string): [string, string] => [`lang/${code}.traineddata.gz`, join(packageDir(`@tesseract.js-data/${code}`), OCR_MODEL_FOLDER, `${code}.traineddata.gz`)];
  return new Map<string, string>([
    ['worker.min.js', join(tesseract, 'dist', 'worker.min.js')],
    ...OCR_CORE_FILES.map((name): [string, string] => [`core/${name}`, join(core, name)]),
    lang(OCR_LANGUAGE),
    ...OFFERED_OCR_LANGUAGES.map((l) => lang(l.code)),
  ]);
}

/** In the minified worker: the language list joined from each language's `data` (the fault) or `code`. */
const FAULTY_JOIN = /return"string"==typeof (\w)\?\1:\1\.data\}\)\)\.join\("\+"\)/g;
const FIXED_JOIN = /return"string"==typeof (\w)\?\1:\1\.code\}\)\)\.join\("\+"\)/;

/** tesseract.js's worker script with languages given as bytes started under their code (see above). */
export function fixedWorkerScript(script: string): string {
  const faults = script.match(FAULTY_JOIN)?.length ?? 0;
  if (faults === 1) return script.replace(FAULTY_JOIN, 'return"string"==typeof $1?$1:$1.code})).join("+")');
  if (faults === 0 && FIXED_JOIN.test(script)) return script;
  throw new Error(`tools/ocr-assets.ts: tesseract.js's worker.min.js changed (${faults} faulty language joins): check how it starts a language given as bytes, and update fixedWorkerScript`);
}

/** A file's bytes as served: the worker script fixed, the rest as in the package. */
function served(name: string, path: string): Buffer {
  return name === 'worker.min.js' ? Buffer.from(fixedWorkerScript(readFileSync(path, 'utf8'))) : readFileSync(path);
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
        res.end(served(name, path));
      });
    },
    generateBundle() {
      if (this.environment.name !== 'client') return;
      for (const [name, path] of files) this.emitFile({ type: 'asset', fileName: `${OCR_ASSET_ROOT}${name}`, source: served(name, path) });
    },
  };
}
