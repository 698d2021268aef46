import { env } from '@huggingface/transformers';

/** Cache API cache holding ONNX Runtime's WASM binary (27 MB), filled the first time a model loads. */
export const RUNTIME_CACHE_NAME = 'docqa-runtime-v1';

/**
 * ONNX Runtime's WASM binary: from the runtime cache, else downloaded from the app and kept there. Not
 * precached at install (every visitor would download 27 MB for a feature they may never turn on).
 * Undefined where there is no Cache API or the download fails: ONNX Runtime then fetches it itself.
 */
export async function runtimeBinary(url: string): Promise<ArrayBuffer | undefined> {
  const storage = (globalThis as { caches?: CacheStorage }).caches;
  if (!storage) return undefined;
  try {
    const cache = await storage.open(RUNTIME_CACHE_NAME);
    const hit = await cache.match(url);
    if (hit) return await hit.arrayBuffer();
    const response = await fetch(url);
    if (!response.ok) return undefined;
    const bytes = await response.arrayBuffer();
    await cache.put(url, new Response(bytes, { headers: { 'Content-Type': 'application/wasm' } })).catch((err: unknown) => console.warn('ONNX Runtime binary not kept for offline use', err));
    return bytes;
  } catch (err) {
    console.warn('ONNX Runtime binary not read from the runtime cache', err);
    return undefined;
  }
}

/**
 * Hands ONNX Runtime its WASM binary from the app's own cache, so models work offline once they have
 * loaded online (a nested worker's requests are not reliably served by the service worker). Once per
 * worker; the WASM file is still named, for ONNX Runtime's threads.
 */
export async function useRuntimeBinary(wasmUrl: string): Promise<void> {
  const wasm = env.backends.onnx.wasm;
  if (!wasm) return;
  wasm.wasmPaths = { wasm: wasmUrl };
  wasm.wasmBinary ??= await runtimeBinary(wasmUrl);
}

/**
 * Readies ONNX Runtime's WASM backend in a browser worker: its binary from the app's own cache (when the
 * worker knows its URL), and transformers.js's own WASM factory cache off (it would load ONNX Runtime
 * from a `blob:` URL, which the CSP refuses).
 */
export async function prepareWasmRuntime(wasmUrl: string | undefined): Promise<void> {
  if (wasmUrl) await useRuntimeBinary(wasmUrl);
  env.useWasmCache = false;
}
