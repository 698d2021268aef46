/**
 * The embed worker's API (`workers/embed.worker.ts`): load one model at a time from a source, with
 * progress, on the device chosen by measurement (`choose-device.ts`); embed passages and questions,
 * returning transferred `Float32Array`s; and manage the model files kept for offline use
 * (`models/model-cache.ts`: list, delete, import a folder). Also used in-process in Node (tests, tools),
 * where there is no Cache API (nothing is cached) and ONNX Runtime runs on the CPU.
 */
import { env } from '@huggingface/transformers';
import { transfer } from 'comlink';
import { DocQaError } from '../../core/errors.ts';
import type { ModelId } from '../../core/ids.ts';
import type { EmbeddingModel } from '../catalogue.ts';
import { prepareWasmRuntime } from '../runtime-binary.ts';
import { cacheForLoad } from '../model-source.ts';
import { deleteCachedModel, importModelFiles, notKeptBy, listCachedModels, openModelCache, type CacheLike, type CachedModel, type ImportFile, type ImportResult } from '../model-cache.ts';
import { chunkEmbedderOf } from '../../embed/chunk-embedder.ts';
import { takeNotice, withWasmFallback, type DeviceState } from '../host/device-fallback.ts';
import { chooseDevice, wasmThreads, type DeviceProbe } from '../host/choose-device.ts';
import { loadEmbedder, type Embedder, type LoadProgress, type ModelSource } from './embedder.ts';

export interface EmbedLoadRequest {
  /** A catalogue entry (`models/catalogue.ts`) or a `localModel(...)`; plain data, so it crosses to the worker. */
  model: EmbeddingModel;
  source: ModelSource;
  /** `auto` (default): WebGPU only if it has a real adapter and its probe beats WASM. `wasm`/`webgpu`: forced. */
  device?: 'auto' | 'wasm' | 'webgpu';
  /**
   * WASM threads, 1–16; default half the cores, at most 4. Always 1 without cross-origin isolation.
   * ONNX Runtime reads it once per worker: only the worker's first load sets it.
   */
  threads?: number;
}

export interface LoadedModel {
  modelId: ModelId;
  dims: number;
  /** `cpu` in Node. */
  device: 'wasm' | 'webgpu' | 'cpu';
  /** ONNX Runtime WASM threads. */
  threads: number;
  /** One line for the person: which device and why ("WASM: no WebGPU adapter"). */
  notice: string;
  /** Files this load wrote into the model cache (empty when every file came from it). */
  stored: string[];
  /** Set when downloaded files could not be kept (storage full): the model works now, but a later load downloads again. */
  notKept?: { code: DocQaError['code']; message: string };
  loadMs: number;
}

/** Vectors of several texts in one transferred buffer: text i at `data[i * dims, (i + 1) * dims)`. */
export interface EmbeddedBatch {
  data: Float32Array;
  dims: number;
  count: number;
}

/** What the embed worker exposes. Calls run one at a time, in order. */
export interface EmbedApi {
  /** Loads `request.model` (replacing the model loaded before); `onProgress` gets per-file and total bytes. */
  load(request: EmbedLoadRequest, onProgress?: (event: LoadProgress) => void): Promise<LoadedModel>;
  /** Token counts with the role's prefix and special tokens (for `fitChunks`), one per text. */
  countTokens(texts: string[], role: 'query' | 'passage'): Promise<number[]>;
  /** `batchSize`: default 16, range 1–256. */
  embedPassages(texts: string[], options?: { batchSize?: number }): Promise<EmbeddedBatch>;
  /**
   * One vector per chunk text, `texts.length × dims` floats (transferred): a text longer than the model's
   * input is split where it fits and its pieces' vectors averaged (`chunk-embedder.ts`), never truncated.
   */
  embedChunks(texts: string[], options?: { batchSize?: number }): Promise<Float32Array>;
  /** Says, once, that the device changed since the load (WebGPU stopped working: now WASM), and why. */
  takeDeviceNotice(): Promise<string | undefined>;
  embedQuery(text: string): Promise<Float32Array>;
  /** Frees the loaded model's session; the model files stay cached. */
  unload(): Promise<void>;
  /** Models in the model cache with the bytes of each file. */
  listCached(): Promise<CachedModel[]>;
  /** Deletes a model's cached files (every revision unless one is given); returns the bytes freed. */
  deleteCached(repo: string, revision?: string): Promise<number>;
  /** Stores a folder of model files for `model` (see `importModelFiles`); a later load needs no network. */
  importFiles(model: Pick<EmbeddingModel, 'repo' | 'revision' | 'files'>, files: ImportFile[]): Promise<ImportResult>;
}

type Fetch = (input: string | URL, init?: RequestInit) => Promise<Response>;

