/**
 * The HTTP headers every response that serves the app should carry, defined once: `vite.config.ts` sets
 * them on the dev and preview servers, and {@link securityHeadersPlugin} writes them into the page (as a
 * CSP `<meta>`) and into `dist/_headers` for static hosts. The browser tests read them from here too.
 */
import type { Plugin } from 'vite';

/**
 * Content-Security-Policy, one entry per directive. Everything the app loads comes from its own origin:
 * nothing is fetched from elsewhere, nothing runs inline, and the page cannot be framed.
 */
const POLICY: Record<string, string[]> = {
  // Anything not named below (fonts, the web app manifest, media): own origin only.
  'default-src': ["'self'"],
  // The bundled modules only; no inline scripts, no eval. 'wasm-unsafe-eval' lets workers compile
  // WebAssembly (pdf.js image decoders today; ONNX Runtime for the embedding stage) without allowing eval.
  'script-src': ["'self'", "'wasm-unsafe-eval'"],
  // The one bundled stylesheet. Preact sets style properties through the CSSOM, which CSP allows.
  'style-src': ["'self'"],
  // fetch/XHR/WebSocket: own origin (service worker precache, a self-hosted model mirror), and the
  // Hugging Face hub for the models the person chooses to download (the embed worker fetches
  // `huggingface.co/<repo>/resolve/...`, which redirects to its file hosts under huggingface.co and hf.co).
  // WebLLM models also fetch their compiled model library, a WebAssembly file web-llm's prebuilt
  // list points at on raw.githubusercontent.com (`modelLibURLPrefix`, mlc-ai/binary-mlc-llm-libs); web-llm
  // fetches it, keeps it in its cache and instantiates it from bytes (so 'wasm-unsafe-eval', no script-src).
  // Serving those libraries ourselves would mean copying a few MB per model into the app and pinning them
  // to the web-llm version; that origin, exactly, is allowed instead.
  // Nothing else: no document text can be sent to any other site. The browser tests check that no request
  // leaves the origin unless a model download was asked for.
  'connect-src': ["'self'", 'https://huggingface.co', 'https://*.huggingface.co', 'https://*.hf.co', 'https://raw.githubusercontent.com'],
  // The app's icons. No `data:`/`blob:`: nothing in the page shows generated images (PDF pages are drawn
  // on a canvas; "Open original" is a download link, which img-src does not govern).
  'img-src': ["'self'"],
  // The library worker, the Source dialog's pdf.js worker (modules from the bundle) and the service worker
  // (`sw.js`); and `blob:` for llama.cpp's workers alone: wllama (the GGUF engine) starts its worker, and
  // that worker its threads, from object URLs of script it carries in its bundled module (no option to
  // name a file instead). An object URL can only be made by script already running in the app, which
  // script-src keeps to the app's own files; the workers inherit this policy.
  'worker-src': ["'self'", 'blob:'],
  // No plugins, no <base> rewriting relative URLs, no form posting anywhere.
  'object-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
  // No other site may frame the app (clickjacking). Only works as a header: a <meta> policy ignores it.
  'frame-ancestors': ["'none'"],
};

/** Directives a `<meta http-equiv>` policy may not carry (the browser ignores them there, with a console error). */
const HEADER_ONLY = new Set(['frame-ancestors', 'report-uri', 'sandbox']);

export type PolicyMode = 'production' | 'development';

/**
 * The policy as a header value. In `development` (the Vite dev server only), `style-src` also allows
 * inline styles: Vite injects CSS modules and its error overlay as `<style>` elements for hot reload.
 * The build links one stylesheet and needs no such exception.
 */
export function contentSecurityPolicy(mode: PolicyMode = 'production', { meta = false } = {}): string {
  return Object.entries(POLICY)
    .filter(([directive]) => !(meta && HEADER_ONLY.has(directive)))
    .map(([directive, sources]) => {
      const extra = mode === 'development' && directive === 'style-src' ? ["'unsafe-inline'"] : [];
      return [directive, ...sources, ...extra].join(' ');
    })
    .join('; ');
}

/**
 * Response headers for every file of the app: the CSP, plus cross-origin isolation (COOP/COEP), which
 * lets WASM use threads (SharedArrayBuffer) in the embedding stage.
 */
export function securityHeaders(mode: PolicyMode = 'production'): Record<string, string> {
  return {
    'Content-Security-Policy': contentSecurityPolicy(mode),
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Embedder-Policy': 'require-corp',
  };
}

/** The headers in the `_headers` format of Netlify and Cloudflare Pages (path pattern, then indented headers). */
export function headersFile(): string {
  const lines = Object.entries(securityHeaders('production')).map(([name, value]) => `  ${name}: ${value}`);
  return `/*\n${lines.join('\n')}\n`;
}

/**
 * Puts the CSP into `index.html` as a `<meta http-equiv>` (so it holds even where a host drops the
 * header), first in `<head>` so it covers everything after it, and emits `_headers` into the build.
 */
export function securityHeadersPlugin(): Plugin {
  let mode: PolicyMode = 'production';
  return {
    name: 'docqa-security-headers',
    configResolved(config) {
      mode = config.command === 'serve' ? 'development' : 'production';
    },
    transformIndexHtml: {
      order: 'pre',
      handler: () => [
        { tag: 'meta', attrs: { 'http-equiv': 'Content-Security-Policy', content: contentSecurityPolicy(mode, { meta: true }) }, injectTo: 'head-prepend' },
      ],
    },
    generateBundle() {
      this.emitFile({ type: 'asset', fileName: '_headers', source: headersFile() });
    },
  };
}
