/**
 * The rerank worker's API (`workers/rerank.worker.ts`): loads one cross-encoder from a source (files kept
 * in the same model cache as the embedder's, `models/model-cache.ts`) and scores (question, passage)
 * pairs. A worker of its own, beside the embed worker: a question's reranking never waits behind a batch
 * of background embedding, and each worker's transformers.js settings (`env`) stay its own.
 */
import { env } from '@huggingface/transformers';
import { transfer } from 'comlink';
import { DocQaError } from '../../core/errors.ts';
import type { ModelId } from '../../core/ids.ts';
import type { RerankerModel } from '../catalogue.ts';
import { notKeptBy, openModelCache, type CacheLike } from '../model-cache.ts';
import { cacheForLoad, type LoadProgress, type ModelSource } from '../model-source.ts';
import { prepareWasmRuntime } from '../runtime-binary.ts';
import { loadReranker, type Reranker } from './reranker.ts';

export interface RerankLoadRequest {
  model: RerankerModel;
  source: ModelSource;
}

export interface LoadedReranker {
  modelId: ModelId;
  /** Where it runs ("WASM (1 thread)", "CPU (onnxruntime-node)"). */
  notice: string;
  /** Files this load wrote into the model cache. */
  stored: string[];
  /** Set when downloaded files could not be kept (storage full). */
  notKept?: { code: DocQaError['code']; message: string };
}

export interface RerankApi {
  load(request: RerankLoadRequest, onProgress?: (event: LoadProgress) => void): Promise<LoadedReranker>;
  /** One score (the model's logit) per passage, in input order; transferred. */
  score(query: string, passages: string[]): Promise<Float32Array>;
  unload(): Promise<void>;
}

export interface RerankHandlerOptions {
  /** URL of onnxruntime-web's WASM binary as the app serves it. */
  wasmUrl?: string;
  /** Default: the model files cache where the Cache API exists. */
  openCache?: () => Promise<CacheLike | undefined>;
}

/** The rerank worker's handler; also usable in-process (Node: CPU, no cache). */
export function createRerankHandler(options: RerankHandlerOptions = {}): RerankApi {
  const cacheOnce = (options.openCache ?? openModelCache)();
  const inBrowser = typeof (globalThis as { caches?: unknown }).caches !== 'undefined' && typeof navigator !== 'undefined';
  let reranker: Reranker | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(run: () => Promise<T>): Promise<T> => {
    const next = queue.then(run, run);
    queue = next.catch(() => undefined);
    return next;
  };
  const loaded = (): Reranker => {
    if (!reranker) throw new DocQaError('internal', 'rerank worker: no model is loaded: call load() first');
    return reranker;
  };

  async function load({ model, source }: RerankLoadRequest, onProgress?: (event: LoadProgress) => void): Promise<LoadedReranker> {
    if (inBrowser) {
      // One thread: reranking 40 short pairs gains little from more, and the embed worker runs beside it.
      if (env.backends.onnx.wasm) env.backends.onnx.wasm.numThreads = 1;
      await prepareWasmRuntime(options.wasmUrl);
    }
    const cache = await cacheOnce;
    const bound = cacheForLoad(cache, model, source);
    await reranker?.dispose().catch(() => undefined);
    reranker = undefined;
    reranker = await loadReranker(model, { source, ...(bound ? { cache: bound } : {}), ...(inBrowser ? { device: 'wasm' as const } : {}), ...(onProgress ? { onProgress } : {}) });
    return {
      modelId: model.id,
      notice: inBrowser ? 'WASM (1 thread)' : 'CPU (onnxruntime-node)',
      stored: bound ? [...bound.stored] : [],
      ...notKeptBy(bound),
    };
  }

  return {
    load: (request, onProgress) => serial(() => load(request, onProgress)),
    score: (query, passages) =>
      serial(async () => {
        const scores = await loaded().score(query, passages);
        return transfer(scores, [scores.buffer]);
      }),
    unload: () =>
      serial(async () => {
        await reranker?.dispose();
        reranker = undefined;
      }),
  };
}
