/** The typed client of the rerank worker (`workers/rerank.worker.ts`, API in `rerank-handler.ts`), for the library worker. */
import { proxy } from 'comlink';
import { LazyWorker } from '../host/lazy-worker.ts';
import type { LoadProgress } from '../model-source.ts';
import type { LoadedReranker, RerankApi, RerankLoadRequest } from './rerank-handler.ts';

export type { LoadedReranker, RerankLoadRequest } from './rerank-handler.ts';

/** Starts the rerank worker (module worker named `rerank`). */
export function spawnRerankWorker(): Worker {
  return new Worker(new URL('../../../workers/rerank.worker.ts', import.meta.url), { type: 'module', name: 'rerank' });
}

export class RerankWorkerClient {
  private readonly worker: LazyWorker<RerankApi>;

  constructor(spawn: () => Worker = spawnRerankWorker) {
    this.worker = new LazyWorker<RerankApi>('rerank', spawn);
  }

  load(request: RerankLoadRequest, onProgress?: (event: LoadProgress) => void): Promise<LoadedReranker> {
    return this.worker.call((api) => api.load(request, onProgress ? proxy(onProgress) : undefined));
  }

  score(query: string, passages: readonly string[]): Promise<Float32Array> {
    return this.worker.call((api) => api.score(query, [...passages]));
  }

  unload(): Promise<void> {
    return this.worker.call((api) => api.unload());
  }

  terminate(): void {
    this.worker.terminate();
  }
}
