import { describe, expect, it } from 'vitest';
import { DocQaError } from '../../src/core/errors.ts';
import { takeNotice, withWasmFallback, type DeviceState } from '../../src/models/host/device-fallback.ts';

describe('withWasmFallback (WebGPU lost mid-embedding)', () => {
  it('loads the model again on WASM, retries the call once, and says why, once', async () => {
    const state: DeviceState = { device: 'webgpu' };
    let onWasm = false;
    const run = async () => {
      if (!onWasm) throw new Error('Device was lost');
      return 'vectors';
    };
    expect(await withWasmFallback(state, run, async () => void (onWasm = true))).toBe('vectors');
    expect(state.device).toBe('wasm');
    expect(takeNotice(state)).toBe('WASM: WebGPU stopped working (Device was lost); continuing on WASM');
    expect(takeNotice(state)).toBeUndefined();
  });

  it('passes through failures that are not about the device, and any failure on WASM', async () => {
    const reload = async () => expect.unreachable('no reload');
    const tooLong = new DocQaError('chunk-too-long', 'a text of 900 tokens');
    await expect(withWasmFallback({ device: 'webgpu' }, () => Promise.reject(tooLong), reload)).rejects.toBe(tooLong);
    const broken = new Error('out of memory');
    await expect(withWasmFallback({ device: 'wasm' }, () => Promise.reject(broken), reload)).rejects.toBe(broken);
  });

  it('fails when the call fails on WASM too (no loop)', async () => {
    const state: DeviceState = { device: 'webgpu' };
    let reloads = 0;
    await expect(withWasmFallback(state, () => Promise.reject(new Error('bad')), async () => void reloads++)).rejects.toThrow('bad');
    expect(reloads).toBe(1);
  });
});
