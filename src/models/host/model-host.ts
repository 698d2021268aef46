/**
 * The one host every worker-backed model runs in (`protocol.ts` is what it answers). A runtime (the
 * encoder, the cross-encoder, the transformers.js generator, any engine added later) is a small
 * {@link Runtime}: how to load its model and, if it can choose its device, a probe to time. The host
 * does the rest, the same way for each: ONNX Runtime's WASM binary and threads, the model cache bound to
 * the model and source, guarded downloads with progress, device choice by measurement (`choose-device.ts`)
 * and the move to WASM when WebGPU fails under a loaded model (`device-fallback.ts`), one call at a time
 * (transformers.js's `env` is global: a load must not overlap another call), and the kept files (list,
 * delete, import). Also used in-process in Node (tests, tools), where there is no Cache API and ONNX
 * Runtime runs on the CPU.
 */
import { env } from '@huggingface/transformers';
import { DocQaError } from '../../core/errors.ts';
import { deleteCachedModel, importModelFiles, listCachedModels, notKeptBy, openModelCache, type CacheLike } from '../model-cache.ts';
import { cacheForLoad, type LoadOptions, type LoadProgress } from '../model-source.ts';
import { prepareWasmRuntime } from '../runtime-binary.ts';
import { chooseDevice, threadsOnFreeCores, wasmThreads, type DeviceProbe } from './choose-device.ts';
import { takeNotice, withWasmFallback, type DeviceState } from './device-fallback.ts';
import { readPlatform, type Platform } from './platform.ts';
import type { DeviceRequest, HostedModel, LoadedModel, LoadRequest, ModelDevice, ModelHostApi } from './protocol.ts';

export type { Platform } from './platform.ts';

/** A loaded model: whatever a runtime returns, as long as it can be freed. */
export interface Disposable {
  dispose(): Promise<void>;
}

/** What a runtime tells the host: its name, how to load it, how to time it. */
export interface Runtime<M extends HostedModel, R extends Disposable, X extends object> {
  /** Names the worker in its errors: "embed" gives "embed worker: no model is loaded". */
  readonly name: string;
  /** Loads `model` with transformers.js; `options` carry the source, device, cache, fetch and progress. */
  open(model: M, options: LoadOptions): Promise<R>;
  /** The device a load gets when it asks for none. Default `wasm`. */
  readonly device?: DeviceRequest;
  /** WASM threads when a load names none. Default: half the cores, at most 4 (ONNX Runtime's own rule). */
  readonly threads?: number;
  /**
   * For `auto`: a run that readies a WebGPU session (shader compilation), and the batch timed on WASM and
   * on WebGPU. Without a probe, `auto` is WASM.
   */
  readonly probe?: { warmUp(instance: R): Promise<unknown>; timed(instance: R): Promise<unknown> };
  /** What a load answers besides the host's fields (an encoder's `dims`). */
  describe(model: M, instance: R): X;
  /**
   * For a runtime that downloads and keeps some models' files itself (WebLLM, in web-llm's own caches):
   * which `repo`s are its own, and how to delete one's files (returning the bytes freed). The host binds
   * no cache to loads of those models, and `deleteCached` of their repo comes here.
   */
  readonly ownFiles?: { owns(repo: string): boolean; delete(repo: string): Promise<number> };
}

type Fetch = NonNullable<LoadOptions['fetch']>;

export interface HostOptions {
  /** URL of onnxruntime-web's WASM binary as the app serves it; without it transformers.js loads it from a CDN. */
  wasmUrl?: string;
  /** Default: `caches.open(MODEL_CACHE_NAME)` where the Cache API exists, else no cache. */
  openCache?: () => Promise<CacheLike | undefined>;
  /** The fetch downloads go through (guarded); default transformers.js's `env.fetch` when the host is made. */
  fetch?: Fetch;
  /** Default: read from `self` and `navigator`. */
  platform?: () => Promise<Platform>;
  /**
   * The free cores, measured with up to `upTo` probe workers (`cpu-probe.ts`). Given, ONNX Runtime's WASM
   * threads are never more than the cores measured free (`threadsOnFreeCores`): a container with a quota
   * of 2 cores on a 16-core host reports 16, and 4 threads there embedded at 0.3–0.6× the speed of 2.
   */
  measureCores?: (upTo: number) => Promise<number>;
}

