/**
 * Vite plugin: serves pdf.js's data folders (CMaps, standard font data) from the app's own origin, at
 * `<base>pdfjs/cmaps/` and `<base>pdfjs/standard_fonts/`, where `locatePdfAssets()` points pdf.js. The
 * build emits them as assets (so the PWA precaches them and PDFs parse offline); the dev server reads them
 * from `node_modules/pdfjs-dist`. Nothing is downloaded: the files come with the `pdfjs-dist` package.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Plugin } from 'vite';
import { PDFJS_ASSET_FOLDERS, PDFJS_ASSET_ROOT } from '../src/ingest/pdf-assets.ts';

const CONTENT_TYPES: Record<string, string> = { bcmap: 'application/octet-stream', pfb: 'application/octet-stream', ttf: 'font/ttf' };

export function pdfjsAssets(): Plugin {
  let source = '';
  let base = '/';
  /** The files of one data folder: name → path. Licence files come along. */
  const filesOf = (folder: string) => new Map(readdirSync(join(source, folder)).map((name) => [name, join(source, folder, name)]));
  return {
    name: 'docqa:pdfjs-assets',
    configResolved(config) {
      source = dirname(createRequire(join(config.root, 'package.json')).resolve('pdfjs-dist/package.json'));
      base = config.base;
    },
    configureServer(server) {
      const files = new Map(PDFJS_ASSET_FOLDERS.map((folder) => [folder, filesOf(folder)]));
      // Mounted at the prefix, so `req.url` is `/<folder>/<file>`. Only the package's own files are served
      // (looked up by name, so no path escapes the folders); anything else is a 404, not the SPA page.
      server.middlewares.use(`${base}${PDFJS_ASSET_ROOT}`, (req, res) => {
        const [folder, name, ...rest] = (req.url ?? '').split('?')[0]!.replace(/^\//, '').split('/');
        const path = !rest.length && name ? files.get(folder as (typeof PDFJS_ASSET_FOLDERS)[number])?.get(decodeURIComponent(name)) : undefined;
        if (!path) {
          res.statusCode = 404;
          res.end();
          return;
        }
        res.setHeader('Content-Type', CONTENT_TYPES[name!.split('.').pop()!] ?? 'text/plain');
        res.end(readFileSync(path));
      });
    },
    generateBundle() {
      if (this.environment.name !== 'client') return;
      for (const folder of PDFJS_ASSET_FOLDERS) {
        for (const [name, path] of filesOf(folder)) {
          this.emitFile({ type: 'asset', fileName: `${PDFJS_ASSET_ROOT}${folder}/${name}`, source: readFileSync(path) });
        }
      }
    },
  };
}
