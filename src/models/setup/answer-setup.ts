import { DocQaError } from '../../core/errors.ts';
import { isFilterRequest } from '../../question/read-filters.ts';
import type { ModelId } from '../../core/ids.ts';
import type { AnswerModelEntry, AnswerModelsView } from '../../core/library-api.ts';
import type { AnswerModelStatus } from '../../core/types.ts';
import type { GeneratorLoadRequest, LoadedGenerator } from '../generator/generate-handler.ts';
import type { Generator } from '../generator/generator.ts';
import { remoteGenerator, type GeneratorPort } from '../generator/remote-generator.ts';
import { gullibleScript, ScriptedGenerator, type Script } from '../generator/scripted-generator.ts';
import type { LoadProgress } from '../model-source.ts';
import { findGenerator, GENERATOR_CATALOGUE, importedGgufEntry, importedOnnxEntry, type GeneratorModelEntry, type GgufGeneratorEntry, type OnnxGeneratorEntry } from '../generator-catalogue.ts';
import type { IncomingFile } from '../../core/library-api.ts';
import { checkGgufFits, readGgufFacts } from '../gguf/gguf-header.ts';
import type { SettingsStore } from '../../store/settings-store.ts';
import type { WebGpuDevice } from '../webllm/webllm-models.ts';
import { describeAnswerModels, webGpuNote, webLlmLabel, type ModelFiles, type WebLlmFacts } from './answer-models.ts';
import type { LibraryModels } from '../../library/library-models.ts';
import { isWorkerRestart, progressReporter } from '../host/model-loading.ts';
import { webLlmEntry, webLlmRepo } from '../webllm/webllm-entry.ts';
import { ModelSettings, type AnswerSetting } from './model-settings.ts';

export type { WebLlmFacts } from './answer-models.ts';
export type { AnswerSetting } from './model-settings.ts';

type Chosen = NonNullable<AnswerSetting['generator']>;

/** What answer setup needs of the generate worker (`models/generator/generate-worker-client.ts`). */
export interface GenerateHost extends GeneratorPort {
  load(request: GeneratorLoadRequest, onProgress?: (event: LoadProgress) => void): Promise<LoadedGenerator>;
  /** Stops a WebLLM load in progress (its partial download deleted); other loads finish. */
  stopLoading(): Promise<void>;
  unload(): Promise<void>;
  /** Deletes a model's files: WebLLM's (`web-llm:<model_id>`) are web-llm's to delete, in the generate worker. */
  deleteCached(repo: string): Promise<number>;
  /** Keeps files for a model in the model cache (a GGUF file imported from disk). */
  importFiles(model: Pick<GeneratorModelEntry, 'repo' | 'revision' | 'files'>, files: Array<{ path: string; blob: Blob }>): Promise<unknown>;
}

export interface AnswerParts {
  /** The library's models: the generator (and the answerer over it) is set there. */
  models: LibraryModels;
  settings: SettingsStore;
  /** The generate worker: every answer model runs there (transformers.js, llama.cpp, WebLLM). */
  host: GenerateHost;
  /** Where the WASM model's files are kept (listed for the space used, deleted on Delete). */
  files: ModelFiles;
  /** This device's WebGPU and the bytes web-llm keeps, read without loading web-llm (`models/webllm/webllm-caches.ts`). */
  webllm: WebLlmFacts;
  /** Tells the other tabs the setting changed (they call `start` again). Default: nothing. */
  announce?: () => void;
  /** What writes answers now, each time it changes (the page's notice). Default: nothing. */
  onStatus?: (status: AnswerModelStatus) => void;
}

/** A loaded model and how to let go of it. */
interface Current {
  key: string;
  unload: () => Promise<void>;
}

/**
 * The library worker's side of answer writing: reads the setting, builds the generator (loading a model
 * in the generate worker when one is chosen), and gives the library an answerer over
 * it (`generate/llm-answerer.ts`). While a model loads, and when none is chosen or it fails to load,
 * answers quote the documents, and {@link status} says why.
 */
export class AnswerSetup {
  private current: Current | undefined;
  private loading: { controller: AbortController; done: Promise<unknown> } | undefined;
  private state: AnswerModelStatus = { state: 'extractive', reason: 'none' };

