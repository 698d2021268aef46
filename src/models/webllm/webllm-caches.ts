/**
 * What is read of WebLLM without loading web-llm: this device's WebGPU (read from the worker's
 * `navigator`; Chromium gives dedicated workers WebGPU) and the bytes web-llm keeps for a model, read
 * from its Cache API stores. The library worker reads them to list the answer models; web-llm itself
 * (several MB) is imported only by the generate worker, to load or delete a model.
 */
import { describeWebGpu, type NavigatorLike, type WebGpuDevice, type WebLlmModel } from './webllm-models.ts';
import { OFFERED_RECORDS } from './webllm-offered.ts';

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

/** Bytes web-llm keeps for the offered model `modelId` (0: not downloaded, not offered, or no Cache API here). */
export async function webLlmCachedBytes(modelId: string): Promise<number> {
  const record = OFFERED_RECORDS.find((r) => r.model_id === modelId);
  if (!record || typeof caches === 'undefined') return 0;
  return cachedBytesUnder(caches, [`${record.model.replace(/\/$/, '')}/`, record.model_lib]);
}

/** What answer setup reads of WebLLM in the library worker. */
export interface WebLlmFacts {
  /** This device's WebGPU adapter and memory (`describeWebGpu(navigator)`). */
  device(): Promise<WebGpuDevice>;
  /** Bytes web-llm keeps for this model (0: not downloaded). */
  cachedBytes(model: WebLlmModel): Promise<number>;
}

export function createWebLlmFacts(nav: NavigatorLike = navigator as NavigatorLike): WebLlmFacts {
  let device: Promise<WebGpuDevice> | undefined;
  return {
    device: () => (device ??= describeWebGpu(nav)),
    cachedBytes: (model) => webLlmCachedBytes(model.id),
  };
}
