// Which WebLLM models a device is offered, over web-llm's real prebuilt list (0.2.86): without
// shader-f16 only f32 variants, low memory only small models, phones only low-resource ones, nothing
// without WebGPU or on a software adapter.
import { prebuiltAppConfig } from '@mlc-ai/web-llm';
import { describe, expect, it } from 'vitest';
import {
  approximateDownloadBytes,
  chooseModels,
  contextTokensOf,
  describeWebGpu,
  memoryBudget,
  needsShaderF16,
  quantizationOf,
  runnableRecords,
  type WebGpuDevice,
} from '../../src/models/webllm/webllm-models.ts';

const LIST = prebuiltAppConfig.model_list;
const GB = 2 ** 30;
const desktop = (over: Partial<WebGpuDevice> = {}): WebGpuDevice => ({
  webgpu: true,
  features: ['shader-f16', 'timestamp-query'],
  limits: { maxStorageBufferBindingSize: 2 * GB, maxBufferSize: 4 * GB },
  deviceMemoryGB: 8,
  ...over,
});
const noF16 = (over: Partial<WebGpuDevice> = {}) => desktop({ features: ['timestamp-query'], ...over });

describe('chooseModels', () => {
  it('offers one 4-bit f16 variant of each default family on a desktop with shader-f16, smallest first', () => {
    const { runnable, excluded, budget } = chooseModels(LIST, desktop());
    expect(budget).toEqual({ mb: 4096, basis: 'device-memory' });
    expect(runnable.map((m) => m.id)).toEqual([
      'Llama-3.2-1B-Instruct-q4f16_1-MLC',
      'Qwen2.5-0.5B-Instruct-q4f16_1-MLC',
      'Qwen2.5-1.5B-Instruct-q4f16_1-MLC',
      'Llama-3.2-3B-Instruct-q4f16_1-MLC',
      'Qwen2.5-3B-Instruct-q4f16_1-MLC',
      'Phi-3.5-mini-instruct-q4f16_1-MLC',
    ]);
    expect(excluded).toEqual([]);
    const llama = runnable[0]!;
    expect(llama).toMatchObject({ label: 'Llama 3.2 1B Instruct (4-bit)', contextTokens: 4096, vramMB: 879.04, quantization: 'q4f16_1', f32: false });
    expect(llama.languages).toContain('de');
    expect(llama.downloadBytes).toBeGreaterThan(0.6e9);
    expect(llama.downloadBytes).toBeLessThan(0.8e9);
  });

  it('offers only q4f32/q0f32 variants without shader-f16, falling back to a 1k-context variant that fits', () => {
    const { runnable, excluded } = chooseModels(LIST, noF16());
    expect(runnable.length).toBeGreaterThan(0);
    for (const m of runnable) {
      expect(m.id).toMatch(/-q[04]f32(_1)?-MLC/);
      expect(m.f32).toBe(true);
    }
    // Phi-3.5-mini q4f32 needs 5.4 GB; its 1k-context variant (3.1 GB) fits the 4 GB budget.
    const phi = runnable.find((m) => m.id.startsWith('Phi-3.5'));
    expect(phi).toMatchObject({ id: 'Phi-3.5-mini-instruct-q4f32_1-MLC-1k', contextTokens: 1024 });
    expect(phi!.label).toContain('1k context');
    expect(excluded).toEqual([]);
  });

  it('offers only small models on a device with little memory, and says why the others are left out', () => {
    const { runnable, excluded, budget } = chooseModels(LIST, desktop({ deviceMemoryGB: 2 }));
    expect(budget.mb).toBe(1024);
    expect(runnable.map((m) => m.id)).toEqual(['Llama-3.2-1B-Instruct-q4f16_1-MLC', 'Qwen2.5-0.5B-Instruct-q4f16_1-MLC']);
    for (const m of runnable) expect(m.vramMB).toBeLessThanOrEqual(1024);
    expect(excluded.map((e) => e.label)).toEqual(['Qwen2.5 1.5B Instruct', 'Qwen2.5 3B Instruct', 'Llama 3.2 3B Instruct', 'Phi-3.5 mini Instruct']);
    expect(excluded[0]!.reason).toMatch(/^needs about 1\.\d GB of GPU memory; the budget for this device is 1.0 GB$/);
  });

  it('combines both: no shader-f16 and 2 GB leaves the smallest f32 model out too, explained by its f32 variant', () => {
    const { runnable, excluded } = chooseModels(LIST, noF16({ deviceMemoryGB: 2 }));
    expect(runnable).toEqual([]); // Llama 1B q4f32 needs 1129 MB, Qwen 0.5B q4f32 1060 MB
    const llama = excluded.find((e) => e.label === 'Llama 3.2 1B Instruct')!;
    expect(llama.id).toBe('Llama-3.2-1B-Instruct-q4f32_1-MLC');
    expect(llama.reason).toContain('needs about 1.1 GB of GPU memory');
  });

  it('offers phones only low-resource variants', () => {
    const { runnable } = chooseModels(LIST, desktop({ mobile: true, deviceMemoryGB: 8 }));
    const phi = runnable.find((m) => m.id.startsWith('Phi-3.5'));
    expect(phi?.id).toBe('Phi-3.5-mini-instruct-q4f16_1-MLC-1k'); // the full-context one is not low-resource
    for (const m of runnable) expect(m.lowResource).toBe(true);
  });

  it('treats small storage buffers as a low-resource device', () => {
    const records = runnableRecords(LIST, desktop({ limits: { maxStorageBufferBindingSize: 128 * 2 ** 20 } }));
    expect(records.length).toBeGreaterThan(0);
    for (const r of records) expect(r.low_resource_required).toBe(true);
  });

  it('offers nothing without WebGPU or on a software fallback adapter', () => {
    const none = chooseModels(LIST, { webgpu: false, features: [] });
    expect(none.runnable).toEqual([]);
    expect(none.excluded[0]!.reason).toBe('this browser has no WebGPU');
    const swiftshader = chooseModels(LIST, noF16({ isFallbackAdapter: true }));
    expect(swiftshader.runnable).toEqual([]);
    expect(swiftshader.excluded[0]!.reason).toContain('software fallback');
  });
});

