import { DocQaError } from '../../core/errors.ts';
import type { ModelId } from '../../core/ids.ts';
import type { IncomingFile, ModelEntry, ModelsView } from '../../core/library-api.ts';
import type { EmbeddingEvent } from '../../core/types.ts';
import type { ChunkEmbedder } from '../../embed/chunk-embedder.ts';
import type { LoadProgress, ModelSource } from '../host/protocol.ts';
import { CATALOGUE, downloadSize, modelFromFolder, RERANKER_CATALOGUE, rerankerFromFolder, type EmbeddingModel, type FolderFacts, type RerankerModel } from '../catalogue.ts';
import type { SettingsStore } from '../../store/settings-store.ts';
import type { VectorStore } from '../../store/vector-store.ts';
import type { LibraryModels, RerankerInUse } from '../../library/library-models.ts';
import { progressReporter, retryAfterRestart } from '../host/model-loading.ts';
import { ModelSettings, type StoredSemanticSettings } from './model-settings.ts';

/** What semantic setup needs of the embed worker (`models/encoder/embed-worker-client.ts` provides it). */
export interface EmbedHost {
  load(request: { model: EmbeddingModel; source: ModelSource }, onProgress?: (event: LoadProgress) => void): Promise<{ notice: string; notKept?: { message: string } }>;
  /** One vector per text, too-long texts split and averaged (`embed/chunk-embedder.ts`). */
  embedChunks(texts: string[]): Promise<Float32Array>;
  embedQuery(text: string): Promise<Float32Array>;
  /** Once after the device changed under the model (WebGPU stopped working: now WASM), why. */
  takeDeviceNotice(): Promise<string | undefined>;
  unload(): Promise<void>;
  listCached(): Promise<Array<{ repo: string; revision: string; bytes: number }>>;
  deleteCached(repo: string, revision?: string): Promise<number>;
  importFiles(model: Pick<EmbeddingModel, 'repo' | 'revision' | 'files'>, files: Array<{ path: string; blob: Blob }>): Promise<unknown>;
}

/** What semantic setup needs of the rerank worker (`models/cross-encoder/rerank-worker-client.ts` provides it). */
export interface RerankHost {
  load(request: { model: RerankerModel; source: ModelSource }, onProgress?: (event: LoadProgress) => void): Promise<{ notice: string; notKept?: { message: string } }>;
  score(query: string, passages: readonly string[]): Promise<Float32Array>;
  unload(): Promise<void>;
}

/**
 * What semantic setup reports through: the library's embedding status (`library/embedding.ts`), which the
 * page shows (a model's download, its device, a failure, the reranker in use).
 */
export interface EmbeddingReport {
  /** The state last reported. */
  readonly status: EmbeddingEvent;
  /** The embedding model in use, if any. */
  readonly model: { id: ModelId } | undefined;
  /** A model is downloading or loading: reported at once, with the bytes so far. */
  loading(model: string, download?: EmbeddingEvent['download']): void;
  /** Reports a state again as it was (after a reranker's download showed as loading). */
  restore(status: EmbeddingEvent): void;
  /** Loading failed: reported with the reason (search goes on by keywords). */
  failed(message: string, model?: string, code?: DocQaError['code']): void;
  /** Where the model runs and why, shown with the state from now on. */
  device: string | undefined;
  /** The reranker in use, named in every report from now on. */
  reranker: string | undefined;
  /** Called when every chunk has a vector of the model in use. */
  onReady: ((model: ModelId) => Promise<void> | void) | undefined;
}

export interface SemanticParts {
  /** The library, of which semantic setup needs only its embedding status (`library.semantic`). */
  library: { readonly semantic: EmbeddingReport };
  /** The library's models: the embedder and the reranker are set there. */
  models: LibraryModels;
  /** The embed worker (or the same API in-process). */
  embed: EmbedHost;
  /** The rerank worker (or the same API in-process). */
  rerank: RerankHost;
  settings: SettingsStore;
  vectors: VectorStore;
  /** The app's own origin: the only one a mirror may be on. */
  origin: string;
  /** Tells the other tabs the settings changed (they call `start` again). Default: nothing. */
  announce?: () => void;
}

function figureOf(model: EmbeddingModel | RerankerModel): string | undefined {
  const r = 'retrieval' in model ? model.retrieval : model.published[0];
  return r ? `${r.benchmark} ${r.metric} ${r.value}` : undefined;
}

/**
 * A mirror address: an http(s) URL on the app's own site (`origin`), where a self-hosted copy of the
 * hub's files is served (`<base>/<owner>/<model>/resolve/main/<file>`). Other sites are refused: the
 * app's content security policy lets it talk only to its own site and huggingface.co, so that nothing
 * (a document's text least of all) can be sent anywhere else. Relative addresses ("/models/") are
 * taken on the app's site.
 */
