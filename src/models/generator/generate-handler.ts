/**
 * The generate worker's API (`workers/generate.worker.ts`): one transformers.js text-generation model
 * (the WASM fallback when there is no WebGPU for WebLLM), loaded from a source with its files in the
 * shared model cache, and runs that stream their pieces to a callback and stop on request. Its own
 * worker: writing an answer never waits behind background embedding, nor it behind a long answer.
 */
import { DocQaError } from '../../core/errors.ts';
import type { GeneratorModelEntry } from '../generator-catalogue.ts';
import { notKeptBy, openModelCache, type CacheLike } from '../model-cache.ts';
import { cacheForLoad, type LoadProgress, type ModelSource } from '../model-source.ts';
import { prepareWasmRuntime } from '../runtime-binary.ts';
import type { GenerateRequest } from './generator.ts';
import { loadTransformersGenerator, type TransformersGenerator } from './transformers-generator.ts';

export interface GeneratorLoadRequest {
  model: GeneratorModelEntry;
  source: ModelSource;
}

export interface LoadedGenerator {
  id: string;
  label: string;
  contextTokens: number;
  notice: string;
  notKept?: { code: DocQaError['code']; message: string };
}

/** A generation request as it crosses to the worker (the signal stays behind: `stop(run)` replaces it). */
export type RemoteGenerateRequest = Omit<GenerateRequest, 'signal'>;

export interface GenerateApi {
  load(request: GeneratorLoadRequest, onProgress?: (event: LoadProgress) => void): Promise<LoadedGenerator>;
  countTokens(text: string): Promise<number>;
  /** Writes the answer of run `run`, each piece to `onPiece`; resolves when it ends (finished or stopped). */
  generate(run: number, request: RemoteGenerateRequest, onPiece: (piece: string) => void): Promise<void>;
  /** Stops run `run` (it keeps what was written). */
  stop(run: number): Promise<void>;
  unload(): Promise<void>;
}

export interface GenerateHandlerOptions {
  wasmUrl?: string;
  openCache?: () => Promise<CacheLike | undefined>;
}

export function createGenerateHandler(options: GenerateHandlerOptions = {}): GenerateApi {
  const cacheOnce = (options.openCache ?? openModelCache)();
  const inBrowser = typeof (globalThis as { caches?: unknown }).caches !== 'undefined' && typeof navigator !== 'undefined';
  let generator: TransformersGenerator | undefined;
  const runs = new Map<number, AbortController>();
  const loaded = (): TransformersGenerator => {
    if (!generator) throw new DocQaError('internal', 'generate worker: no model is loaded: call load() first');
    return generator;
  };
  return {
    async load({ model, source }, onProgress) {
      if (inBrowser) {
        await prepareWasmRuntime(options.wasmUrl);
      }
      const cache = await cacheOnce;
      const bound = cacheForLoad(cache, model, source);
      for (const run of runs.values()) run.abort();
      await generator?.dispose().catch(() => undefined);
      generator = undefined;
      generator = await loadTransformersGenerator(model, { source, ...(bound ? { cache: bound } : {}), ...(inBrowser ? { device: 'wasm' as const } : {}), ...(onProgress ? { onProgress } : {}) });
      return {
        id: model.id,
        label: model.label,
        contextTokens: generator.model.contextTokens,
        notice: inBrowser ? 'WASM' : 'CPU (onnxruntime-node)',
        ...notKeptBy(bound),
      };
    },
    countTokens: (text) => loaded().countTokens(text),
    async generate(run, request, onPiece) {
      const controller = new AbortController();
      runs.set(run, controller);
      try {
        for await (const piece of loaded().stream({ ...request, signal: controller.signal })) onPiece(piece);
      } finally {
        runs.delete(run);
      }
    },
    async stop(run) {
      runs.get(run)?.abort();
    },
    async unload() {
      for (const run of runs.values()) run.abort();
      await generator?.dispose();
      generator = undefined;
    },
  };
}