describe('runnableRecords', () => {
  it('without shader-f16 keeps only f32 chat models of the whole prebuilt list, smallest first', () => {
    const records = runnableRecords(LIST, noF16({ deviceMemoryGB: 4 }));
    expect(records.length).toBeGreaterThan(5);
    for (const r of records) {
      expect(needsShaderF16(r)).toBe(false);
      expect(quantizationOf(r.model_id)?.float).toBe(32);
      expect(r.vram_required_MB ?? 0).toBeLessThanOrEqual(2048);
      expect(r.model_type ?? 0).toBe(0);
    }
    const vram = records.map((r) => r.vram_required_MB ?? 0);
    expect(vram).toEqual([...vram].sort((a, b) => a - b));
  });

  it('counts an f16 quantization as needing shader-f16 even when the record does not list the feature', () => {
    const qwen = LIST.find((r) => r.model_id === 'Qwen2.5-1.5B-Instruct-q4f16_1-MLC')!;
    expect(qwen.required_features).toBeUndefined();
    expect(needsShaderF16(qwen)).toBe(true);
    expect(runnableRecords([qwen], noF16())).toEqual([]);
  });
});

describe('device facts', () => {
  it('budgets half of the reported memory, 4 GB when unknown', () => {
    expect(memoryBudget(desktop({ deviceMemoryGB: 4 }))).toEqual({ mb: 2048, basis: 'device-memory' });
    expect(memoryBudget({ webgpu: true, features: [] })).toEqual({ mb: 4096, basis: 'unknown' });
  });

  it('reads quantization, download size and context window', () => {
    expect(quantizationOf('Llama-3.2-1B-Instruct-q4f32_1-MLC')).toEqual({ name: 'q4f32_1', bits: 4, float: 32 });
    expect(quantizationOf('SmolLM2-360M-Instruct-q0f16-MLC')).toEqual({ name: 'q0f16', bits: 0, float: 16 });
    expect(quantizationOf('snowflake-arctic-embed-m')).toBeUndefined();
    expect(approximateDownloadBytes(1e9, 'q4f16_1')).toBe(562_500_000); // 4.5 bits a weight
    expect(approximateDownloadBytes(1e9, 'q4f32_1')).toBe(625_000_000); // 5 bits
    expect(approximateDownloadBytes(1e9, 'q0f32')).toBe(4_000_000_000);
    expect(contextTokensOf({ overrides: { context_window_size: 1024 } })).toBe(1024);
    expect(contextTokensOf({ overrides: { context_window_size: -1 } })).toBe(4096);
    expect(contextTokensOf({})).toBe(4096);
  });

  it('describes the adapter from navigator', async () => {
    const nav = {
      deviceMemory: 4,
      userAgentData: { mobile: false },
      gpu: {
        requestAdapter: async () => ({
          features: new Set(['shader-f16']),
          limits: { maxStorageBufferBindingSize: GB, maxBufferSize: 2 * GB },
          info: { isFallbackAdapter: false },
        }),
      },
    };
    expect(await describeWebGpu(nav)).toEqual({
      webgpu: true,
      features: ['shader-f16'],
      limits: { maxStorageBufferBindingSize: GB, maxBufferSize: 2 * GB },
      isFallbackAdapter: false,
      deviceMemoryGB: 4,
      mobile: false,
    });
    expect(await describeWebGpu({})).toEqual({ webgpu: false, features: [] });
    expect(await describeWebGpu({ gpu: { requestAdapter: async () => null } })).toEqual({ webgpu: false, features: [] });
    expect((await describeWebGpu({ gpu: { requestAdapter: () => Promise.reject(new Error('blocked')) } })).webgpu).toBe(false);
  });
});
