/**
 * Where transformers.js reads a model's files from, and what loading reports, for every model the app
 * loads (the embedder, the reranker): the hub, a mirror, a local folder or the model cache; per-file and
 * total progress; loading failures turned into errors that name the file. Kept here, in
 * the model wing, so each model runtime shares one copy (`env` is global: two copies would drift).
 */
import { env, type ProgressInfo } from '@huggingface/transformers';
import { DocQaError } from '../core/errors.ts';
import { guardDownloads } from './download-guard.ts';
import { FileTally } from './file-tally.ts';
import { bindCache, KEY_ORIGIN, type BoundCache, type CacheLike, type TransformersCache } from './model-cache.ts';

/** Where the model files come from. */
export type ModelSource =
  /** huggingface.co, `<repo>/resolve/<revision>/<file>`. */
  | { kind: 'hub' }
  /** A self-hosted mirror: `<baseUrl><pathTemplate><file>`; pathTemplate defaults to the hub's `{model}/resolve/{revision}/`. */
  | { kind: 'mirror'; baseUrl: string; pathTemplate?: string }
  /** A folder holding `<repo>/config.json`, ...: a path in Node, a URL path served by the app in a browser. Nothing remote. */
  | { kind: 'folder'; root: string }
  /** Only the model cache (`LoadOptions.cache`): files downloaded before or imported from a folder. Never the network. */
  | { kind: 'cache' };

/** Load progress, per file and in total (bytes; `total` is 0 until a size is known). */
export type LoadProgress =
  | { type: 'file'; file: string; loaded: number; total: number }
  | { type: 'file-done'; file: string }
  | { type: 'total'; loaded: number; total: number }
  | { type: 'ready' };

export interface LoadOptions {
  source: ModelSource;
  /** Inference device; default: transformers.js's own (CPU in Node, WASM in a browser). */
  device?: 'webgpu' | 'wasm' | 'cpu';
  onProgress?: (event: LoadProgress) => void;
  /**
   * The model cache bound to this model and source (`bindCache` in `models/model-cache.ts`): every file
   * is looked up there first, and each file downloaded whole is stored. Default: none (no caching).
   */
  cache?: TransformersCache;
  /**
   * The fetch downloads go through, wrapped by `guardDownloads` (a cut download fails clearly). Default:
   * transformers.js's `env.fetch` as it is. Ignored for the `cache` source, which never fetches.
   */
  fetch?: (input: string | URL, init?: RequestInit) => Promise<Response>;
  /**
   * Stops the load (the host's `stopLoading`): honoured by runtimes whose engine can stop midway
   * (WebLLM); the others finish their load.
   */
  signal?: AbortSignal;
}

/** What source handling needs to know of a model: where its files are. */
export interface ModelLocation {
  repo: string;
  revision: string;
}

const HUB_HOST = 'https://huggingface.co/';
const HUB_PATH_TEMPLATE = '{model}/resolve/{revision}/';

const withSlash = (s: string) => (s.endsWith('/') ? s : `${s}/`);

/**
 * Sets transformers.js's global `env` for one source, every field explicitly, so a load never inherits
 * a previous source's settings. `env` is global: loads from different sources must not overlap.
 */
export function configureSource(source: ModelSource, cache?: TransformersCache): void {
  env.useFSCache = false; // Node: never write into node_modules
  // transformers.js's own browser cache is keyed by the remote URL; the app's model cache replaces it.
  env.useBrowserCache = false;
  env.useCustomCache = cache !== undefined && source.kind !== 'folder';
  env.customCache = env.useCustomCache ? (cache ?? null) : null;
  if (source.kind === 'folder') {
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    env.localModelPath = withSlash(source.root);
    return;
  }
  env.allowLocalModels = false;
  env.allowRemoteModels = true;
  // The cache source: transformers.js asks for the cache's own keys (a reserved domain); a miss is a 404.
  env.remoteHost = source.kind === 'hub' ? HUB_HOST : source.kind === 'cache' ? KEY_ORIGIN : withSlash(source.baseUrl);
  env.remotePathTemplate = source.kind === 'mirror' && source.pathTemplate ? source.pathTemplate : HUB_PATH_TEMPLATE;
}

/**
 * The URL prefix transformers.js builds for `model`'s files from `source` (its `pathJoin` of
 * `remoteHost` and the filled template), which the model cache maps to its keys. Undefined for a folder.
 */
