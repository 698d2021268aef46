/**
 * WebLLM as a runtime of the one model host (`models/host/model-host.ts`), in the generate worker beside
 * transformers.js and llama.cpp: the same load request, progress events, device notice, restart after the
 * worker died (`models/host/lazy-worker.ts`) and `Generator` as the other engines. Two things differ, and
 * the host lets a runtime say so: web-llm downloads and keeps the files itself, in caches of its own
 * (`ownFiles`: the host binds no cache to its loads, and deleting its `repo` reaches web-llm), and its
 * loads can be stopped midway (the load's `signal`: web-llm's downloads end and what was partly
 * downloaded is deleted).
 */
import type { GeneratorModelEntry, WebLlmGeneratorEntry } from '../generator-catalogue.ts';
import type { HostedGenerator } from '../generator/generation.ts';
import type { GenerateRequest, Generator } from '../generator/generator.ts';
import type { LoadOptions } from '../model-source.ts';
import { deleteWebLlmModel, loadWebLlm, type WebLlmDeps, type WebLlmGenerator } from './webllm-generator.ts';
import { WEBLLM_REPO_PREFIX } from './webllm-entry.ts';
import { webLlmCachedBytes } from './webllm-caches.ts';

/** A loaded WebLLM model as the host runs it. */
class HostedWebLlm implements HostedGenerator {
  /** web-llm reports no token counts the app reads; the context budget uses `countTokens`' estimate. */
  readonly lastGeneration = undefined;

  constructor(
    private readonly generator: WebLlmGenerator,
    readonly entry: GeneratorModelEntry,
  ) {}

  get model(): Generator['model'] {
    return this.generator.model;
  }

  countTokens(text: string): Promise<number> {
    return this.generator.countTokens(text);
  }

  stream(request: GenerateRequest): AsyncGenerator<string> {
    return this.generator.stream(request);
  }

  dispose(): Promise<void> {
    return this.generator.unload();
  }
}

/**
 * Loads `entry` with web-llm (downloading what it does not keep yet). Only the byte counts of its
 * progress go to `options.onProgress` (the host's events); `options.signal` stops the load.
 */
export async function openWebLlm(deps: WebLlmDeps, entry: WebLlmGeneratorEntry, options: LoadOptions): Promise<HostedGenerator> {
  const generator = await loadWebLlm(deps, {
    model: { id: entry.id, label: entry.label, contextTokens: entry.contextTokens, downloadBytes: entry.downloadBytes },
    onProgress: (event) => {
      if (event.type !== 'stage') options.onProgress?.(event);
    },
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return new HostedWebLlm(generator, entry);
}

/** The host's `ownFiles` for WebLLM: repos starting `web-llm:`, deleted by web-llm; the bytes freed are read from its caches first. */
export function webLlmFiles(deps: WebLlmDeps, cachedBytes: (modelId: string) => Promise<number> = webLlmCachedBytes): { owns(repo: string): boolean; delete(repo: string): Promise<number> } {
  return {
    owns: (repo) => repo.startsWith(WEBLLM_REPO_PREFIX),
    async delete(repo) {
      const id = repo.slice(WEBLLM_REPO_PREFIX.length);
      const bytes = await cachedBytes(id).catch(() => 0);
      await deleteWebLlmModel(deps, { id, label: id });
      return bytes;
    },
  };
}

/** web-llm's engine, imported (several MB) on the first WebLLM load or delete, never before. */
export function lazyWebLlmDeps(): WebLlmDeps {
  let deps: Promise<WebLlmDeps> | undefined;
  const real = () => (deps ??= import('./webllm-engine.ts').then((m) => m.createWebLlmDeps()));
  return {
    createEngine: async (modelId, options) => (await real()).createEngine(modelId, options),
    deleteCachedModel: async (modelId) => (await real()).deleteCachedModel(modelId),
  };
}
