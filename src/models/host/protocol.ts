/**
 * The one protocol every model worker speaks (the embed, rerank and generate workers, and any runtime
 * added later): what a load asks for, what it answers, and the calls every host offers besides its
 * runtime's own (the model files kept for offline use). Plain data only, so each crosses to a worker.
 * The host that serves it is `model-host.ts`; the client that calls it is `model-worker-client.ts`.
 */
import type { DocQaError } from '../../core/errors.ts';
import type { ModelId } from '../../core/ids.ts';
import type { CatalogueEntry } from '../catalogue.ts';
import type { CachedModel, ImportFile, ImportResult } from '../model-cache.ts';
import type { LoadProgress, ModelSource } from '../model-source.ts';

export type { LoadProgress, ModelSource } from '../model-source.ts';
export type { CachedModel, ImportFile, ImportResult } from '../model-cache.ts';

/** What the host needs of a model: any catalogue entry (an encoder, a cross-encoder, a text generator). */
export type HostedModel = CatalogueEntry;

/** Where a model runs: `cpu` is onnxruntime-node (Node: tools and tests). */
export type ModelDevice = 'wasm' | 'webgpu' | 'cpu';

/** Which device a load asks for. */
export type DeviceRequest = 'auto' | 'wasm' | 'webgpu';

export interface LoadRequest<M extends HostedModel> {
  /** A catalogue entry or a local folder's; plain data, so it crosses to the worker. */
  model: M;
  source: ModelSource;
  /**
   * `auto`: WebGPU only if it has a real adapter and the runtime's probe beats WASM (a runtime without a
   * probe runs on WASM). `wasm`/`webgpu`: forced. Default: the runtime's own (`auto` for the encoder,
   * `wasm` for the others).
   */
  device?: DeviceRequest;
  /**
   * WASM threads, 1–16; default the runtime's own, else half the cores, at most 4. Always 1 without
   * cross-origin isolation. ONNX Runtime reads it once per worker: only the worker's first load sets it.
   */
  threads?: number;
}

/** What every load answers; a runtime adds its own fields (an encoder's `dims`). */
export interface LoadedModel {
  modelId: ModelId;
  device: ModelDevice;
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

/** The calls every model worker offers; calls run one at a time, in order, unless a runtime says otherwise. */
export interface ModelHostApi<M extends HostedModel, L extends LoadedModel = LoadedModel> {
  /** Loads `request.model`, replacing the model loaded before; `onProgress` gets per-file and total bytes. */
  load(request: LoadRequest<M>, onProgress?: (event: LoadProgress) => void): Promise<L>;
  /**
   * Stops the load in progress, if its runtime can stop midway (WebLLM: its downloads end, nothing
   * partial is kept, and the load rejects as `cancelled`); other loads finish. Never waits behind it.
   */
  stopLoading(): Promise<void>;
  /** Frees the loaded model's session; its files stay cached. */
  unload(): Promise<void>;
  /** Says, once, that the device changed since the load (WebGPU stopped working: now WASM), and why. */
  takeDeviceNotice(): Promise<string | undefined>;
  /** Models in the model cache with the bytes of each file. */
  listCached(): Promise<CachedModel[]>;
  /** Deletes a model's cached files (every revision unless one is given); returns the bytes freed. */
  deleteCached(repo: string, revision?: string): Promise<number>;
  /** Stores a folder of model files for `model` (see `importModelFiles`); a later load needs no network. */
  importFiles(model: Pick<HostedModel, 'repo' | 'revision' | 'files'>, files: ImportFile[]): Promise<ImportResult>;
}
