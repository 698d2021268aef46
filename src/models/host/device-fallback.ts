/**
 * WebGPU can go away under a running model (the GPU process restarts, the device is lost, a driver
 * update): the embedder then fails. Rather than stop, it continues on WASM: the model is loaded again
 * there, the call is retried once, and a notice says why. Failures that are about the input or the
 * model's output on WASM too (a chunk too long, NaN on WASM) are not device failures and pass through.
 */
import { DocQaError } from '../../core/errors.ts';

export interface DeviceState {
  device: 'wasm' | 'webgpu' | 'cpu';
  /** Set when the device changed since it was last read (`takeNotice`). */
  notice?: string;
}

/** Errors that say nothing about the device: retrying on WASM would fail the same way. */
const NOT_THE_DEVICE = new Set(['chunk-too-long', 'model-files-missing', 'model-unsupported']);

export async function withWasmFallback<T>(state: DeviceState, run: () => Promise<T>, reloadOnWasm: () => Promise<void>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (state.device !== 'webgpu' || (err instanceof DocQaError && NOT_THE_DEVICE.has(err.code))) throw err;
    const reason = err instanceof Error ? err.message : String(err);
    console.warn('WebGPU failed; continuing on WASM', err);
    await reloadOnWasm();
    state.device = 'wasm';
    state.notice = `WASM: WebGPU stopped working (${reason.slice(0, 120)}); continuing on WASM`;
    return run();
  }
}

/** The notice of a device change, once. */
export function takeNotice(state: DeviceState): string | undefined {
  const notice = state.notice;
  state.notice = undefined;
  return notice;
}