export function remotePrefixFor(model: ModelLocation, source: ModelSource): string | undefined {
  if (source.kind === 'folder') return undefined;
  const host = source.kind === 'hub' ? HUB_HOST : source.kind === 'cache' ? KEY_ORIGIN : withSlash(source.baseUrl);
  const template = source.kind === 'mirror' && source.pathTemplate ? source.pathTemplate : HUB_PATH_TEMPLATE;
  const path = template.replaceAll('{model}', model.repo).replaceAll('{revision}', encodeURIComponent(model.revision));
  return `${host.replace(/\/$/, '')}/${path.replace(/^\//, '').replace(/\/$/, '')}/`;
}

/** The cache source's fetch: nothing leaves the device; a file not in the cache is missing. */
const nothingFetched = async () => new Response('not in the model cache', { status: 404, statusText: 'Not Found' });

/**
 * Configures `env` for `options.source` and runs `load` (the `from_pretrained` calls) with the fetch
 * the source needs; the previous fetch is put back after it, since files are fetched only while loading.
 */
export async function withSource<T>(options: LoadOptions, load: () => Promise<T>): Promise<T> {
  configureSource(options.source, options.cache);
  const previousFetch = env.fetch;
  if (options.source.kind === 'cache') env.fetch = nothingFetched;
  else if (options.fetch) env.fetch = guardDownloads(options.fetch);
  try {
    return await load();
  } finally {
    env.fetch = previousFetch;
  }
}

/** Maps transformers.js progress to {@link LoadProgress}, totalling bytes over every file seen. */
export function progressMapper(onProgress: ((event: LoadProgress) => void) | undefined): (info: ProgressInfo) => void {
  const files = new FileTally();
  return (info: ProgressInfo) => {
    if (!onProgress) return;
    if (info.status === 'progress') {
      files.progress(info.file, info.loaded, info.total);
      onProgress({ type: 'file', file: info.file, loaded: info.loaded, total: info.total });
    } else if (info.status === 'done') {
      files.done(info.file);
      onProgress({ type: 'file-done', file: info.file });
    } else return;
    onProgress({ type: 'total', ...files.sum() });
  };
}

/**
 * Turns a loading failure into a DocQaError that names the file or says what is wrong; `who` starts the
 * message ("embedder", "reranker").
 */
export function explainModelLoadError(err: unknown, model: ModelLocation, source: ModelSource, who: string): DocQaError {
  if (err instanceof DocQaError) return err;
  const message = err instanceof Error ? err.message : String(err);
  const where =
    source.kind === 'folder'
      ? `folder ${withSlash(source.root)}${model.repo}`
      : `${model.repo} (${source.kind === 'hub' ? 'hub' : source.kind === 'cache' ? 'model files kept on this device' : source.baseUrl})`;
  // transformers.js: `Could not locate file: "<url>".` (remote 404), `file was not found locally at "<path>"`.
  const missing = /Could not locate file: "([^"]+)"/.exec(message) ?? /not found locally at "([^"]+)"/.exec(message);
  if (missing) {
    const path = missing[1]!;
    const at = path.lastIndexOf(`${model.repo}/`);
    const inRepo = at >= 0 ? path.slice(at + model.repo.length + 1) : path;
    const file = inRepo.replace(/^resolve\/[^/]+\//, '');
    return new DocQaError('model-files-missing', `${who}: ${where} has no ${file}: add the file (or choose the folder that holds it) and load the model again`, { cause: err });
  }
  // The browser's own words for a request that never got an answer (offline, the host unreachable).
  if (/Failed to fetch|NetworkError|Load failed|network error/i.test(message)) {
    return new DocQaError('model-download-failed', `${who}: ${where}: the download did not finish (${message}): check the connection and try again, or import the model from a folder`, { cause: err });
  }
  if (/Unsupported model type|Unknown model class/.test(message)) {
    return new DocQaError('model-unsupported', `${who}: ${where}: ${message}`, { cause: err });
  }
  return new DocQaError('internal', `${who}: loading ${where} failed: ${message}`, { cause: err });
}

/**
 * The model cache bound to one model's files for a load from `source` (undefined without a cache, or for
 * a source the cache does not serve: a local folder).
 */
export function cacheForLoad(cache: CacheLike | undefined, model: { repo: string; revision: string }, source: ModelSource): BoundCache | undefined {
  const prefix = remotePrefixFor(model, source);
  return cache && prefix ? bindCache(cache, { repo: model.repo, revision: model.revision, remotePrefix: prefix }) : undefined;
}