export interface ModelHost<M extends HostedModel, R extends Disposable, X extends object> {
  /** The calls every model worker offers; a worker's API spreads them beside its runtime's own. */
  readonly api: ModelHostApi<M, LoadedModel & X>;
  /**
   * Runs `use` on the loaded model once the calls before it are done. If it fails on WebGPU for a reason
   * that is not the input's, the model is loaded again on WASM and `use` retried once (a notice says why).
   */
  run<T>(use: (instance: R) => Promise<T>): Promise<T>;
  /** The loaded model now, without waiting for calls before (a runtime with its own queue: a generator). */
  current(): R;
}

const clampThreads = (n: number) => Math.max(1, Math.min(16, Math.floor(n)));

const wasmLabel = (threads: number) => `WASM (${threads} thread${threads > 1 ? 's' : ''})`;

async function timeMs(run: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await run();
  return performance.now() - t0;
}

/** A host for `runtime`'s models: one model loaded at a time. */
export function createModelHost<M extends HostedModel, R extends Disposable, X extends object>(runtime: Runtime<M, R, X>, options: HostOptions = {}): ModelHost<M, R, X> {
  const baseFetch = options.fetch ?? (env.fetch as Fetch);
  const platformOnce = (options.platform ?? (() => readPlatform(runtime.probe !== undefined)))();
  const cacheOnce = (options.openCache ?? openModelCache)();
  let instance: R | undefined;
  /** The device the loaded model runs on, and a notice when it had to change (WebGPU lost → WASM). */
  const state: DeviceState = { device: 'cpu' };
  /** How to load the current model again on WASM (set by each load). */
  let reopenOnWasm: (() => Promise<R>) | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  /** Aborted by `stopLoading`: the load in progress. */
  let loading: AbortController | undefined;
  const serial = <T>(run: () => Promise<T>): Promise<T> => {
    const next = queue.then(run, run);
    queue = next.catch(() => undefined);
    return next;
  };
  const current = (): R => {
    if (!instance) throw new DocQaError('internal', `${runtime.name} worker: no model is loaded: call load() first`);
    return instance;
  };
  /** The model again, on WASM, after WebGPU failed under it. */
  const reloadOnWasm = async () => {
    if (!reopenOnWasm) throw new DocQaError('internal', `${runtime.name} worker: no model to load again`);
    const previous = instance;
    instance = await reopenOnWasm();
    await previous?.dispose().catch(() => undefined);
  };
  const cache = async () => {
    const opened = await cacheOnce;
    if (!opened) throw new DocQaError('internal', 'model import: this browser gives the app no Cache API (private window?): the model cannot be kept');
    return opened;
  };

  // Measured once: ONNX Runtime reads its thread count when the worker's first session starts.
  let threadsOnce: Promise<number> | undefined;
  let threadsInEffect: number | undefined;
  /**
   * WASM threads when the load names none: the rule on the cores reported (`wasmThreads`), capped by
   * the cores measured free where a probe is given (in a cross-origin isolated page, more than 2 cores).
   */
  const defaultThreads = (platform: Platform): Promise<number> => {
    const reported = platform.hardwareConcurrency;
    if (!options.measureCores || !platform.inBrowser || !platform.crossOriginIsolated || !(reported > 2)) return Promise.resolve(wasmThreads(platform.crossOriginIsolated, reported));
    const measure = options.measureCores;
    threadsOnce ??= measure(reported).then(
      (measured) => {
        const free = Math.min(reported, Math.max(1, measured));
        const threads = threadsOnFreeCores(reported, free);
        console.info(`ONNX Runtime (${runtime.name}): ${threads} thread${threads === 1 ? '' : 's'} (${free.toFixed(1)} cores measured free of ${reported} reported)`);
        return threads;
      },
      () => 1,
    );
    return threadsOnce;
  };

  async function load(request: LoadRequest<M>, onProgress?: (event: LoadProgress) => void): Promise<LoadedModel & X> {
    const t0 = performance.now();
    const { model, source } = request;
    const platform = await platformOnce;
    const asked = request.threads ?? runtime.threads;
    const forced = asked === undefined ? undefined : clampThreads(asked);
    let threads = platform.crossOriginIsolated && forced ? forced : await defaultThreads(platform);
    if (platform.inBrowser) {
      // ONNX Runtime reads its thread count once, when the worker's first session starts: every later
      // load runs on those threads, whatever it asks (a fresh worker is needed for others).
      if (threadsInEffect === undefined) {
        const wasm = env.backends.onnx.wasm;
        if (wasm) wasm.numThreads = threads;
        threadsInEffect = threads;
      }
      threads = threadsInEffect;
      await prepareWasmRuntime(options.wasmUrl);
    }
    const bound = runtime.ownFiles?.owns(model.repo) ? undefined : cacheForLoad(await cacheOnce, model, source);
    const controller = new AbortController();
    loading = controller;
    const open = (device: 'wasm' | 'webgpu' | undefined, progress?: (e: LoadProgress) => void) =>
      runtime.open(model, { source, fetch: baseFetch, signal: controller.signal, ...(bound ? { cache: bound } : {}), ...(device ? { device } : {}), ...(progress ? { onProgress: progress } : {}) });

    await instance?.dispose().catch(() => undefined);
    instance = undefined;
    const wanted = request.device ?? runtime.device ?? 'wasm';
    let device: ModelDevice;
    let notice: string;
    if (!platform.inBrowser) {
      instance = await open(undefined, onProgress);
      device = 'cpu';
      notice = 'CPU (onnxruntime-node)';
    } else if (wanted === 'auto' && runtime.probe) {
      ({ instance, device, notice } = await chooseAndLoad({ ...platform, threads }, runtime.probe, open, onProgress));
    } else {
      device = wanted === 'webgpu' ? 'webgpu' : 'wasm';
      instance = await open(device, onProgress);
      const where = device === 'wasm' ? wasmLabel(threads) : 'WebGPU';
      notice = request.device ? `${where}: chosen by the caller` : where;
    }
    state.device = device;
    state.notice = undefined;
    reopenOnWasm = () => open('wasm');
    const loaded: LoadedModel = { modelId: model.id, device, threads, notice, stored: bound ? [...bound.stored] : [], ...notKeptBy(bound), loadMs: Math.round(performance.now() - t0) };
    return { ...runtime.describe(model, instance), ...loaded };
  }

  const api: ModelHostApi<M, LoadedModel & X> = {
    load: (request, onProgress) =>
      serial(async () => {
        try {
          return await load(request, onProgress);
        } finally {
          loading = undefined;
        }
      }),
    // Not queued: it reaches the load in progress.
    stopLoading: async () => loading?.abort(),
    unload: () =>
      serial(async () => {
        await instance?.dispose();
        instance = undefined;
      }),
    takeDeviceNotice: () => serial(async () => takeNotice(state)),
    listCached: () =>
      serial(async () => {
        const opened = await cacheOnce;
        return opened ? listCachedModels(opened) : [];
      }),
    deleteCached: (repo, revision) =>
      serial(async () => {
        if (runtime.ownFiles?.owns(repo)) return runtime.ownFiles.delete(repo);
        const opened = await cacheOnce;
        return opened ? deleteCachedModel(opened, repo, revision) : 0;
      }),
    importFiles: (model, files) =>
      serial(async () =>
        importModelFiles(
          await cache(),
          model,
          files,
          model.files.map((f) => f.path),
        ),
      ),
  };
  return {
    api,
    run: (use) => serial(() => withWasmFallback(state, () => use(current()), reloadOnWasm)),
    current,
  };
}

