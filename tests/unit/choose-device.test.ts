// The embedding device decision: WebGPU only with a real (not fallback) adapter whose probe beats WASM.
import { describe, expect, it } from 'vitest';
import { chooseDevice, threadsOnFreeCores, type DeviceProbe } from '../../src/models/host/choose-device.ts';

const base: DeviceProbe = { wasmProbeMs: 40, crossOriginIsolated: true, hardwareConcurrency: 8 };
const gpu = (probeMs?: number, isFallbackAdapter = false) => ({ adapter: true, isFallbackAdapter, ...(probeMs === undefined ? {} : { probeMs }) });

describe('chooseDevice', () => {
  it.each<[string, Partial<DeviceProbe>, 'webgpu' | 'wasm', RegExp]>([
    ['no navigator.gpu', { webgpu: undefined }, 'wasm', /no WebGPU$/],
    ['no adapter', { webgpu: { adapter: false, isFallbackAdapter: false, probeMs: 1 } }, 'wasm', /no WebGPU adapter/],
    ['fallback adapter, even if faster', { webgpu: gpu(1, true) }, 'wasm', /software fallback/],
    ['probe not run', { webgpu: gpu() }, 'wasm', /did not run/],
    ['probe failed (NaN)', { webgpu: gpu(Number.NaN) }, 'wasm', /did not run/],
    ['WebGPU slower', { webgpu: gpu(90) }, 'wasm', /probe 90 ms on WebGPU vs 40 ms on WASM/],
    ['a tie goes to WASM', { webgpu: gpu(40) }, 'wasm', /40 ms on WebGPU/],
    ['WebGPU faster', { webgpu: gpu(12) }, 'webgpu', /^WebGPU: probe 12 ms vs WASM 40 ms$/],
  ])('%s', (_, change, device, reason) => {
    const choice = chooseDevice({ ...base, ...change });
    expect(choice.device).toBe(device);
    expect(choice.reason).toMatch(reason);
  });

  it.each([
    [true, 8, 4],
    [true, 2, 2],
    [true, 3, 2],
    [true, 4, 2],
    [true, 1, 1],
    [true, 32, 4],
    [true, 0, 1],
    [false, 16, 1],
  ])('cross-origin isolated %s with %i cores: %i threads', (crossOriginIsolated, hardwareConcurrency, threads) => {
    const choice = chooseDevice({ ...base, crossOriginIsolated, hardwareConcurrency });
    expect(choice.threads).toBe(threads);
    if (!crossOriginIsolated) expect(choice.reason).toMatch(/not cross-origin isolated/);
  });

  it('never gives more threads than the cores measured free (rounded), nor more than the cores reported give', () => {
    expect([0, 1.2, 1.6, 2.4, 3.8, 7.9].map((free) => threadsOnFreeCores(16, free))).toEqual([1, 1, 2, 2, 4, 4]);
    expect(threadsOnFreeCores(6, 5.8)).toBe(3);
    expect(threadsOnFreeCores(4, 1.2)).toBe(1);
  });

  it('takes threads set by the caller, in the reason too, but never without isolation', () => {
    expect(chooseDevice({ ...base, crossOriginIsolated: true, hardwareConcurrency: 2, threads: 3 })).toMatchObject({ threads: 3, reason: expect.stringMatching(/^WASM \(3 threads\): /) });
    expect(chooseDevice({ ...base, crossOriginIsolated: false, hardwareConcurrency: 8, threads: 3 }).threads).toBe(1);
  });
});
