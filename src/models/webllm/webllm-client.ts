/**
 * The app's {@link WebLlmDeps}: each load starts web-llm's engine in a worker of its own
 * (`workers/llm.worker.ts`), like `CreateWebWorkerMLCEngine(worker, modelId, { initProgressCallback })`
 * (which is `new WebWorkerMLCEngine(worker, config).reload(modelId)`; written out here so a load can be
 * stopped and a dying worker noticed). This module imports web-llm itself (several MB): import it
 * dynamically, once the person chooses a WebLLM model.
 */
import { deleteModelAllInfoInCache, prebuiltAppConfig, WebWorkerMLCEngine, type AppConfig } from '@mlc-ai/web-llm';
import type { LoadedEngine, WebLlmDeps } from './webllm-generator.ts';

/** Starts the WebLLM worker (module worker named `llm`). */
export function spawnLlmWorker(): Worker {
  return new Worker(new URL('../../../workers/llm.worker.ts', import.meta.url), { type: 'module', name: 'llm' });
}

export interface WebLlmClientOptions {
  /** Models and where their files come from; default web-llm's prebuilt list (huggingface.co, model libraries on GitHub). */
  appConfig?: AppConfig;
  spawn?: () => Worker;
}

/**
 * WebLLM through a worker. A load that fails, is stopped, or whose worker dies (an `error` event: the
 * worker ran out of memory) terminates the worker, which also ends its downloads before the partial
 * files are deleted. The worker's death rejects as `WebLlmWorkerError`, which `explainWebLlmError`
 * reports as out of memory.
 */
export function createWebLlmDeps(options: WebLlmClientOptions = {}): WebLlmDeps {
  const appConfig = options.appConfig ?? prebuiltAppConfig;
  const spawn = options.spawn ?? spawnLlmWorker;
  return {
    async createEngine(modelId, { onProgress, signal }): Promise<LoadedEngine> {
      const worker = spawn();
      const dispose = () => worker.terminate();
      let onError = (_event: ErrorEvent) => {};
      let onAbort = () => {};
      const stopped = new Promise<never>((_, reject) => {
        onError = (event) => {
          const error = new Error(`the WebLLM worker stopped: ${event.message || 'no message'}`);
          error.name = 'WebLlmWorkerError';
          reject(error);
        };
        onAbort = () => reject(new DOMException('loading stopped', 'AbortError'));
      });
      stopped.catch(() => undefined); // only raced while loading
      worker.addEventListener('error', onError);
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        if (signal?.aborted) throw new DOMException('loading stopped', 'AbortError');
        const engine = new WebWorkerMLCEngine(worker, { appConfig, initProgressCallback: onProgress });
        await Promise.race([engine.reload(modelId), stopped]);
        return { engine, dispose, died: watchDeath(worker) };
      } catch (err) {
        dispose();
        throw err;
      } finally {
        worker.removeEventListener('error', onError);
        signal?.removeEventListener('abort', onAbort);
      }
    },
    deleteCachedModel: (modelId) => deleteModelAllInfoInCache(modelId, appConfig),
  };
}

/**
 * Rejects (as `WebLlmWorkerError`, which `explainWebLlmError` reports) once the loaded engine's worker
 * reports an uncaught error or a message it cannot read: web-llm's client would otherwise wait forever
 * for the reply to a request in flight. (A worker the browser kills outright sends no event at all.)
 */
function watchDeath(worker: Worker): Promise<never> {
  const died = new Promise<never>((_, reject) => {
    const onDeath = (event: Event) => {
      const error = new Error(`the WebLLM worker stopped: ${(event as ErrorEvent).message || event.type}`);
      error.name = 'WebLlmWorkerError';
      reject(error);
    };
    worker.addEventListener('error', onDeath, { once: true });
    worker.addEventListener('messageerror', onDeath, { once: true });
  });
  died.catch(() => undefined); // raced by each request; nothing else waits for it
  return died;
}
