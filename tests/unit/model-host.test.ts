// The one model host every worker-backed model runs in, with a fake runtime on a fake browser platform:
// the device chosen by the runtime's probe (WebGPU only with a real adapter that is faster), the runtime's
// own device and threads otherwise, the move to WASM when WebGPU fails under a loaded model (said once),
// calls before a load refused with the words the library's restart logic looks for, and one call at a time.
import { describe, expect, it } from 'vitest';
import { asModelId } from '../../src/core/ids.ts';
import { DocQaError } from '../../src/core/errors.ts';
import { createModelHost, type Platform, type Runtime } from '../../src/models/host/model-host.ts';
import type { HostedModel } from '../../src/models/host/protocol.ts';
import { isWorkerRestart } from '../../src/models/host/model-loading.ts';

const MODEL: HostedModel = { id: asModelId('fake'), label: 'Fake', repo: 'fake/model', revision: 'main', files: [] };

interface Fake {
  device: string | undefined;
  disposed: boolean;
  calls: string[];
  dispose(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A runtime whose instances record their device; the probe takes `probeMs[device]`. */
function fakeRuntime(options: { probeMs?: { wasm: number; webgpu: number }; device?: 'auto' | 'wasm'; threads?: number } = {}) {
  const opened: Fake[] = [];
  const runtime: Runtime<HostedModel, Fake, { extra: string }> = {
    name: 'fake',
    async open(_model, load) {
      const fake: Fake = {
        device: load.device,
        disposed: false,
        calls: [],
        async dispose() {
          fake.disposed = true;
        },
      };
      opened.push(fake);
      load.onProgress?.({ type: 'ready' });
      return fake;
    },
    ...(options.device ? { device: options.device } : {}),
    ...(options.threads ? { threads: options.threads } : {}),
    ...(options.probeMs
      ? {
          probe: {
            warmUp: async () => undefined,
            timed: (fake: Fake) => sleep(options.probeMs![fake.device as 'wasm' | 'webgpu']),
          },
        }
      : {}),
    describe: (model) => ({ extra: model.label }),
  };
  return { runtime, opened };
}

const browser = (gpu?: Platform['gpu']): (() => Promise<Platform>) => async () => ({ inBrowser: true, crossOriginIsolated: true, hardwareConcurrency: 8, ...(gpu ? { gpu } : {}) });
const host = (runtime: Runtime<HostedModel, Fake, { extra: string }>, platform: () => Promise<Platform>) => createModelHost(runtime, { platform, openCache: async () => undefined });

describe('model host', () => {
  it('chooses WebGPU when its probe beats WASM on a real adapter, and frees the WASM instance', async () => {
    const { runtime, opened } = fakeRuntime({ probeMs: { wasm: 40, webgpu: 2 }, device: 'auto' });
    const loaded = await host(runtime, browser({ adapter: true, isFallbackAdapter: false })).api.load({ model: MODEL, source: { kind: 'hub' } });
    expect(loaded).toMatchObject({ modelId: 'fake', extra: 'Fake', device: 'webgpu', threads: 4, stored: [] });
    expect(loaded.notice).toMatch(/^WebGPU: probe [\d.]+ ms vs WASM [\d.]+ ms$/);
    expect(opened.map((f) => [f.device, f.disposed])).toEqual([
      ['wasm', true],
      ['webgpu', false],
    ]);
  });

  it('stays on WASM with a software adapter, without trying WebGPU, and says why', async () => {
    const { runtime, opened } = fakeRuntime({ probeMs: { wasm: 40, webgpu: 2 }, device: 'auto' });
    const loaded = await host(runtime, browser({ adapter: true, isFallbackAdapter: true })).api.load({ model: MODEL, source: { kind: 'hub' } });
    expect(loaded).toMatchObject({ device: 'wasm', notice: 'WASM (4 threads): the WebGPU adapter is a software fallback' });
    expect(opened.map((f) => f.device)).toEqual(['wasm']);
  });

  it("runs a runtime without a probe on its own device and threads; a caller's device is said to be chosen", async () => {
    const { runtime, opened } = fakeRuntime({ threads: 1 });
    const models = host(runtime, browser({ adapter: true, isFallbackAdapter: false }));
    expect(await models.api.load({ model: MODEL, source: { kind: 'hub' } })).toMatchObject({ device: 'wasm', threads: 1, notice: 'WASM (1 thread)' });
    expect(await models.api.load({ model: MODEL, source: { kind: 'hub' }, device: 'webgpu' })).toMatchObject({ device: 'webgpu', notice: 'WebGPU: chosen by the caller' });
    // The first instance was freed when the second load replaced it.
    expect(opened.map((f) => [f.device, f.disposed])).toEqual([
      ['wasm', true],
      ['webgpu', false],
    ]);
  });

  it('caps WASM threads by the cores measured free, not only those reported (measured once per worker); a caller\'s threads are not measured; the first load\'s threads stay', async () => {
    const asked: number[] = [];
    // A container with a quota of 2 cores on a host of 8: the probe finds about 2, and each gets a thread.
    const measureCores = async (upTo: number) => {
      asked.push(upTo);
      return 1.9;
    };
    const { runtime } = fakeRuntime({ probeMs: { wasm: 40, webgpu: 2 }, device: 'auto' });
    const models = createModelHost(runtime, { platform: browser(), openCache: async () => undefined, measureCores });
    expect(await models.api.load({ model: MODEL, source: { kind: 'hub' } })).toMatchObject({ device: 'wasm', threads: 2 });
    expect(await models.api.load({ model: MODEL, source: { kind: 'hub' } })).toMatchObject({ threads: 2 });
    expect(asked).toEqual([8]);
    // All 8 free: half of them (ONNX Runtime's rule), at most 4, as without a probe; 2 cores are not probed.
    const roomy = createModelHost(fakeRuntime().runtime, { platform: browser(), openCache: async () => undefined, measureCores: async () => 8 });
    expect(await roomy.api.load({ model: MODEL, source: { kind: 'hub' } })).toMatchObject({ threads: 4 });
    const small = createModelHost(fakeRuntime().runtime, { platform: async () => ({ inBrowser: true, crossOriginIsolated: true, hardwareConcurrency: 2 }), openCache: async () => undefined, measureCores });
    expect(await small.api.load({ model: MODEL, source: { kind: 'hub' } })).toMatchObject({ threads: 2 });
    expect(asked).toEqual([8]);
    const forced = createModelHost(fakeRuntime({ threads: 3 }).runtime, { platform: browser(), openCache: async () => undefined, measureCores });
    expect(await forced.api.load({ model: MODEL, source: { kind: 'hub' } })).toMatchObject({ threads: 3 });
    expect(asked).toEqual([8]);
    // ONNX Runtime keeps the threads its first session started with: a later load says so, whatever it asked.
    expect(await forced.api.load({ model: MODEL, source: { kind: 'hub' }, threads: 2 })).toMatchObject({ threads: 3 });
  });

  it('in Node: the CPU, whatever the runtime asks for', async () => {
    const { runtime, opened } = fakeRuntime({ probeMs: { wasm: 1, webgpu: 1 }, device: 'auto' });
    const loaded = await createModelHost(runtime, { openCache: async () => undefined }).api.load({ model: MODEL, source: { kind: 'hub' } });
    expect(loaded).toMatchObject({ device: 'cpu', notice: 'CPU (onnxruntime-node)' });
    expect(opened.map((f) => f.device)).toEqual([undefined]);
  });

  it('moves to WASM when WebGPU fails under the loaded model: the call is retried there, and the notice is given once', async () => {
    const { runtime, opened } = fakeRuntime();
    const models = host(runtime, browser({ adapter: true, isFallbackAdapter: false }));
    await models.api.load({ model: MODEL, source: { kind: 'hub' }, device: 'webgpu' });
    const answer = await models.run(async (fake) => {
      if (fake.device === 'webgpu') throw new Error('Device was lost');
      return `ran on ${fake.device}`;
    });
    expect(answer).toBe('ran on wasm');
    expect(opened.map((f) => [f.device, f.disposed])).toEqual([
      ['webgpu', true],
      ['wasm', false],
    ]);
    expect(await models.api.takeDeviceNotice()).toBe('WASM: WebGPU stopped working (Device was lost); continuing on WASM');
    expect(await models.api.takeDeviceNotice()).toBeUndefined();
  });

  it('refuses calls before a load, and after an unload, in words the restart logic recognises', async () => {
    const { runtime } = fakeRuntime();
    const models = host(runtime, browser());
    const before = await models.run(async () => 'never').catch((err: unknown) => err);
    expect(before).toBeInstanceOf(DocQaError);
    expect(before).toMatchObject({ code: 'internal', message: 'fake worker: no model is loaded: call load() first' });
    expect(isWorkerRestart(before)).toBe(true);
    await models.api.load({ model: MODEL, source: { kind: 'hub' } });
    await models.api.unload();
    expect(() => models.current()).toThrow('no model is loaded');
  });

  it('runs calls one at a time, in order, a load included', async () => {
    const { runtime } = fakeRuntime();
    const models = host(runtime, browser());
    const order: string[] = [];
    await models.api.load({ model: MODEL, source: { kind: 'hub' } });
    const slow = models.run(async () => {
      await sleep(20);
      order.push('slow');
    });
    const reload = models.api.load({ model: MODEL, source: { kind: 'hub' } }).then(() => order.push('load'));
    const fast = models.run(async () => order.push('fast'));
    await Promise.all([slow, reload, fast]);
    expect(order).toEqual(['slow', 'load', 'fast']);
  });

  it('without a Cache API: nothing is listed or deleted, and an import says why it cannot be kept', async () => {
    const { runtime } = fakeRuntime();
    const models = host(runtime, browser());
    expect(await models.api.listCached()).toEqual([]);
    expect(await models.api.deleteCached('fake/model')).toBe(0);
    await expect(models.api.importFiles(MODEL, [])).rejects.toMatchObject({ code: 'internal', message: expect.stringMatching(/no Cache API/) });
  });
});
