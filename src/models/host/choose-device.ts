/**
 * Device by measurement, not assumption. Published figures range from WebGPU 28–61× faster at batch
 * 32 × 512 tokens to WASM up to ~10× faster on small inputs, and a software (fallback) adapter is
 * correct but very slow, so WebGPU is used only when an adapter exists, is not a fallback adapter, and
 * a short timing probe on this device beats WASM. The probes run in the worker; this is the decision.
 */

export interface DeviceProbe {
  /** Absent when `navigator.gpu` is missing. */
  webgpu?: {
    /** `requestAdapter()` gave an adapter. */
    adapter: boolean;
    /** `adapter.info.isFallbackAdapter` (a software rasteriser such as SwiftShader). */
    isFallbackAdapter: boolean;
    /** Time of the probe batch on WebGPU (after warm-up); absent if it was not run or failed. */
    probeMs?: number;
  };
  /** Time of the same probe batch on WASM. */
  wasmProbeMs: number;
  /** `self.crossOriginIsolated`: WASM threads need SharedArrayBuffer. */
  crossOriginIsolated: boolean;
  /** `navigator.hardwareConcurrency` (0 or absent taken as 1). */
  hardwareConcurrency: number;
  /** WASM threads set by the caller instead of {@link wasmThreads}'s rule (still 1 without isolation). */
  threads?: number;
}

export interface DeviceChoice {
  device: 'webgpu' | 'wasm';
  /** WASM threads (ORT also runs WebGPU's unsupported nodes on them). */
  threads: number;
  /** One line for the notice ("WASM: no WebGPU adapter"). */
  reason: string;
}

/** Most WASM threads: onnxruntime-web's own default cap, and more rarely helps a small encoder. */
const MAX_THREADS = 4;

/**
 * WASM threads: onnxruntime-web's own rule (half the cores, at most 4: it guesses two hyperthreads a
 * core), but both cores of a 2-core device: there (bge-small q8 in Chromium, a fresh worker per count,
 * batch 32) 2 threads embed 29.9 chunks/s against 15.4 on 1, and 4 threads 15.9. One thread without
 * cross-origin isolation. Set before the first session is created (ORT reads it once).
 */
export function wasmThreads(crossOriginIsolated: boolean, hardwareConcurrency: number): number {
  const cores = Math.max(1, Math.floor(hardwareConcurrency || 1));
  return crossOriginIsolated ? Math.min(MAX_THREADS, Math.max(Math.min(cores, 2), Math.ceil(cores / 2))) : 1;
}

/**
 * {@link wasmThreads} on the cores reported, but never more than the cores measured free (rounded;
 * `cpu-probe.ts`): a container with a quota of 2 cores on a 16-core host reports 16, and 4 threads on
 * 2 cores embed at 0.3–0.6× the speed of 2. The probe is noisy (1.2–3.8 measured there, 1.0–2.0 on an
 * idle 2-core machine), so it only caps; it is not asked on 2 cores or fewer.
 *
 * @example
 * threadsOnFreeCores(16, 1.9) // → 2
 * threadsOnFreeCores(8, 7.6) // → 4
 */
export function threadsOnFreeCores(reported: number, freeCores: number): number {
  return Math.max(1, Math.min(wasmThreads(true, reported), Math.round(freeCores || 1)));
}

/**
 * Picks the embedding device from probe results.
 *
 * @example
 * chooseDevice({ webgpu: { adapter: true, isFallbackAdapter: false, probeMs: 12 }, wasmProbeMs: 80,
 *   crossOriginIsolated: true, hardwareConcurrency: 8 })
 * // → { device: 'webgpu', threads: 4, reason: 'WebGPU: probe 12 ms vs WASM 80 ms' }
 */
export function chooseDevice(probe: DeviceProbe): DeviceChoice {
  const threads = probe.crossOriginIsolated && probe.threads ? probe.threads : wasmThreads(probe.crossOriginIsolated, probe.hardwareConcurrency);
  const wasm = (why: string): DeviceChoice => ({
    device: 'wasm',
    threads,
    reason: `WASM${threads > 1 ? ` (${threads} threads)` : probe.crossOriginIsolated ? '' : ' (1 thread: not cross-origin isolated)'}: ${why}`,
  });
  const gpu = probe.webgpu;
  if (!gpu) return wasm('this browser has no WebGPU');
  if (!gpu.adapter) return wasm('no WebGPU adapter');
  if (gpu.isFallbackAdapter) return wasm('the WebGPU adapter is a software fallback');
  const gpuMs = gpu.probeMs;
  if (gpuMs === undefined || !Number.isFinite(gpuMs)) return wasm('the WebGPU probe did not run');
  if (!(gpuMs < probe.wasmProbeMs)) return wasm(`probe ${fmt(gpuMs)} ms on WebGPU vs ${fmt(probe.wasmProbeMs)} ms on WASM`);
  return { device: 'webgpu', threads, reason: `WebGPU: probe ${fmt(gpuMs)} ms vs WASM ${fmt(probe.wasmProbeMs)} ms` };
}

const fmt = (ms: number) => (ms >= 10 ? ms.toFixed(0) : ms.toFixed(1));
