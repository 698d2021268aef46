/**
 * Test-only page script (built by `vite.harness.config.ts` into `dist-harness/`, never into the app):
 * puts the embed worker's and the generate worker's clients on `window.harness` for browser tests and
 * the Chromium benches.
 * Every call returns plain data; a DocQaError comes back as `{ error: { code, message } }`.
 */
import { installErrorTransfer } from '../../src/core/error-transfer.ts';
import { DocQaError } from '../../src/core/errors.ts';
import { EmbedWorkerClient, type LoadProgress, type ModelSource } from '../../src/models/encoder/embed-worker-client.ts';
import { localModel, type EmbeddingModel } from '../../src/models/catalogue.ts';
import type { GeneratorModelEntry } from '../../src/models/generator-catalogue.ts';
import { GenerateWorkerClient } from '../../src/models/generator/generate-worker-client.ts';
import type { RemoteGenerateRequest } from '../../src/models/generator/generate-handler.ts';

installErrorTransfer();
const client = new EmbedWorkerClient();
const generator = new GenerateWorkerClient();
let run = 0;

export interface HarnessModel {
  /** Repo (`owner/name`) on the mirror, or the folder name. */
  repo: string;
  dims: number;
  /** Default 'mean'. */
  pooling?: 'mean' | 'cls';
  /** Default 'fp32'. */
  dtype?: 'q8' | 'fp32';
  /** Default ''. */
  queryPrefix?: string;
}

type Result<T> = T | { error: { code: string; message: string } };

async function attempt<T>(run: () => Promise<T>): Promise<Result<T>> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof DocQaError) return { error: { code: err.code, message: err.message } };
    return { error: { code: 'not-a-DocQaError', message: String(err) } };
  }
}

const modelOf = (m: HarnessModel): EmbeddingModel => localModel({ folder: m.repo, dims: m.dims, pooling: m.pooling ?? 'mean', dtype: m.dtype, queryPrefix: m.queryPrefix });

const harness = {
  /** Loads and records every progress event. */
  load: (model: HarnessModel, source: ModelSource, device?: 'auto' | 'wasm' | 'webgpu', threads?: number) =>
    attempt(async () => {
      const events: LoadProgress[] = [];
      const loaded = await client.load({ model: modelOf(model), source, ...(device ? { device } : {}), ...(threads ? { threads } : {}) }, (e) => events.push(e));
      return { loaded, events };
    }),
  /** Stops the embed worker; the next call starts a fresh one (ONNX Runtime's threads are fixed per worker). */
  restartEmbedWorker: () => {
    client.terminate();
    return true;
  },
  embedQuery: (text: string) => attempt(async () => Array.from(await client.embedQuery(text))),
  listCached: () => attempt(() => client.listCached()),
  deleteCached: (repo: string) => attempt(() => client.deleteCached(repo)),
  /** Imports the folder chosen in the page's folder input for `model`. */
  importChosenFolder: (model: HarnessModel) =>
    attempt(() => {
      const input = document.querySelector<HTMLInputElement>('input[type=file]')!;
      return client.importFiles(modelOf(model), [...(input.files ?? [])]);
    }),
  /** Chunks/s of `embedPassages(texts, { batchSize })`, timed in the page around the worker call. */
  chunksPerSecond: (texts: string[], batchSize: number) =>
    attempt(async () => {
      const t0 = performance.now();
      await client.embedPassages(texts, { batchSize });
      return texts.length / ((performance.now() - t0) / 1000);
    }),
  crossOriginIsolated: () => crossOriginIsolated,
  /** Loads a text generator in the generate worker, recording every progress event. */
  loadGenerator: (model: GeneratorModelEntry, source: ModelSource) =>
    attempt(async () => {
      const events: LoadProgress[] = [];
      const loaded = await generator.load({ model, source }, (e) => events.push(e));
      return { loaded, events };
    }),
  /**
   * Generates; returns the pieces, with milliseconds to the first piece and in all, timed in the page.
   * `stopAfter` pieces, then asks the worker to stop.
   */
  generate: (request: RemoteGenerateRequest, stopAfter?: number) =>
    attempt(async () => {
      const pieces: string[] = [];
      const id = ++run;
      const t0 = performance.now();
      let first: number | undefined;
      await generator.generate(id, request, (piece) => {
        first ??= performance.now() - t0;
        pieces.push(piece);
        if (stopAfter !== undefined && pieces.length === stopAfter) void generator.stop(id);
      });
      return { pieces, firstPieceMs: first ?? Number.NaN, totalMs: performance.now() - t0 };
    }),
  countTokens: (text: string) => attempt(() => generator.countTokens(text)),
  unloadGenerator: () => attempt(() => generator.unload()),
};

declare global {
  interface Window {
    harness: typeof harness;
  }
}
window.harness = harness;
document.body.dataset.ready = 'true';
