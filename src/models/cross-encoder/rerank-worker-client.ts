/**
 * The typed client of the rerank worker (`workers/rerank.worker.ts`, API in `rerank-handler.ts`), for the
 * library worker: the model host's client (`models/host/model-worker-client.ts`) with the cross-encoder's call.
 */
import type { RerankerModel } from '../catalogue.ts';
import { ModelWorkerClient } from '../host/model-worker-client.ts';
import type { LoadedReranker, RerankApi } from './rerank-handler.ts';

export type { LoadedReranker, RerankLoadRequest } from './rerank-handler.ts';

/** Starts the rerank worker (module worker named `rerank`). */
export function spawnRerankWorker(): Worker {
  return new Worker(new URL('../../../workers/rerank.worker.ts', import.meta.url), { type: 'module', name: 'rerank' });
}

export class RerankWorkerClient extends ModelWorkerClient<RerankerModel, LoadedReranker, RerankApi> {
  constructor(spawn: () => Worker = spawnRerankWorker) {
    super('rerank', spawn);
  }

  score(query: string, passages: readonly string[]): Promise<Float32Array> {
    return this.call((api) => api.score(query, [...passages]));
  }
}