  private readonly settings: ModelSettings;

  constructor(private readonly parts: AnswerParts) {
    this.settings = new ModelSettings(parts.settings);
  }

  /** What writes answers now (or why answers quote the documents). */
  get status(): AnswerModelStatus {
    return this.state;
  }

  private setStatus(status: AnswerModelStatus): void {
    this.state = status;
    this.parts.onStatus?.(status);
  }

  read(): Promise<AnswerSetting> {
    return this.settings.get('answer');
  }

  /**
   * Applies the setting (at start-up, when another tab changed it, after a choice): loads the chosen
   * model, answers quoting the documents meanwhile. A load that fails leaves extractive answers, with the
   * reason in {@link status}, and rejects with its error.
   */
  async start(): Promise<void> {
    const { generator } = await this.read();
    const key = generator ? keyOf(generator) : undefined;
    if (key !== undefined && key === this.current?.key && this.state.state === 'ready') return;
    // A load in progress is stopped (WebLLM) or awaited (the generate worker loads one model at a time).
    this.loading?.controller.abort();
    await this.loading?.done.catch(() => undefined);
    await this.release(generator !== undefined && generator.kind !== 'scripted');
    if (!generator) {
      this.setStatus({ state: 'extractive', reason: await this.idleReason() });
      return;
    }
    const controller = new AbortController();
    const done = this.load(generator, key!, controller.signal);
    this.loading = { controller, done };
    try {
      await done;
    } finally {
      if (this.loading?.done === done) this.loading = undefined;
    }
  }

  private async load(chosen: Chosen, key: string, signal: AbortSignal): Promise<void> {
    const label = this.labelOf(chosen);
    this.setStatus({ state: 'loading', model: label });
    const report = progressReporter((download) => {
      if (!signal.aborted) this.setStatus({ state: 'loading', model: label, download });
    });
    const onProgress = (event: LoadProgress) => report(event);
    try {
      const loaded = await this.build(chosen, onProgress, signal);
      if (signal.aborted) {
        await loaded.unload().catch(() => undefined);
        return;
      }
      this.current = { key, unload: loaded.unload };
      this.parts.models.setGenerator(onLost(loaded.generator, (err) => void this.lost(key, label, err)));
      this.setStatus({ state: 'ready', model: loaded.generator.model.label });
    } catch (err) {
      if (signal.aborted) return;
      this.parts.models.setGenerator(undefined);
      // A model that did not load is no longer chosen: nothing stays "in use", a reload does not try it again
      // (nor shows its error again), and the chooser offers Try again.
      const { generator } = await this.read();
      if (generator && keyOf(generator) === key) {
        await this.settings.put('answer', {});
        this.parts.announce?.();
      }
      const message = err instanceof Error ? err.message : String(err);
      const code = err instanceof DocQaError ? err.code : undefined;
      this.setStatus({ state: 'extractive', reason: 'failed', model: label, message, ...(code ? { code } : {}), ...(chosen.kind !== 'scripted' ? { modelId: chosen.model } : {}) });
      throw err;
    }
  }

  private async build(chosen: Chosen, onProgress: (event: LoadProgress) => void, signal: AbortSignal): Promise<{ generator: Generator; unload: () => Promise<void> }> {
    if (chosen.kind === 'scripted') return { generator: scripted(chosen), unload: async () => {} };
    const request = await this.loadRequest(chosen);
    const stop = () => void this.parts.host.stopLoading().catch(() => undefined);
    signal.addEventListener('abort', stop, { once: true });
    let loaded: LoadedGenerator;
    try {
      loaded = await this.parts.host.load(request, onProgress);
    } finally {
      signal.removeEventListener('abort', stop);
    }
    const generator = remoteGenerator({ id: loaded.modelId, label: loaded.label, contextTokens: loaded.contextTokens }, this.parts.host);
    return { generator, unload: () => this.parts.host.unload() };
  }

