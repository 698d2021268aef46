import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';
import { ocrAssets } from './tools/ocr-assets.ts';
import { contentSecurityPolicy } from './tools/security-headers.ts';

/**
 * Test-only build: the embed worker harness page, the Library list page and the parse worker page (OCR
 * bench) (`tests/harness/`) into
 * `dist-harness/` (gitignored), for browser tests and the Chromium benches. Never part of the app's `dist/`. Served with the
 * app's headers (CSP, COOP/COEP), except that connections may go to a local model mirror on any port.
 */
export const HARNESS_OUT_DIR = 'dist-harness';

const csp = contentSecurityPolicy('production').replace("connect-src 'self'", "connect-src 'self' http://127.0.0.1:*");

export default defineConfig({
  root: 'tests/harness',
  // Absolute, as the app's: the parse worker finds the OCR files at `<base>ocr/` from its own URL.
  base: '/',
  logLevel: 'warn',
  plugins: [preact(), ocrAssets()],
  worker: { format: 'es' },
  build: {
    target: 'es2022',
    outDir: `../../${HARNESS_OUT_DIR}`,
    emptyOutDir: true,
    chunkSizeWarningLimit: 8192,
    rollupOptions: { input: ['tests/harness/embed-harness.html', 'tests/harness/list-harness.html', 'tests/harness/ocr-harness.html'] },
  },
  preview: {
    headers: { 'Content-Security-Policy': csp, 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' },
    strictPort: false,
  },
});