/** What a browser tells about WebGPU and threads; absent `gpu` means no `navigator.gpu`. */
export interface Platform {
  inBrowser: boolean;
  crossOriginIsolated: boolean;
  hardwareConcurrency: number;
  /** `requestAdapter()` result, when `navigator.gpu` exists. */
  gpu?: { adapter: boolean; isFallbackAdapter: boolean };
}

export interface EmbedHandlerOptions {
  /** URL of onnxruntime-web's WASM binary as the app serves it; without it transformers.js loads it from a CDN. */
  wasmUrl?: string;
  /** Default: `caches.open(MODEL_CACHE_NAME)` where the Cache API exists, else no cache. */
  openCache?: () => Promise<CacheLike | undefined>;
  /** The fetch downloads go through (guarded); default transformers.js's `env.fetch` when the handler is made. */
  fetch?: Fetch;
  /** Default: read from `self` and `navigator`. */
  platform?: () => Promise<Platform>;
}

/** Texts for the device probe: the same batch is timed on WASM and on WebGPU. */
const PROBE_TEXTS = Array.from({ length: 8 }, (_, i) => `probe passage ${i}: the quick brown fox jumps over the lazy dog near the river bank in the morning light`);

async function readPlatform(): Promise<Platform> {
  const inBrowser = typeof navigator !== 'undefined' && typeof (globalThis as { caches?: unknown }).caches !== 'undefined';
  const platform: Platform = {
    inBrowser,
    crossOriginIsolated: Boolean((globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated),
    hardwareConcurrency: typeof navigator !== 'undefined' ? navigator.hardwareConcurrency || 1 : 1,
  };
  const gpu = inBrowser ? (navigator as Navigator & { gpu?: { requestAdapter(): Promise<unknown> } }).gpu : undefined;
  if (gpu) {
    try {
      const adapter = (await gpu.requestAdapter()) as { info?: { isFallbackAdapter?: boolean }; isFallbackAdapter?: boolean } | null;
      platform.gpu = { adapter: adapter !== null, isFallbackAdapter: Boolean(adapter?.info?.isFallbackAdapter ?? adapter?.isFallbackAdapter) };
    } catch {
      platform.gpu = { adapter: false, isFallbackAdapter: false };
    }
  }
  return platform;
}

async function timeMs(run: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await run();
  return performance.now() - t0;
}

/** The embed worker's handler; also usable in-process. */
export function createEmbedHandler(options: EmbedHandlerOptions = {}): EmbedApi {
  const baseFetch = options.fetch ?? (env.fetch as Fetch);
  const platformOnce = (options.platform ?? readPlatform)();
  const cacheOnce = (options.openCache ?? openModelCache)();
  let embedder: Embedder | undefined;
  /** The device the loaded model runs on, and a notice when it had to change (WebGPU lost → WASM). */
  const state: DeviceState = { device: 'cpu' };
  /** How to load the current model again on WASM (set by each load). */
  let reopenOnWasm: (() => Promise<Embedder>) | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  /** Runs calls one at a time: transformers.js's `env` is global and a load must not overlap another call. */
  const serial = <T>(run: () => Promise<T>): Promise<T> => {
    const next = queue.then(run, run);
    queue = next.catch(() => undefined);
    return next;
  };
  /** The model again, on WASM, after WebGPU failed under it. */
  const reloadOnWasm = async () => {
    if (!reopenOnWasm) throw new DocQaError('internal', 'embed worker: no model to load again');
    const previous = embedder;
    embedder = await reopenOnWasm();
    await previous?.dispose().catch(() => undefined);
  };
  const loaded = (): Embedder => {
    if (!embedder) throw new DocQaError('internal', 'embed worker: no model is loaded: call load() first');
    return embedder;
  };

  async function load(request: EmbedLoadRequest, onProgress?: (event: LoadProgress) => void): Promise<LoadedModel> {
    const t0 = performance.now();
    const { model, source } = request;
    const platform = await platformOnce;
    const forced = request.threads === undefined ? undefined : Math.max(1, Math.min(16, Math.floor(request.threads)));
    // The rule chooseDevice reports: half the cores, at most 4; 1 without cross-origin isolation.
    const threads = platform.crossOriginIsolated && forced ? forced : wasmThreads(platform.crossOriginIsolated, platform.hardwareConcurrency);
    const wasm = env.backends.onnx.wasm;
    if (platform.inBrowser && wasm) {
      wasm.numThreads = threads; // read once, when the first session starts
      await prepareWasmRuntime(options.wasmUrl);
    }
    const cache = await cacheOnce;
    const bound = cacheForLoad(cache, model, source);
    const open = (device: 'wasm' | 'webgpu' | undefined, progress?: (e: LoadProgress) => void) =>
      loadEmbedder(model, { source, fetch: baseFetch, ...(bound ? { cache: bound } : {}), ...(device ? { device } : {}), ...(progress ? { onProgress: progress } : {}) });

    await embedder?.dispose();
    embedder = undefined;
    let device: LoadedModel['device'];
    let notice: string;
    if (!platform.inBrowser) {
      embedder = await open(undefined, onProgress);
      device = 'cpu';
      notice = 'CPU (onnxruntime-node)';
    } else if (request.device === 'wasm' || request.device === 'webgpu') {
      embedder = await open(request.device, onProgress);
      device = request.device;
      notice = `${request.device === 'wasm' ? `WASM (${threads} thread${threads > 1 ? 's' : ''})` : 'WebGPU'}: chosen by the caller`;
    } else {
      ({ embedder, device, notice } = await chooseAndLoad({ ...platform, ...(forced ? { threads: forced } : {}) }, open, onProgress));
    }
    state.device = device;
    state.notice = undefined;
    reopenOnWasm = () => open('wasm');
    return {
      modelId: model.id,
      dims: model.dims,
      device,
      threads,
      notice,
      stored: bound ? [...bound.stored] : [],
      ...notKeptBy(bound),
      loadMs: Math.round(performance.now() - t0),
    };
  }

  return {
    load: (request, onProgress) => serial(() => load(request, onProgress)),
    countTokens: (texts, role) => serial(async () => texts.map((t) => loaded().countTokens(t, role))),
    embedPassages: (texts, opts) =>
      serial(async () => {
        const { data, dims } = await loaded().embedPassages(texts, opts);
        return transfer({ data, dims, count: texts.length }, [data.buffer]);
      }),
    embedChunks: (texts, opts) =>
      serial(async () => {
        const data = await withWasmFallback(state, () => chunkEmbedderOf(loaded(), opts).embedChunks(texts), reloadOnWasm);
        return transfer(data, [data.buffer]);
      }),
    takeDeviceNotice: () => serial(async () => takeNotice(state)),
    embedQuery: (text) =>
      serial(async () => {
        const vector = await withWasmFallback(state, () => loaded().embedQuery(text), reloadOnWasm);
        return transfer(vector, [vector.buffer]);
      }),
    unload: () =>
      serial(async () => {
        await embedder?.dispose();
        embedder = undefined;
      }),
    listCached: () =>
      serial(async () => {
        const cache = await cacheOnce;
        return cache ? listCachedModels(cache) : [];
      }),
    deleteCached: (repo, revision) =>
      serial(async () => {
        const cache = await cacheOnce;
        return cache ? deleteCachedModel(cache, repo, revision) : 0;
      }),
    importFiles: (model, files) =>
      serial(async () => {
        const cache = await cacheOnce;
        if (!cache) throw new DocQaError('internal', 'model import: this browser gives the app no Cache API (private window?): the model cannot be kept');
        return importModelFiles(cache, model, files, model.files.map((f) => f.path));
      }),
  };
}

/**
 * Loads on WASM, and on WebGPU too when a real (not fallback) adapter exists; times the same probe batch
 * on both, keeps the faster (a tie goes to WASM) and disposes the other.
 */
async function chooseAndLoad(
  platform: Platform & { threads?: number },
  open: (device: 'wasm' | 'webgpu', progress?: (e: LoadProgress) => void) => Promise<Embedder>,
  onProgress?: (event: LoadProgress) => void,
): Promise<{ embedder: Embedder; device: 'wasm' | 'webgpu'; notice: string }> {
  const onWasm = await open('wasm', onProgress);
  const probe: DeviceProbe = { wasmProbeMs: Number.NaN, crossOriginIsolated: platform.crossOriginIsolated, hardwareConcurrency: platform.hardwareConcurrency };
  if (platform.threads) probe.threads = platform.threads;
  if (platform.gpu) probe.webgpu = { ...platform.gpu };
  let onGpu: Embedder | undefined;
  if (platform.gpu?.adapter && !platform.gpu.isFallbackAdapter) {
    probe.wasmProbeMs = await timeMs(() => onWasm.embedPassages(PROBE_TEXTS, { batchSize: PROBE_TEXTS.length }));
    try {
      onGpu = await open('webgpu'); // the files come from the cache (or memory) this time
      await onGpu.embedPassages(PROBE_TEXTS.slice(0, 2)); // warm-up: shader compilation
      probe.webgpu!.probeMs = await timeMs(() => onGpu!.embedPassages(PROBE_TEXTS, { batchSize: PROBE_TEXTS.length }));
    } catch {
      // No probe time: chooseDevice says "the WebGPU probe did not run".
    }
  }
  const choice = chooseDevice(probe);
  if (choice.device === 'webgpu' && onGpu) {
    await onWasm.dispose();
    return { embedder: onGpu, device: 'webgpu', notice: choice.reason };
  }
  await onGpu?.dispose();
  return { embedder: onWasm, device: 'wasm', notice: choice.reason };
}