export function checkMirror(url: string | undefined, origin: string): string | undefined {
  if (url === undefined || url.trim() === '') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url.trim(), origin);
  } catch {
    throw new DocQaError('invalid-setting', `"${url}" is not a web address: type the mirror's address on this site, such as ${origin}/models/`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new DocQaError('invalid-setting', `"${url}" is not an http or https address`);
  if (parsed.origin !== origin) {
    throw new DocQaError('invalid-setting', `models can only be downloaded from huggingface.co or from this app's own site (${origin}): serve the mirror under it, such as ${origin}/models/, or import the model folder instead`);
  }
  return parsed.href.endsWith('/') ? parsed.href : `${parsed.href}/`;
}

/**
 * Semantic search's set-up in a tab's library worker: which model is in use (a setting every tab shares),
 * where models are downloaded from, and the model manager's actions. Loading a model reports its download
 * through the library's `embedding` events; once loaded, the library embeds in the background and answers
 * with both retrievers. Nothing is downloaded unless the person chose a model.
 */
export class SemanticSetup {
  private loadingModel: Promise<void> | undefined;

  private readonly library: SemanticParts['library'];
  private readonly models: LibraryModels;
  private readonly host: EmbedHost;
  private readonly rerankHost: RerankHost;
  private readonly settings: ModelSettings;
  private readonly vectors: VectorStore;
  private readonly origin: string;
  private readonly announce: () => void;

  constructor(parts: SemanticParts) {
    ({ library: this.library, models: this.models, embed: this.host, rerank: this.rerankHost, vectors: this.vectors, origin: this.origin } = parts);
    this.settings = new ModelSettings(parts.settings);
    this.announce = parts.announce ?? (() => {});
    this.library.semantic.onReady = (model) => this.switchDone(model).catch((err: unknown) => console.warn('old vectors not deleted', err));
  }

  private read(): Promise<StoredSemanticSettings> {
    return this.settings.get('semantic');
  }

  private async write(change: Partial<StoredSemanticSettings>): Promise<StoredSemanticSettings> {
    const next = { ...(await this.read()), ...change };
    await this.settings.put('semantic', next);
    this.announce();
    return next;
  }

  private known(settings: StoredSemanticSettings): EmbeddingModel[] {
    return [...CATALOGUE, ...(settings.imported ?? [])];
  }

  private knownRerankers(settings: StoredSemanticSettings): RerankerModel[] {
    return [...RERANKER_CATALOGUE, ...(settings.importedRerankers ?? [])];
  }

  private sourceFor(model: EmbeddingModel | RerankerModel, settings: StoredSemanticSettings): ModelSource {
    // Imported models are in the model cache only: the mirror or the hub is never asked for them.
    if ([...(settings.imported ?? []), ...(settings.importedRerankers ?? [])].some((m) => m.id === model.id)) return { kind: 'cache' };
    return settings.mirror ? { kind: 'mirror', baseUrl: settings.mirror } : { kind: 'hub' };
  }

  /** Loads the models in use, if any (at start-up, and when another tab changed the settings). */
  async start(): Promise<void> {
    const settings = await this.read();
    const reranker = settings.reranker && this.knownRerankers(settings).find((m) => m.id === settings.reranker);
    if (!reranker) {
      if (this.models.reranker) this.useReranker(undefined);
    } else if (this.models.reranker?.model.id !== reranker.id) {
      await this.loadReranker(reranker, settings).catch((err: unknown) => console.warn('reranker not loaded', err));
    }
    const model = settings.model && this.known(settings).find((m) => m.id === settings.model);
    if (!model) {
      if (this.library.semantic.model) await this.models.setEmbedder(undefined);
      return;
    }
    if (this.library.semantic.model?.id === model.id) return;
    await this.load(model, settings);
  }

  async listModels(): Promise<ModelsView> {
    const settings = await this.read();
    const [cached, stored] = await Promise.all([this.host.listCached().catch(() => []), this.vectors.models()]);
    const cachedBytes = (repo: string) => cached.filter((c) => c.repo === repo).reduce((sum, c) => sum + c.bytes, 0);
    const entry = (m: EmbeddingModel | RerankerModel, kind: ModelEntry['kind'], inUse: boolean, imported: boolean): ModelEntry => {
      const size = downloadSize(m);
      return {
        id: m.id,
        kind,
        label: m.label,
        languages: m.languages,
        dims: 'dims' in m ? m.dims : undefined,
        downloadBytes: size.bytes,
        approximate: size.approximate,
        retrieval: figureOf(m),
        ...(m.goodFor ? { goodFor: m.goodFor } : {}),
        cachedBytes: cachedBytes(m.repo),
        vectors: stored.get(m.id) ?? 0,
        inUse,
        imported,
      };
    };
    // "In use" only once loaded: while a model loads the dialog says so (the status), and a failed one is not chosen.
    const status = this.library.semantic.status;
    const loaded = (m: EmbeddingModel | RerankerModel) => !(status.state === 'loading' && status.model === m.label);
    const models: ModelEntry[] = [
      ...this.known(settings).map((m) => entry(m, 'embedding', settings.model === m.id && loaded(m), Boolean(settings.imported?.some((i) => i.id === m.id)))),
      ...this.knownRerankers(settings).map((m) => entry(m, 'reranker', settings.reranker === m.id && loaded(m), Boolean(settings.importedRerankers?.some((i) => i.id === m.id)))),
    ];
    const { imported: _imported, importedRerankers: _rerankers, replacing: _replacing, ...visible } = settings;
    return { models, settings: visible, status };
  }

  /**
   * The person chose a model: it is downloaded (if not cached) and loaded; an embedding model then
   * embeds the library in the background, a reranker reranks each question's fused candidates.
   */
  async useModel(id: ModelId): Promise<void> {
    const settings = await this.read();
    const reranker = this.knownRerankers(settings).find((m) => m.id === id);
    if (reranker) {
      await this.write({ reranker: id });
      await this.loadReranker(reranker, settings);
      return;
    }
    const model = this.known(settings).find((m) => m.id === id);
    if (!model) throw new DocQaError('model-files-missing', `no model "${id}" in the catalogue or among imported models`);
    const previous = settings.model !== id ? settings.model : undefined;
    await this.write({ model: id, replacing: previous ?? settings.replacing });
    await this.load(model, { ...settings, model: id });
  }

  /** Stops using a model (its files, and an embedding model's vectors, stay for later). */
  async stopModel(id: ModelId): Promise<void> {
    const settings = await this.read();
    if (settings.reranker === id) {
      await this.write({ reranker: undefined });
      this.useReranker(undefined);
      await this.rerankHost.unload().catch((err: unknown) => console.warn('rerank worker: unload failed', err));
    }
    if (settings.model === id) await this.stopSemantic();
  }

  /**
   * The model in use has a vector for every chunk: a switch from another model is complete, and that
   * model's vectors are deleted only now (until then they were kept, so switching back cost nothing).
   */
  private async switchDone(model: ModelId): Promise<void> {
    const settings = await this.read();
    if (settings.model !== model || !settings.replacing || settings.replacing === model) return;
    await this.vectors.deleteModel(settings.replacing);
    await this.write({ replacing: undefined });
  }

  async stopSemantic(): Promise<void> {
    await this.write({ model: undefined });
    await this.models.setEmbedder(undefined);
    await this.host.unload().catch((err: unknown) => console.warn('embed worker: unload failed', err));
  }

  /** Deletes the model's files from this browser and its vectors from the library (stopping it first if in use). */
  async deleteModel(id: ModelId): Promise<void> {
    const settings = await this.read();
    const model = [...this.known(settings), ...this.knownRerankers(settings)].find((m) => m.id === id);
    if (!model) throw new DocQaError('model-files-missing', `no model "${id}" to delete`);
    await this.stopModel(id);
    await this.host.deleteCached(model.repo);
    await this.vectors.deleteModel(id);
    const after = await this.read();
    if (after.imported?.some((m) => m.id === id)) await this.write({ imported: after.imported.filter((m) => m.id !== id) });
    if (after.importedRerankers?.some((m) => m.id === id)) await this.write({ importedRerankers: after.importedRerankers.filter((m) => m.id !== id) });
  }

  /**
   * Keeps a model folder the person chose: its `config.json` says the vector length, its folder name
   * may match a catalogue model (whose pooling and prefixes it then takes), and its files go into the
   * model cache, so loading it later needs no network.
   */
  async importModel(files: IncomingFile[]): Promise<ModelId> {
    const withPaths = files.map((f) => ({ path: f.folder ? `${f.folder}/${f.name}` : f.name, blob: f.blob }));
    const configs = withPaths.filter((f) => f.path.split('/').at(-1) === 'config.json').sort((a, b) => a.path.split('/').length - b.path.split('/').length);
    const config = configs[0];
    if (!config) throw new DocQaError('model-files-missing', 'this folder has no config.json: choose the folder that holds the model (config.json, tokenizer.json, onnx/)');
    const root = config.path.split('/').slice(0, -1).join('/');
    const folder = root.split('/').at(-1) || 'imported-model';
    const inRoot = (p: string) => (root ? p.startsWith(`${root}/`) : true);
    const relative = (p: string) => (root ? p.slice(root.length + 1) : p);
    const jsonAt = async <T>(path: string): Promise<T | undefined> => {
      const file = path === 'config.json' ? config : withPaths.find((f) => inRoot(f.path) && relative(f.path) === path);
      if (!file) return undefined;
      try {
        return JSON.parse(await file.blob.text()) as T;
      } catch (err) {
        throw new DocQaError('model-unsupported', `${file.path} is not valid JSON: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      }
    };
    const facts: FolderFacts = {
      folder,
      config: (await jsonAt<FolderFacts['config']>('config.json')) ?? {},
      pooling: await jsonAt<FolderFacts['pooling']>('1_Pooling/config.json'),
      prompts: (await jsonAt<{ prompts?: FolderFacts['prompts'] }>('config_sentence_transformers.json'))?.prompts,
      sentenceBert: await jsonAt<FolderFacts['sentenceBert']>('sentence_bert_config.json'),
      hasFp32: withPaths.some((f) => inRoot(f.path) && relative(f.path) === 'onnx/model.onnx'),
    };
    // A cross-encoder (a sequence-classification head) is a reranker; anything else is taken as an encoder.
    const architecture = (facts.config as { architectures?: string[] }).architectures?.[0] ?? '';
    const isReranker = architecture.endsWith('ForSequenceClassification');
    const id = `imported:${folder}` as ModelId;
    const label = `${folder} (imported)`;
    const model = isReranker ? { ...rerankerFromFolder(facts), id, label } : { ...modelFromFolder(facts), id, label };
    await this.host.importFiles(model, withPaths.filter((f) => inRoot(f.path)).map((f) => ({ path: root ? f.path : `${folder}/${f.path}`, blob: f.blob })));
    const settings = await this.read();
    if (isReranker) await this.write({ importedRerankers: [...(settings.importedRerankers ?? []).filter((m) => m.id !== id), model as RerankerModel] });
    else await this.write({ imported: [...(settings.imported ?? []).filter((m) => m.id !== id), model as EmbeddingModel] });
    return id;
  }

  async setMirror(url: string | undefined): Promise<void> {
    await this.write({ mirror: checkMirror(url, this.origin) });
  }

  /** Loads a cross-encoder in the rerank worker (download progress shown like a model's) and reranks with it. */
  private async loadReranker(model: RerankerModel, settings: StoredSemanticSettings): Promise<void> {
    const embedding = this.library.semantic;
    const before = embedding.status;
    embedding.loading(model.label);
    try {
      const request = { model, source: this.sourceFor(model, settings) };
      await this.rerankHost.load(request, progressReporter((download) => embedding.loading(model.label, download)));
      this.useReranker({
        model: { id: model.id, label: model.label },
        // A fresh worker (the last one died) has no model: it is loaded again and the call retried.
        score: (query, passages) => retryAfterRestart(() => this.rerankHost.score(query, passages), () => this.rerankHost.load(request), 'rerank'),
      });
    } catch (err) {
      this.useReranker(undefined);
      if ((await this.read()).reranker === model.id) await this.write({ reranker: undefined });
      embedding.restore(before);
      throw err;
    }
    embedding.restore(before);
  }

  private useReranker(reranker: RerankerInUse | undefined): void {
    this.models.setReranker(reranker);
    this.library.semantic.reranker = reranker?.model.label;
  }

  private async load(model: EmbeddingModel, settings: StoredSemanticSettings): Promise<void> {
    // One load at a time: a second choice waits for the first to settle.
    while (this.loadingModel) await this.loadingModel.catch(() => undefined);
    const run = (async () => {
      const embedding = this.library.semantic;
      embedding.loading(model.label);
      try {
        const request = { model, source: this.sourceFor(model, settings) };
        const loaded = await this.host.load(request, progressReporter((download) => embedding.loading(model.label, download)));
        embedding.device = loaded.notKept ? `${loaded.notice}. ${loaded.notKept.message}` : loaded.notice;
        const embedder: ChunkEmbedder = {
          model,
          embedChunks: async (texts) => {
            const data = await retryAfterRestart(() => this.host.embedChunks([...texts]), () => this.host.load(request), 'embed');
            const notice = await this.host.takeDeviceNotice();
            if (notice) embedding.device = notice;
            return data;
          },
          embedQuery: (text) => retryAfterRestart(() => this.host.embedQuery(text), () => this.host.load(request), 'embed'),
        };
        await this.models.setEmbedder(embedder);
      } catch (err) {
        await this.models.setEmbedder(undefined);
        // A model that did not load is no longer chosen: nothing stays "in use", and a reload does not try it
        // again; the dialog offers Try again.
        if ((await this.read()).model === model.id) await this.write({ model: undefined });
        embedding.failed(`${err instanceof Error ? err.message : String(err)}. Search still works, by keywords only.`, model.label, err instanceof DocQaError ? err.code : undefined);
        throw err;
      }
    })();
    this.loadingModel = run;
    try {
      await run;
    } finally {
      this.loadingModel = undefined;
    }
  }
}
