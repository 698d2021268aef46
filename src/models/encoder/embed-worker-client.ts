/**
 * The typed client of the embed worker (`workers/embed.worker.ts`, API in `embed-handler.ts`), for the
 * library worker and the model manager. Vectors arrive transferred; `embedPassages` rebuilds the
 * per-text views. If the worker dies (out of memory), pending calls fail with 'internal' and the next
 * call starts a fresh worker, which has no model loaded until `load` is called again.
 */
import { proxy, wrap, type Remote } from 'comlink';
import { DocQaError } from '../../core/errors.ts';
import type { EmbeddingModel } from '../catalogue.ts';
import type { CachedModel, ImportFile, ImportResult } from '../model-cache.ts';
import type { EmbedApi, EmbedLoadRequest, LoadedModel } from './embed-handler.ts';
import type { EmbeddedTexts, LoadProgress } from './embedder.ts';

export type { EmbedLoadRequest, LoadedModel } from './embed-handler.ts';
export type { LoadProgress, ModelSource, EmbeddedTexts } from './embedder.ts';
export type { CachedModel, ImportFile, ImportResult } from '../model-cache.ts';

/** Starts the embed worker (module worker named `embed`). */
export function spawnEmbedWorker(): Worker {
  return new Worker(new URL('../../../workers/embed.worker.ts', import.meta.url), { type: 'module', name: 'embed' });
}

/** A `File` from a folder picker (`webkitRelativePath`) or an {@link ImportFile} with its path already known. */
export type ImportInput = File | ImportFile;

export class EmbedWorkerClient {
  private worker: Worker | undefined;
  private api: Remote<EmbedApi> | undefined;
  private died: Promise<never> | undefined;

  constructor(private readonly spawn: () => Worker = spawnEmbedWorker) {}

  /** Loads a model (replacing the one loaded); progress per file and in total; resolves with the device notice. */
  load(request: EmbedLoadRequest, onProgress?: (event: LoadProgress) => void): Promise<LoadedModel> {
    return this.call((api) => api.load(request, onProgress ? proxy(onProgress) : undefined));
  }

  /** Token counts with the role's prefix and special tokens, one per text. */
  countTokens(texts: string[], role: 'query' | 'passage'): Promise<number[]> {
    return this.call((api) => api.countTokens(texts, role));
  }

  /** One transferred buffer, and a view per text. `batchSize` default 16, range 1–256. */
  async embedPassages(texts: string[], options?: { batchSize?: number }): Promise<EmbeddedTexts> {
    const { data, dims, count } = await this.call((api) => api.embedPassages(texts, options));
    return { data, dims, vectors: Array.from({ length: count }, (_, i) => data.subarray(i * dims, (i + 1) * dims)) };
  }

  /** One vector per chunk text (too-long texts split and averaged), one transferred buffer. */
  embedChunks(texts: string[], options?: { batchSize?: number }): Promise<Float32Array> {
    return this.call((api) => api.embedChunks(texts, options));
  }

  /** Once after WebGPU failed and the model moved to WASM: the notice to show; else undefined. */
  takeDeviceNotice(): Promise<string | undefined> {
    return this.call((api) => api.takeDeviceNotice());
  }

  embedQuery(text: string): Promise<Float32Array> {
    return this.call((api) => api.embedQuery(text));
  }

  /** Frees the model's session (its files stay cached). */
  unload(): Promise<void> {
    return this.call((api) => api.unload());
  }

  listCached(): Promise<CachedModel[]> {
    return this.call((api) => api.listCached());
  }

  /** Bytes freed. */
  deleteCached(repo: string, revision?: string): Promise<number> {
    return this.call((api) => api.deleteCached(repo, revision));
  }

  /** Keeps a model folder the person chose or dropped, for `model`; a later load needs no network. */
  importFiles(model: Pick<EmbeddingModel, 'repo' | 'revision' | 'files'>, files: readonly ImportInput[]): Promise<ImportResult> {
    const plain = files.map((f) => (f instanceof File ? { path: f.webkitRelativePath || f.name, blob: f } : f));
    const target = { repo: model.repo, revision: model.revision, files: model.files };
    return this.call((api) => api.importFiles(target, plain));
  }

  /** Stops the worker now (a running call fails); the next call starts a fresh one. */
  terminate(): void {
    this.worker?.terminate();
    this.worker = undefined;
    this.api = undefined;
    this.died = undefined;
  }

  private call<T>(run: (api: Remote<EmbedApi>) => Promise<T>): Promise<T> {
    if (!this.worker || !this.api || !this.died) {
      const worker = this.spawn();
      this.worker = worker;
      this.api = wrap<EmbedApi>(worker);
      this.died = new Promise<never>((_, reject) => {
        worker.addEventListener('error', (e) => {
          e.preventDefault();
          if (this.worker === worker) this.terminate();
          reject(new DocQaError('internal', `embed worker stopped (${e.message || 'out of memory?'}): load the model again`));
        });
      });
      this.died.catch(() => undefined);
    }
    return Promise.race([run(this.api), this.died]);
  }
}
