/**
 * What a model host reads of where it runs: a browser or Node, cross-origin isolation (WASM threads need
 * SharedArrayBuffer), the cores, and WebGPU's adapter. Read once per worker; tests pass their own.
 */

/** What a browser tells about WebGPU and threads; absent `gpu` means no `navigator.gpu`. */
export interface Platform {
  inBrowser: boolean;
  crossOriginIsolated: boolean;
  hardwareConcurrency: number;
  /** `requestAdapter()` result, when `navigator.gpu` exists. */
  gpu?: { adapter: boolean; isFallbackAdapter: boolean };
}

/**
 * Reads the platform from `self` and `navigator` (Node: not a browser, one core, no WebGPU). WebGPU's
 * adapter is asked for only with `gpu` (a host that never runs on WebGPU does not wake the GPU).
 */
export async function readPlatform(gpu: boolean): Promise<Platform> {
  const inBrowser = typeof navigator !== 'undefined' && typeof (globalThis as { caches?: unknown }).caches !== 'undefined';
  const platform: Platform = {
    inBrowser,
    crossOriginIsolated: Boolean((globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated),
    hardwareConcurrency: typeof navigator !== 'undefined' ? navigator.hardwareConcurrency || 1 : 1,
  };
  const webgpu = gpu && inBrowser ? (navigator as Navigator & { gpu?: { requestAdapter(): Promise<unknown> } }).gpu : undefined;
  if (webgpu) {
    try {
      const adapter = (await webgpu.requestAdapter()) as { info?: { isFallbackAdapter?: boolean }; isFallbackAdapter?: boolean } | null;
      platform.gpu = { adapter: adapter !== null, isFallbackAdapter: Boolean(adapter?.info?.isFallbackAdapter ?? adapter?.isFallbackAdapter) };
    } catch {
      platform.gpu = { adapter: false, isFallbackAdapter: false };
    }
  }
  return platform;
}
