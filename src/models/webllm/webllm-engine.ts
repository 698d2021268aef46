/**
 * The app's {@link WebLlmDeps}: web-llm's `MLCEngine` run where this module is imported, which is the
 * generate worker (the model host's WebLLM runtime imports it on the first WebLLM load, so a visitor who
 * never chooses one never downloads web-llm's several MB). Written out rather than
 * `CreateMLCEngine(modelId, { initProgressCallback })` so that a load can be stopped: `unload()` during
 * `reload()` aborts web-llm's own downloads (its `reloadController`), after which `reload` returns as if
 * it had finished. A worker that dies under the engine is the generate worker's client's to notice
 * (`models/host/lazy-worker.ts`).
 */
import { deleteModelAllInfoInCache, MLCEngine, prebuiltAppConfig, type AppConfig, type InitProgressReport } from '@mlc-ai/web-llm';
import type { LoadedEngine, WebLlmDeps, WebLlmEngine } from './webllm-generator.ts';

/** What a load needs of web-llm's engine (`MLCEngine` satisfies it; tests pass a mocked one). */
export interface ReloadableEngine extends WebLlmEngine {
  reload(modelId: string): Promise<void>;
}

export interface WebLlmEngineOptions {
  /** Models and where their files come from; default web-llm's prebuilt list (huggingface.co, model libraries on GitHub). */
  appConfig?: AppConfig;
  /** Makes the engine; default `new MLCEngine({ appConfig, initProgressCallback })`. */
  makeEngine?: (options: { appConfig: AppConfig; initProgressCallback: (report: InitProgressReport) => void }) => ReloadableEngine;
  /** Deletes a model's files; default web-llm's `deleteModelAllInfoInCache`. */
  deleteModel?: (modelId: string, appConfig: AppConfig) => Promise<void>;
}

const stopped = () => new DOMException('loading stopped', 'AbortError');

export function createWebLlmDeps(options: WebLlmEngineOptions = {}): WebLlmDeps {
  const appConfig = options.appConfig ?? prebuiltAppConfig;
  const makeEngine = options.makeEngine ?? ((config) => new MLCEngine(config));
  const deleteModel = options.deleteModel ?? deleteModelAllInfoInCache;
  return {
    async createEngine(modelId, { onProgress, signal }): Promise<LoadedEngine> {
      if (signal?.aborted) throw stopped();
      const engine = makeEngine({ appConfig, initProgressCallback: onProgress });
      let onAbort = () => {};
      const aborted = new Promise<never>((_, reject) => {
        onAbort = () => {
          // Ends web-llm's downloads; its reload then returns without an error.
          void engine.unload().catch(() => undefined);
          reject(stopped());
        };
      });
      aborted.catch(() => undefined); // only raced while loading
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        await Promise.race([engine.reload(modelId), aborted]);
        if (signal?.aborted) throw stopped();
        return { engine, dispose: () => undefined };
      } catch (err) {
        await engine.unload().catch(() => undefined);
        throw err;
      } finally {
        signal?.removeEventListener('abort', onAbort);
      }
    },
    deleteCachedModel: (modelId) => deleteModel(modelId, appConfig),
  };
}
