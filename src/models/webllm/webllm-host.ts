/**
 * The library worker's {@link WebLlmHost}: WebGPU read from the worker's `navigator` (Chromium gives
 * dedicated workers WebGPU), sizes read from web-llm's caches, and web-llm itself (several MB) imported
 * only to load or delete a model, so a visitor who never chooses a WebLLM model never downloads it.
 */
import { deleteWebLlmModel, loadWebLlm } from './webllm-generator.ts';
import { describeWebGpu, type NavigatorLike, type WebGpuDevice, type WebLlmModel } from './webllm-models.ts';
import { OFFERED_RECORDS } from './webllm-offered.ts';
import type { WebLlmHost } from '../setup/answer-models.ts';

/** The Cache API stores web-llm 0.2.86 keeps a model in (weights and tokenizer; config; model library). */
const WEBLLM_CACHES = ['webllm/model', 'webllm/config', 'webllm/wasm'];

/** Bytes of the cached entries of `storage` whose URL starts with one of `prefixes`. */
export async function cachedBytesUnder(storage: Pick<CacheStorage, 'has' | 'open'>, prefixes: readonly string[]): Promise<number> {
  let bytes = 0;
  for (const name of WEBLLM_CACHES) {
    if (!(await storage.has(name))) continue;
    const cache = await storage.open(name);
    for (const request of await cache.keys()) {
      if (!prefixes.some((p) => request.url.startsWith(p))) continue;
      const response = await cache.match(request);
      const length = response?.headers.get('content-length');
      bytes += length && /^\d+$/.test(length) ? Number(length) : ((await response?.blob())?.size ?? 0);
    }
  }
  return bytes;
}

export function createWebLlmHost(nav: NavigatorLike = navigator as NavigatorLike): WebLlmHost {
  let device: Promise<WebGpuDevice> | undefined;
  const client = () => import('./webllm-client.ts');
  return {
    device: () => (device ??= describeWebGpu(nav)),
    async cachedBytes(model: WebLlmModel) {
      const record = OFFERED_RECORDS.find((r) => r.model_id === model.id);
      if (!record || typeof caches === 'undefined') return 0;
      return cachedBytesUnder(caches, [`${record.model.replace(/\/$/, '')}/`, record.model_lib]);
    },
    async load(model, { onProgress, signal }) {
      const { createWebLlmDeps } = await client();
      return loadWebLlm(createWebLlmDeps(), { model, onProgress, signal });
    },
    async deleteCached(modelId) {
      const { createWebLlmDeps } = await client();
      await deleteWebLlmModel(createWebLlmDeps(), { id: modelId, label: modelId });
    },
  };
}
