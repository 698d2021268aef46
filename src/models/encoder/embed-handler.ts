/**
 * The embed worker's API (`workers/embed.worker.ts`): the model host (`models/host/model-host.ts`) running
 * the encoder, whose device is chosen by measurement (the probe below), plus the encoder's own calls:
 * passages and questions to vectors, returned as transferred `Float32Array`s, and whole chunks to one vector
 * each (the embed stage's chunk fitting, which needs the model's tokenizer, runs here). Also used
 * in-process in Node (tests, tools), where there is no Cache API and ONNX Runtime runs on the CPU.
 */
import { transfer } from 'comlink';
import { chunkEmbedderOf } from '../../embed/chunk-embedder.ts';
import type { EmbeddingModel } from '../catalogue.ts';
import { createModelHost, type HostOptions, type Runtime } from '../host/model-host.ts';
import type { LoadedModel as HostLoaded, LoadRequest, ModelHostApi } from '../host/protocol.ts';
import { loadEmbedder, type Embedder } from './embedder.ts';

export type { Platform } from '../host/model-host.ts';

export type EmbedLoadRequest = LoadRequest<EmbeddingModel>;

export interface LoadedModel extends HostLoaded {
  dims: number;
}

/** Vectors of several texts in one transferred buffer: text i at `data[i * dims, (i + 1) * dims)`. */
export interface EmbeddedBatch {
  data: Float32Array;
  dims: number;
  count: number;
}

/** What the embed worker exposes. Calls run one at a time, in order. */
export interface EmbedApi extends ModelHostApi<EmbeddingModel, LoadedModel> {
  /** Token counts with the role's prefix and special tokens (for `fitChunks`), one per text. */
  countTokens(texts: string[], role: 'query' | 'passage'): Promise<number[]>;
  /** `batchSize`: default 16, range 1–256. */
  embedPassages(texts: string[], options?: { batchSize?: number }): Promise<EmbeddedBatch>;
  /**
   * One vector per chunk text, `texts.length × dims` floats (transferred): a text longer than the model's
   * input is split where it fits and its pieces' vectors averaged (`chunk-embedder.ts`), never truncated.
   */
  embedChunks(texts: string[], options?: { batchSize?: number }): Promise<Float32Array>;
  embedQuery(text: string): Promise<Float32Array>;
}

export type EmbedHandlerOptions = HostOptions;

/** Texts for the device probe: the same batch is timed on WASM and on WebGPU. */
const PROBE_TEXTS = Array.from({ length: 8 }, (_, i) => `probe passage ${i}: the quick brown fox jumps over the lazy dog near the river bank in the morning light`);

/** The encoder as the model host runs it: WebGPU or WASM by measurement unless the load says. */
export const ENCODER: Runtime<EmbeddingModel, Embedder, { dims: number }> = {
  name: 'embed',
  open: loadEmbedder,
  device: 'auto',
  probe: {
    warmUp: (embedder) => embedder.embedPassages(PROBE_TEXTS.slice(0, 2)),
    timed: (embedder) => embedder.embedPassages(PROBE_TEXTS, { batchSize: PROBE_TEXTS.length }),
  },
  describe: (model) => ({ dims: model.dims }),
};

/** The embed worker's handler; also usable in-process. */
export function createEmbedHandler(options: EmbedHandlerOptions = {}): EmbedApi {
  const host = createModelHost(ENCODER, options);
  return {
    ...host.api,
    countTokens: (texts, role) => host.run(async (embedder) => texts.map((t) => embedder.countTokens(t, role))),
    embedPassages: (texts, opts) =>
      host.run(async (embedder) => {
        const { data, dims } = await embedder.embedPassages(texts, opts);
        return transfer({ data, dims, count: texts.length }, [data.buffer]);
      }),
    embedChunks: (texts, opts) =>
      host.run(async (embedder) => {
        const data = await chunkEmbedderOf(embedder, opts).embedChunks(texts);
        return transfer(data, [data.buffer]);
      }),
    embedQuery: (text) =>
      host.run(async (embedder) => {
        const vector = await embedder.embedQuery(text);
        return transfer(vector, [vector.buffer]);
      }),
  };
}
