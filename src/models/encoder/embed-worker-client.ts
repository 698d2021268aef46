/**
 * The typed client of the embed worker (`workers/embed.worker.ts`, API in `embed-handler.ts`), for the
 * library worker and the model manager: the model host's client (`models/host/model-worker-client.ts`:
 * started on first use, again after it died, which leaves no model loaded until `load` is called again)
 * with the encoder's calls. Vectors arrive transferred; `embedPassages` rebuilds the per-text views.
 */
import type { EmbeddingModel } from '../catalogue.ts';
import { ModelWorkerClient } from '../host/model-worker-client.ts';
import type { EmbedApi, LoadedModel } from './embed-handler.ts';
import type { EmbeddedTexts } from './embedder.ts';

export type { EmbedLoadRequest, LoadedModel } from './embed-handler.ts';
export type { LoadProgress, ModelSource, EmbeddedTexts } from './embedder.ts';
export type { CachedModel, ImportFile, ImportResult } from '../model-cache.ts';
export type { ImportInput } from '../host/model-worker-client.ts';

/** Starts the embed worker (module worker named `embed`). */
export function spawnEmbedWorker(): Worker {
  return new Worker(new URL('../../../workers/embed.worker.ts', import.meta.url), { type: 'module', name: 'embed' });
}

export class EmbedWorkerClient extends ModelWorkerClient<EmbeddingModel, LoadedModel, EmbedApi> {
  constructor(spawn: () => Worker = spawnEmbedWorker) {
    super('embed', spawn);
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

  /** One vector per chunk (too-long texts split and averaged), one transferred buffer. */
  embedChunks(texts: string[], options?: { batchSize?: number }): Promise<Float32Array> {
    return this.call((api) => api.embedChunks(texts, options));
  }

  embedQuery(text: string): Promise<Float32Array> {
    return this.call((api) => api.embedQuery(text));
  }
}