  /** What the generate worker loads for `chosen`: a WebLLM model on WebGPU (if this device can run it), else a catalogue or imported entry on WASM. */
  private async loadRequest(chosen: Exclude<Chosen, { kind: 'scripted' }>): Promise<GeneratorLoadRequest> {
    if (chosen.kind === 'webllm') {
      const model = (await describeAnswerModels({ ...this.parts, inUse: undefined, imported: [] })).offered.find((m) => m.id === chosen.model);
      if (!model) throw new DocQaError('model-unsupported', `${chosen.model} cannot run on this device (no WebGPU, or not enough memory): choose another answer model`);
      return { model: webLlmEntry(model), source: { kind: 'hub' }, device: 'webgpu' };
    }
    const imported = (await this.imports()).find((m) => m.id === chosen.model);
    const entry: GeneratorModelEntry | undefined = findGenerator(chosen.model) ?? imported;
    if (!entry) throw new DocQaError('model-files-missing', `no answer-writing model "${chosen.model}" in the catalogue or among the imported files: import the file again`);
    // An imported file is only in the model cache: nothing is fetched for it.
    const source = imported ? { kind: 'cache' as const } : chosen.mirror ? { kind: 'mirror' as const, baseUrl: chosen.mirror } : { kind: 'hub' as const };
    return { model: entry, source };
  }

  /**
   * The model in use was lost while writing (its worker died, the GPU ran out of memory): the answer in
   * flight reports the error; the next ones quote the documents, and the notice says why. The setting stays,
   * so a reload (or choosing the model again) loads it again.
   */
  private async lost(key: string, label: string, err: DocQaError): Promise<void> {
    if (this.current?.key !== key) return;
    await this.release(false);
    this.setStatus({ state: 'extractive', reason: 'failed', model: label, message: err.message });
  }

  /** Stops using the model loaded now (its files stay); `keepWorker` leaves the generate worker's model for the next load to replace. */
  private async release(keepWorker: boolean): Promise<void> {
    const current = this.current;
    this.current = undefined;
    this.parts.models.setGenerator(undefined);
    if (!current || (keepWorker && !current.key.startsWith('scripted:'))) return;
    await current.unload().catch((err: unknown) => console.warn('answer model: unload failed', err));
  }

  /** Why answers quote the documents when no model is chosen. */
  private async idleReason(): Promise<'none' | 'no-webgpu'> {
    const device = await this.parts.webllm.device().catch((): WebGpuDevice => ({ webgpu: false, features: [] }));
    if (webGpuNote(device) === undefined) return 'none';
    const cached = await this.parts.files.list().catch(() => []);
    return GENERATOR_CATALOGUE.some((m) => cached.some((c) => c.repo === m.repo && c.bytes > 0)) ? 'none' : 'no-webgpu';
  }

  private labelOf(chosen: Chosen): string {
    if (chosen.kind === 'scripted') return 'the scripted generator';
    if (chosen.kind === 'transformers') return findGenerator(chosen.model)?.label ?? this.importedLabels.get(chosen.model) ?? chosen.model;
    return webLlmLabel(chosen.model);
  }

  /** Labels of the imported models, as last read (the status line names the model before its record is read again). */
  private readonly importedLabels = new Map<string, string>();

  /** The GGUF files and ONNX folders imported as answer models. */
  private async imports(): Promise<Array<GgufGeneratorEntry | OnnxGeneratorEntry>> {
    const imported = (await this.settings.get('answer-imports')).imported ?? [];
    for (const m of imported) this.importedLabels.set(m.id, m.label);
    return imported;
  }

  /**
   * Imports a `.gguf` file the person chose (LM Studio, Ollama and GPT4All keep them) as an answer model:
   * its header read and checked first (a GGUF instruct model, at most 2 GB, room for it in memory:
   * nothing is kept of a file that fails), the file kept in the model cache, the model listed with the
   * others, then used. Returns its id and label.
   */
  async importGguf(file: File): Promise<{ id: string; label: string }> {
    const facts = await readGgufFacts(file, file.name);
    const entry = importedGgufEntry(file.name, file.size, facts);
    const nav = (globalThis as { navigator?: { deviceMemory?: number } }).navigator;
    checkGgufFits(facts, file.size, entry.contextTokens, typeof nav?.deviceMemory === 'number' ? { deviceMemoryGiB: nav.deviceMemory } : {}, file.name);
    await this.parts.host.importFiles(entry, [{ path: entry.files[0]!.path, blob: file }]);
    const others = (await this.imports()).filter((m) => m.id !== entry.id);
    await this.settings.put('answer-imports', { imported: [...others, entry] });
    this.importedLabels.set(entry.id, entry.label);
    await this.set({ generator: { kind: 'transformers', model: entry.id } });
    return { id: entry.id, label: entry.label };
  }