/**
 * Loads on WASM, and on WebGPU too when a real (not fallback) adapter exists; times the same probe batch
 * on both, keeps the faster (a tie goes to WASM) and disposes the other.
 */
async function chooseAndLoad<R extends Disposable>(
  platform: Platform & { threads?: number },
  probe: NonNullable<Runtime<HostedModel, R, object>['probe']>,
  open: (device: 'wasm' | 'webgpu', progress?: (e: LoadProgress) => void) => Promise<R>,
  onProgress?: (event: LoadProgress) => void,
): Promise<{ instance: R; device: 'wasm' | 'webgpu'; notice: string }> {
  const onWasm = await open('wasm', onProgress);
  const measured: DeviceProbe = { wasmProbeMs: Number.NaN, crossOriginIsolated: platform.crossOriginIsolated, hardwareConcurrency: platform.hardwareConcurrency };
  if (platform.threads) measured.threads = platform.threads;
  if (platform.gpu) measured.webgpu = { ...platform.gpu };
  let onGpu: R | undefined;
  if (platform.gpu?.adapter && !platform.gpu.isFallbackAdapter) {
    measured.wasmProbeMs = await timeMs(() => probe.timed(onWasm));
    try {
      onGpu = await open('webgpu'); // the files come from the cache (or memory) this time
      await probe.warmUp(onGpu);
      measured.webgpu!.probeMs = await timeMs(() => probe.timed(onGpu!));
    } catch {
      // No probe time: chooseDevice says "the WebGPU probe did not run".
    }
  }
  const choice = chooseDevice(measured);
  if (choice.device === 'webgpu' && onGpu) {
    await onWasm.dispose();
    return { instance: onGpu, device: 'webgpu', notice: choice.reason };
  }
  await onGpu?.dispose();
  return { instance: onWasm, device: 'wasm', notice: choice.reason };
}
