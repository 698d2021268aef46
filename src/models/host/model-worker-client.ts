/**
 * The client side of the model host: a worker started on first use and started again after it died
 * (`lazy-worker.ts`), and the calls every model worker offers (`protocol.ts`), with progress sent back
 * through a Comlink proxy and chosen files turned into plain data. A runtime's client extends it with its
 * own calls (`call`); vectors and scores arrive transferred.
 */
import { proxy, type Remote } from 'comlink';
import { LazyWorker } from './lazy-worker.ts';
import type { CachedModel, HostedModel, ImportFile, ImportResult, LoadedModel, LoadProgress, LoadRequest, ModelHostApi } from './protocol.ts';

/** A `File` from a folder picker (`webkitRelativePath`) or an {@link ImportFile} with its path already known. */
export type ImportInput = File | ImportFile;

export class ModelWorkerClient<M extends HostedModel, L extends LoadedModel, Api extends ModelHostApi<M, L>> {
  private readonly worker: LazyWorker<Api>;

  /** `name` names the worker in errors ("embed worker stopped"); `spawn` starts it. */
  constructor(name: string, spawn: () => Worker) {
    this.worker = new LazyWorker<Api>(name, spawn);
  }

  /**
   * Loads a model (replacing the one loaded); progress per file and in total; resolves with the device notice.
   * Progress crosses on a port of its own (a Comlink proxy), not ordered with the load's reply: a report
   * arriving after the load settled is dropped, so a model shown ready is never shown loading again.
   */
  load(request: LoadRequest<M>, onProgress?: (event: LoadProgress) => void): Promise<L> {
    if (!onProgress) return this.call((api) => api.load(request, undefined) as Promise<L>);
    let settled = false;
    const report = proxy((event: LoadProgress) => {
      if (!settled) onProgress(event);
    });
    return this.call((api) => api.load(request, report) as Promise<L>).finally(() => {
      settled = true;
    });
  }

  /** Stops the load in progress where its runtime can (WebLLM); see `ModelHostApi.stopLoading`. */
  stopLoading(): Promise<void> {
    return this.call((api) => api.stopLoading());
  }

  /** Frees the model's session (its files stay cached). */
  unload(): Promise<void> {
    return this.call((api) => api.unload());
  }

  /** Once after WebGPU failed and the model moved to WASM: the notice to show; else undefined. */
  takeDeviceNotice(): Promise<string | undefined> {
    return this.call((api) => api.takeDeviceNotice());
  }

  listCached(): Promise<CachedModel[]> {
    return this.call((api) => api.listCached());
  }

  /** Bytes freed. */
  deleteCached(repo: string, revision?: string): Promise<number> {
    return this.call((api) => api.deleteCached(repo, revision));
  }

  /** Keeps a model folder the person chose or dropped, for `model`; a later load needs no network. */
  importFiles(model: Pick<M, 'repo' | 'revision' | 'files'>, files: readonly ImportInput[]): Promise<ImportResult> {
    const plain = files.map((f) => (f instanceof File ? { path: f.webkitRelativePath || f.name, blob: f } : f));
    const target = { repo: model.repo, revision: model.revision, files: model.files };
    return this.call((api) => api.importFiles(target, plain));
  }

  /** Stops the worker now (a running call fails); the next call starts a fresh one. */
  terminate(): void {
    this.worker.terminate();
  }

  /** One call to the worker: fails with 'internal' ("<name> worker stopped") if the worker dies meanwhile. */
  protected call<T>(run: (api: Remote<Api>) => Promise<T>): Promise<T> {
    return this.worker.call(run);
  }
}