  /**
   * Imports a model folder the person chose: one holding a single `.gguf` file is imported as that file
   * ({@link importGguf}); else a transformers.js folder (config.json, tokenizer.json, tokenizer_config.json
   * with a chat template, onnx/model_quantized.onnx or another single-file export). A folder named like a
   * catalogue model's repository (Qwen2.5-0.5B-Instruct) fills that model's files, as its download would;
   * any other is listed as an imported model. Its files go into the model cache, so it runs with no network;
   * then it writes the answers. Returns its id and label.
   */
  async importFolder(files: IncomingFile[]): Promise<{ id: string; label: string }> {
    const ggufs = files.filter((f) => f.name.toLowerCase().endsWith('.gguf'));
    if (ggufs.length === 1 && !files.some((f) => f.name === 'config.json')) return this.importGguf(new File([ggufs[0]!.blob], ggufs[0]!.name));
    const withPaths = files.map((f) => ({ path: f.folder ? `${f.folder}/${f.name}` : f.name, blob: f.blob }));
    const config = withPaths.filter((f) => f.path.split('/').at(-1) === 'config.json').sort((a, b) => a.path.split('/').length - b.path.split('/').length)[0];
    if (!config) throw new DocQaError('model-files-missing', 'this folder has no config.json and no single .gguf file: choose the folder that holds the model (config.json, tokenizer.json, onnx/), or a .gguf file');
    const root = config.path.split('/').slice(0, -1).join('/');
    const folder = root.split('/').at(-1) || 'imported-model';
    const inRoot = withPaths.filter((f) => !root || f.path.startsWith(`${root}/`)).map((f) => ({ path: root ? f.path.slice(root.length + 1) : f.path, blob: f.blob }));
    const json = async (path: string): Promise<Record<string, unknown> | undefined> => {
      const file = inRoot.find((f) => f.path === path);
      if (!file) return undefined;
      try {
        return JSON.parse(await file.blob.text()) as Record<string, unknown>;
      } catch (err) {
        throw new DocQaError('model-unsupported', `${folder}/${path} is not valid JSON: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      }
    };
    const tokenizerConfig = await json('tokenizer_config.json');
    const entry = importedOnnxEntry(folder, inRoot.map((f) => ({ path: f.path, bytes: f.blob.size })), (await json('config.json')) ?? {}, tokenizerConfig);
    const needed = new Set(entry.files.map((f) => f.path));
    await this.parts.host.importFiles(entry, inRoot.filter((f) => needed.has(f.path)));
    if (!findGenerator(entry.id)) {
      const others = (await this.imports()).filter((m) => m.id !== entry.id);
      await this.settings.put('answer-imports', { imported: [...others, entry] });
      this.importedLabels.set(entry.id, entry.label);
    }
    await this.use(entry.id);
    return { id: entry.id, label: entry.label };
  }

  /** The chooser's list: the WASM models, the WebLLM models this device can run, space used, the status. */
  async list(): Promise<AnswerModelsView> {
    const { generator } = await this.read();
    // "In use" only once loaded: while it loads the chooser says so (the status), and a failed one is not chosen.
    const inUse = generator && generator.kind !== 'scripted' && this.state.state === 'ready' ? generator.model : undefined;
    const { entries, webgpu } = await describeAnswerModels({ ...this.parts, inUse, imported: await this.imports() });
    return { models: entries, webgpu, status: this.state };
  }

  /** The person chose a model (and agreed to its download): it writes answers once loaded, in every tab. */
  async use(id: string): Promise<void> {
    const wasm = findGenerator(id as ModelId);
    let setting: AnswerSetting;
    if ((await this.imports()).some((m) => m.id === id)) {
      setting = { generator: { kind: 'transformers', model: id as ModelId } };
    } else if (wasm) {
      // Semantic search's mirror (a self-hosted copy of the hub) serves answer models too.
      const { mirror } = await this.settings.get('semantic');
      setting = { generator: { kind: 'transformers', model: wasm.id, ...(mirror ? { mirror } : {}) } };
    } else {
      const { offered } = await describeAnswerModels({ ...this.parts, inUse: undefined, imported: [] });
      if (!offered.some((m) => m.id === id)) throw new DocQaError('model-unsupported', `${id} cannot run on this device: choose another answer model`);
      setting = { generator: { kind: 'webllm', model: id } };
    }
    await this.set(setting);
  }

  /** Back to answers that quote the documents (the files stay). */
  stop(): Promise<void> {
    return this.set({});
  }

  /** Deletes a model's files from this browser, stopping it first if it writes answers. */
  async delete(id: string): Promise<void> {
    const { generator } = await this.read();
    if (generator && generator.kind !== 'scripted' && generator.model === id) await this.stop();
    const wasm = findGenerator(id as ModelId);
    const imports = await this.imports();
    const imported = imports.find((m) => m.id === id);
    if (imported) {
      // An imported file cannot be downloaded again: deleting it removes it from the list too.
      await this.parts.files.delete(imported.repo);
      await this.settings.put('answer-imports', { imported: imports.filter((m) => m !== imported) });
    } else if (wasm) await this.parts.files.delete(wasm.repo);
    else await this.parts.host.deleteCached(webLlmRepo(id));
    if (this.state.state === 'extractive') this.setStatus({ ...this.state, reason: this.state.reason === 'failed' ? 'failed' : await this.idleReason() });
  }

  async set(setting: AnswerSetting): Promise<void> {
    await this.settings.put('answer', setting);
    this.parts.announce?.();
    await this.start();
  }
}

/** Codes of generation errors after which the model cannot write again (it must be loaded anew). */
const LOST = new Set<DocQaError['code']>(['gpu-out-of-memory', 'webgpu-unavailable']);

/**
 * `generator`, telling `lost` when a stream fails in a way the model does not recover from: the GPU was
 * lost, or the generate worker stopped (out of memory; a fresh one holds no model).
 */
function onLost(generator: Generator, lost: (err: DocQaError) => void): Generator {
  return {
    model: generator.model,
    countTokens: (text) => generator.countTokens(text),
    async *stream(request) {
      try {
        yield* generator.stream(request);
      } catch (err) {
        if (err instanceof DocQaError && (LOST.has(err.code) || isWorkerRestart(err))) lost(err);
        throw err;
      }
    },
  };
}

/** Identifies a setting's model: the same key means the loaded model can stay. */
function keyOf(chosen: Chosen): string {
  if (chosen.kind === 'scripted') return `scripted:${JSON.stringify(chosen)}`;
  if (chosen.kind === 'transformers') return `transformers:${chosen.model}@${chosen.mirror ?? 'hub'}`;
  return `webllm:${chosen.model}`;
}

/**
 * The scripted generator of a setting: the replies in turn, again from the first after the last;
 * requests for JSON (rewriting, phrasings, the multi-hop judgement) take theirs from `json` the same way,
 * except filter readings (self-query), which take theirs from `filters` (default `{}`: no filter).
 */
function scripted(setting: Extract<Chosen, { kind: 'scripted' }>): Generator {
  let next = 0;
  let nextJson = 0;
  const replies = setting.replies.length ? setting.replies : ['Not found in your documents.'];
  const json = setting.json?.length ? setting.json : ['{}'];
  let nextFilters = 0;
  const filters = setting.filters?.length ? setting.filters : ['{}'];
  const script: Script = (messages, request) => {
    if (isFilterRequest(messages)) return filters[nextFilters++ % filters.length]!;
    return request.json ? json[nextJson++ % json.length]! : replies[next++ % replies.length]!;
  };
  return new ScriptedGenerator(setting.gullible ? gullibleScript(script) : script, {
    delayMs: setting.delayMs,
    // A small window makes a short document be read in parts (whole-document questions).
    model: { id: 'scripted', label: 'the scripted generator', ...(setting.contextTokens ? { contextTokens: setting.contextTokens } : {}) },
  });
}

export type { AnswerModelEntry };
