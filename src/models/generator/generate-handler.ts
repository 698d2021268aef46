/**
 * The generate worker's API (`workers/generate.worker.ts`): the model host (`models/host/model-host.ts`)
 * running one text-generation model (an ONNX export on transformers.js, a GGUF file on llama.cpp in
 * WebAssembly, both with their files in the shared model cache, or a WebLLM model on WebGPU, whose files
 * web-llm keeps), plus runs that stream their
 * pieces to a callback and stop on request. Runs and stops do not wait behind other calls (the generator keeps its own queue), so a
 * stop reaches a run in progress. Its own worker: writing an answer never waits behind background
 * embedding, nor it behind a long answer.
 */
import { DocQaError } from '../../core/errors.ts';
import type { GeneratorModelEntry } from '../generator-catalogue.ts';
import { createModelHost, type HostOptions, type Runtime } from '../host/model-host.ts';
import type { LoadedModel, LoadRequest, ModelHostApi } from '../host/protocol.ts';
import type { GenerateRequest } from './generator.ts';
import { loadGgufGenerator, type GgufWasmPaths } from '../gguf/gguf-generator.ts';
import type { HostedGenerator } from './generation.ts';
import { loadTransformersGenerator } from './transformers-generator.ts';
import type { WebLlmDeps } from '../webllm/webllm-generator.ts';
import { openWebLlm, webLlmFiles } from '../webllm/webllm-runtime.ts';

export type GeneratorLoadRequest = LoadRequest<GeneratorModelEntry>;

export interface LoadedGenerator extends LoadedModel {
  label: string;
  /** The context budget, at most the positions the model was built for. */
  contextTokens: number;
}

/** A generation request as it crosses to the worker (the signal stays behind: `stop(run)` replaces it). */
export type RemoteGenerateRequest = Omit<GenerateRequest, 'signal'>;

export interface GenerateApi extends ModelHostApi<GeneratorModelEntry, LoadedGenerator> {
  countTokens(text: string): Promise<number>;
  /** Writes the answer of run `run`, each piece to `onPiece`; resolves when it ends (finished or stopped). */
  generate(run: number, request: RemoteGenerateRequest, onPiece: (piece: string) => unknown): Promise<void>;
  /** Stops run `run` (it keeps what was written). */
  stop(run: number): Promise<void>;
}

export interface GenerateHandlerOptions extends HostOptions {
  /** Where the app serves llama.cpp's WebAssembly; without it GGUF models are refused. */
  gguf?: GgufWasmPaths;
  /** web-llm's engine (the worker's: `lazyWebLlmDeps()`; tests: a mocked one); without it WebLLM models are refused. */
  webllm?: WebLlmDeps;
}

/**
 * The text generators as the model host runs them, by the entry's format: transformers.js (WASM unless
 * the load asks for WebGPU), llama.cpp (WASM) or WebLLM (WebGPU; its files its own).
 */
export function textGenerator(gguf: GgufWasmPaths | undefined, webllm?: WebLlmDeps, measureCores?: (upTo: number) => Promise<number>): Runtime<GeneratorModelEntry, HostedGenerator, { label: string; contextTokens: number }> {
  return {
    name: 'generate',
    open(model, options) {
      if (model.format === 'onnx') return loadTransformersGenerator(model, options);
      const { device: _device, ...rest } = options;
      if (model.format === 'mlc') {
        if (!webllm) throw new DocQaError('webgpu-unavailable', `generator: ${model.label} is a WebLLM model, which runs only in a browser with WebGPU`);
        return openWebLlm(webllm, model, rest);
      }
      if (!gguf) throw new DocQaError('model-unsupported', `generator: ${model.label} is a GGUF model, which runs only in the browser (llama.cpp in WebAssembly)`);
      return loadGgufGenerator(model, { ...rest, wasm: gguf, ...(measureCores ? { measureCores } : {}) });
    },
    device: 'wasm',
    describe: (model, generator) => ({ label: model.label, contextTokens: generator.model.contextTokens }),
    ...(webllm ? { ownFiles: webLlmFiles(webllm) } : {}),
  };
}

/** The generate worker's handler; also usable in-process (Node: CPU, no cache). */
export function createGenerateHandler(options: GenerateHandlerOptions = {}): GenerateApi {
  const host = createModelHost(textGenerator(options.gguf, options.webllm, options.measureCores), options);
  const runs = new Map<number, AbortController>();
  const stopAll = () => {
    for (const run of runs.values()) run.abort();
  };
  return {
    ...host.api,
    load: (request, onProgress) => {
      stopAll();
      return host.api.load(request, onProgress);
    },
    unload: () => {
      stopAll();
      return host.api.unload();
    },
    countTokens: async (text) => host.current().countTokens(text),
    async generate(run, request, onPiece) {
      const controller = new AbortController();
      runs.set(run, controller);
      // Across a worker, `onPiece` is a Comlink proxy on a port of its own: its calls are not ordered
      // with this call's reply, so the last pieces could arrive after the run "ended". Each call is sent
      // at once (no round trip per piece) and all are awaited before the run resolves.
      const delivered: unknown[] = [];
      try {
        for await (const piece of host.current().stream({ ...request, signal: controller.signal })) delivered.push(onPiece(piece));
      } finally {
        runs.delete(run);
        await Promise.allSettled(delivered);
      }
    },
    async stop(run) {
      runs.get(run)?.abort();
    },
  };
}
