/**
 * The rerank worker's API (`workers/rerank.worker.ts`): the model host (`models/host/model-host.ts`)
 * running a cross-encoder, with files in the same model cache as the embedder's, plus its one call:
 * scores of (question, passage) pairs. A worker of its own, beside the embed worker: a question's
 * reranking never waits behind a batch of background embedding, and each worker's transformers.js
 * settings (`env`) stay its own.
 */
import { transfer } from 'comlink';
import type { RerankerModel } from '../catalogue.ts';
import { createModelHost, type HostOptions, type Runtime } from '../host/model-host.ts';
import type { LoadedModel, LoadRequest, ModelHostApi } from '../host/protocol.ts';
import { loadReranker, type Reranker } from './reranker.ts';

export type RerankLoadRequest = LoadRequest<RerankerModel>;

export type LoadedReranker = LoadedModel;

export interface RerankApi extends ModelHostApi<RerankerModel, LoadedReranker> {
  /** One score (the model's logit) per passage, in input order; transferred. */
  score(query: string, passages: string[]): Promise<Float32Array>;
}

export type RerankHandlerOptions = HostOptions;

/** The cross-encoder as the model host runs it: WASM, one thread (reranking 40 short pairs gains little from more, and the embed worker runs beside it). */
export const CROSS_ENCODER: Runtime<RerankerModel, Reranker, object> = {
  name: 'rerank',
  open: loadReranker,
  device: 'wasm',
  threads: 1,
  describe: () => ({}),
};

/** The rerank worker's handler; also usable in-process (Node: CPU, no cache). */
export function createRerankHandler(options: RerankHandlerOptions = {}): RerankApi {
  const host = createModelHost(CROSS_ENCODER, options);
  return {
    ...host.api,
    score: (query, passages) =>
      host.run(async (reranker) => {
        const scores = await reranker.score(query, passages);
        return transfer(scores, [scores.buffer]);
      }),
  };
}
