import { defineConfig } from 'vite';
import preact from '@preact/preset-vite';
import { VitePWA } from 'vite-plugin-pwa';
import { ocrAssets } from './tools/ocr-assets.ts';
import { OCR_ASSET_ROOT } from './src/ingest/ocr/ocr-assets.ts';
import { OFFERED_OCR_LANGUAGES } from './src/ingest/ocr/ocr-languages.ts';
import { pdfjsAssets } from './tools/pdfjs-assets.ts';
import { securityHeaders, securityHeadersPlugin } from './tools/security-headers.ts';

export default defineConfig({
  plugins: [
    preact(),
    // CSP <meta> in index.html and dist/_headers for static hosts, from the same definition as below.
    securityHeadersPlugin(),
    pdfjsAssets(),
    ocrAssets(),
    VitePWA({
      // A new version waits for the person to choose to reload (src/ui/app-update.ts), never reloading the page under them.
      registerType: 'prompt',
      injectRegister: false,
      includeAssets: ['icon.svg'],
      manifest: {
        name: 'DocQA — private document Q&A',
        short_name: 'DocQA',
        description: 'Ask questions about your documents. Everything stays on this device.',
        start_url: '.',
        display: 'standalone',
        background_color: '#ffffff',
        theme_color: '#1f3a5f',
        icons: [
          { src: 'icon-192.png', sizes: '192x192', type: 'image/png' },
          { src: 'icon-512.png', sizes: '512x512', type: 'image/png' },
          { src: 'icon.svg', sizes: 'any', type: 'image/svg+xml', purpose: 'any' },
        ],
      },
      workbox: {
        clientsClaim: true,
        // bcmap, pfb, ttf: pdf.js's CMaps and standard fonts (pdfjsAssets; ~2.5 MB, each file < 200 KB).
        // gz: the OCR engine's English model (ocrAssets; 2.9 MB), which with its worker and core (~11 MB of
        // .js) lets scanned pages be read offline.
        globPatterns: ['**/*.{js,mjs,css,html,svg,png,wasm,json,webmanifest,bcmap,pfb,ttf,gz}'],
        // ONNX Runtime's 27 MB WASM is needed only once semantic search is set up: the embed worker keeps it
        // in a cache of its own the first time it loads (embed-handler.ts), not every visitor at install.
        // web-llm (~6 MB, the chunk the generate worker imports on the first WebLLM load) likewise: only a
        // person who chooses a WebGPU model downloads it, when they do.
        // The OCR languages other than English (0.7–3 MB each) are fetched only when a person adds one
        // (language-store.ts keeps it), never by every visitor at install.
        globIgnores: ['**/ort-wasm*.wasm', '**/webllm-engine-*.js', ...OFFERED_OCR_LANGUAGES.map((l) => `**/${OCR_ASSET_ROOT}lang/${l.code}.traineddata.gz`)],
        maximumFileSizeToCacheInBytes: 64 * 1024 * 1024,
      },
    }),
  ],
  worker: { format: 'es' },
  build: { target: 'es2022', chunkSizeWarningLimit: 4096 },
  // CSP and cross-origin isolation (COOP/COEP, for WASM threads) on every response: see tools/security-headers.ts.
  server: { headers: securityHeaders('development') },
  preview: { headers: securityHeaders('production'), port: 4173, strictPort: false },
});
