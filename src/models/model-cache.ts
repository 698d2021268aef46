/**
 * Model files kept for offline use, in the Cache API under one cache of our own
 * ({@link MODEL_CACHE_NAME}), one entry per file, keyed by repository, revision and path, never by the
 * host they came from: a model downloaded from the hub, from a mirror, or imported from a folder is the
 * same entry, and a load from any source finds it. transformers.js reaches it through `env.customCache`
 * ({@link bindCache}); its own browser cache (`transformers-cache`, keyed by the full remote URL) is off.
 *
 * An entry is written only whole: transformers.js puts a file after reading all of its body, the
 * download guard (`download-guard.ts`) errors the body of a response that ends short of its
 * Content-Length, and {@link bindCache}'s `put` refuses a body shorter than the length the guard saw.
 * Pure: the cache is passed in (the browser's `Cache`, or a Map-backed fake in unit tests).
 */
import { DocQaError, isQuotaError, STORAGE_FULL_MESSAGE } from '../core/errors.ts';
import { EXPECTED_BYTES_HEADER } from './download-guard.ts';

/** The Cache API subset used here; the browser's `Cache` satisfies it. */
export interface CacheLike {
  match(request: string): Promise<Response | undefined>;
  put(request: string, response: Response): Promise<void>;
  delete(request: string): Promise<boolean>;
  keys(): Promise<ReadonlyArray<{ url: string }>>;
}

/** `caches.open(MODEL_CACHE_NAME)`. The suffix is the key scheme's version: a new scheme gets a new cache. */
export const MODEL_CACHE_NAME = 'docqa-model-files-v1';

/** Keys live under a reserved domain (RFC 2606 `.invalid`): they are names, never fetched. */
export const KEY_ORIGIN = 'https://model-files.invalid/';

/** Bytes of the stored body (the Cache API may drop Content-Length on some responses; this header stays). */
const BYTES_HEADER = 'x-docqa-bytes';
/** Where the file came from: its URL, or `import`. */
const FROM_HEADER = 'x-docqa-from';

export interface ModelFileRef {
  repo: string;
  revision: string;
  /** Path in the model folder, e.g. `onnx/model_quantized.onnx`. */
  path: string;
}

const encodePath = (path: string) => path.split('/').map(encodeURIComponent).join('/');

/** The cache key of one file: `https://model-files.invalid/<repo>/resolve/<revision>/<path>`. */
export function modelFileKey({ repo, revision, path }: ModelFileRef): string {
  return `${KEY_ORIGIN}${encodePath(repo)}/resolve/${encodeURIComponent(revision)}/${encodePath(path)}`;
}

/** The file a key names, or undefined for a key of another scheme. Inverse of {@link modelFileKey}. */
export function parseModelFileKey(key: string): ModelFileRef | undefined {
  if (!key.startsWith(KEY_ORIGIN)) return undefined;
  const parts = key.slice(KEY_ORIGIN.length).split('/').map(decodeURIComponent);
  // `<owner>/<name>/resolve/...` or `<name>/resolve/...` (a local folder name).
  const at = parts[2] === 'resolve' ? 2 : parts[1] === 'resolve' ? 1 : -1;
  if (at < 0 || parts.length < at + 3) return undefined;
  return { repo: parts.slice(0, at).join('/'), revision: parts[at + 1]!, path: parts.slice(at + 2).join('/') };
}

export interface CachedModel {
  repo: string;
  revision: string;
  files: Array<{ path: string; bytes: number }>;
  /** Sum over `files`. */
  bytes: number;
}

/** Size of a stored entry from its headers; reads the body only for an entry written elsewhere. */
async function entryBytes(response: Response): Promise<number> {
  const header = response.headers.get(BYTES_HEADER) ?? response.headers.get('content-length');
  if (header !== null && /^\d+$/.test(header)) return Number(header);
  return (await response.blob()).size;
}

/** Every model with files in the cache, by repository and revision, with the bytes each file takes. */
export async function listCachedModels(cache: CacheLike): Promise<CachedModel[]> {
  const models = new Map<string, CachedModel>();
  for (const request of await cache.keys()) {
    const ref = parseModelFileKey(request.url);
    const response = ref && (await cache.match(request.url));
    if (!ref || !response) continue;
    const id = `${ref.repo}@${ref.revision}`;
    const model = models.get(id) ?? { repo: ref.repo, revision: ref.revision, files: [], bytes: 0 };
    models.set(id, model);
    const bytes = await entryBytes(response);
    model.files.push({ path: ref.path, bytes });
    model.bytes += bytes;
  }
  for (const model of models.values()) model.files.sort((a, b) => a.path.localeCompare(b.path));
  return [...models.values()].sort((a, b) => a.repo.localeCompare(b.repo) || a.revision.localeCompare(b.revision));
}

/** Deletes every file of `repo` (all revisions, or only `revision`); returns the bytes freed. */
export async function deleteCachedModel(cache: CacheLike, repo: string, revision?: string): Promise<number> {
  let freed = 0;
  for (const model of await listCachedModels(cache)) {
    if (model.repo !== repo || (revision !== undefined && model.revision !== revision)) continue;
    for (const file of model.files) {
      if (await cache.delete(modelFileKey({ repo, revision: model.revision, path: file.path }))) freed += file.bytes;
    }
  }
  return freed;
}

/** A stored response for `body`, with the headers {@link listCachedModels} reads. */
function storedResponse(body: Blob | ArrayBuffer, bytes: number, from: string, contentType: string | null): Response {
  const headers = new Headers({ 'content-length': String(bytes), [BYTES_HEADER]: String(bytes), [FROM_HEADER]: from });
  if (contentType) headers.set('content-type', contentType);
  return new Response(body, { status: 200, headers });
}

/** transformers.js's cache interface (`env.customCache`): a Cache API subset, keys are its own URLs. */
export interface TransformersCache {
  match(request: string): Promise<Response | undefined>;
  put(request: string, response: Response): Promise<void>;
}

export interface CacheBinding {
  repo: string;
  revision: string;
  /**
   * The URL prefix transformers.js builds for this model's files (`remoteHost` + the filled path
   * template, e.g. `https://huggingface.co/Xenova/bge-small-en-v1.5/resolve/main/`).
   */
  remotePrefix: string;
}

/** {@link bindCache}'s cache, plus what went wrong storing (transformers.js logs put failures and goes on). */
export interface BoundCache extends TransformersCache {
  /** Errors of puts that were refused or failed (quota, short body), in order. */
  readonly putErrors: DocQaError[];
  /** Files stored by this binding. */
  readonly stored: string[];
}

/**
 * The model cache as transformers.js sees it during one load: the remote URLs of `binding`'s files map
 * to their keys; any other URL (the local-path lookup transformers.js tries first, other models) misses
 * and is never stored.
 */
export function bindCache(cache: CacheLike, binding: CacheBinding): BoundCache {
  const keyOf = (url: string) =>
    url.startsWith(binding.remotePrefix) ? modelFileKey({ repo: binding.repo, revision: binding.revision, path: decodeURI(url.slice(binding.remotePrefix.length)) }) : undefined;
  const putErrors: DocQaError[] = [];
  const stored: string[] = [];
  return {
    putErrors,
    stored,
    async match(url) {
      const key = keyOf(url);
      return key ? cache.match(key) : undefined;
    },
    async put(url, response) {
      const key = keyOf(url);
      if (!key) return;
      const file = url.slice(binding.remotePrefix.length);
      const body = await response.arrayBuffer();
      const expected = Number(response.headers.get(EXPECTED_BYTES_HEADER) ?? NaN);
      if (body.byteLength < expected) {
        const error = new DocQaError('model-download-failed', `model files: ${binding.repo}/${file} arrived with ${body.byteLength} of ${expected} bytes and was not kept; load the model again`);
        putErrors.push(error);
        throw error;
      }
      try {
        await cache.put(key, storedResponse(body, body.byteLength, url, response.headers.get('content-type')));
        stored.push(file);
      } catch (err) {
        const error = isQuotaError(err)
          ? new DocQaError('storage-full', `model files: ${binding.repo} could not be kept for offline use: ${STORAGE_FULL_MESSAGE}`)
          : new DocQaError('internal', `model files: storing ${binding.repo}/${file} failed: ${err instanceof Error ? err.message : String(err)}`);
        putErrors.push(error);
        throw error;
      }
    },
  };
}

/** A file chosen or dropped by the person: its path relative to the chosen folder's parent (`webkitRelativePath`). */
export interface ImportFile {
  path: string;
  blob: Blob;
}

export interface ImportResult {
  repo: string;
  revision: string;
  files: Array<{ path: string; bytes: number }>;
  bytes: number;
  /** Files in the folder that the model does not need (other weight variants, READMEs); not stored. */
  skipped: string[];
}

/** `a\b/./c` → `a/b/c`, without leading `./` or `/`. */
const cleanPath = (path: string) =>
  path
    .replace(/\\/g, '/')
    .split('/')
    .filter((p) => p !== '' && p !== '.')
    .join('/');

/**
 * Paths inside the model folder: the folder the person chose (and up to one parent, as in
 * `Xenova/bge-small-en-v1.5/...`) is stripped while every file shares it and `config.json` is not at the top.
 */
export function modelFolderPaths(paths: readonly string[]): string[] {
  let out = paths.map(cleanPath);
  for (let depth = 0; depth < 2; depth++) {
    if (out.includes('config.json')) break;
    const first = out[0]?.split('/')[0];
    if (!first || first === 'onnx' || !out.every((p) => p.startsWith(`${first}/`))) break; // onnx/ is part of the layout
    out = out.map((p) => p.slice(first.length + 1));
  }
  return out;
}

/** Whether an imported file is kept: one the model needs, a small top-level config, or external weight data. */
function isWanted(path: string, required: readonly string[]): boolean {
  if (required.includes(path)) return true;
  if (!path.includes('/') && /\.(json|txt|model)$/.test(path)) return true; // configs, vocab.txt, sentencepiece.model
  return required.some((r) => r.endsWith('.onnx') && path.startsWith(`${r}_data`)); // model.onnx_data, _data_1 …
}

/**
 * Stores a model folder the person brought (air-gapped, or downloaded elsewhere) under the keys a load
 * of `target` looks up, so a later load needs no network. `required`: the model's files
 * (`catalogue` `files[].path`); a missing one refuses the import ('model-files-missing') before anything
 * is written. All or nothing: if any write fails, the files written are deleted ('storage-full' on quota).
 */
export async function importModelFiles(cache: CacheLike, target: { repo: string; revision: string }, files: readonly ImportFile[], required: readonly string[]): Promise<ImportResult> {
  const paths = modelFolderPaths(files.map((f) => f.path));
  const missing = required.filter((r) => !paths.includes(r));
  if (missing.length) {
    throw new DocQaError('model-files-missing', `model import: the folder has no ${missing.join(', ')} for ${target.repo}: choose the folder that holds config.json and onnx/`);
  }
  const result: ImportResult = { ...target, files: [], bytes: 0, skipped: [] };
  const written: string[] = [];
  try {
    for (let i = 0; i < files.length; i++) {
      const path = paths[i]!;
      const blob = files[i]!.blob;
      if (!isWanted(path, required)) {
        result.skipped.push(path);
        continue;
      }
      const key = modelFileKey({ ...target, path });
      await cache.put(key, storedResponse(blob, blob.size, 'import', blob.type || null));
      written.push(key);
      result.files.push({ path, bytes: blob.size });
      result.bytes += blob.size;
    }
  } catch (err) {
    await Promise.all(written.map((key) => cache.delete(key).catch(() => false)));
    if (isQuotaError(err)) throw new DocQaError('storage-full', `model import: ${target.repo} was not kept: ${STORAGE_FULL_MESSAGE}`);
    throw new DocQaError('internal', `model import: ${target.repo} failed and nothing was kept: ${err instanceof Error ? err.message : String(err)}`);
  }
  return result;
}

/** The model files cache of this origin, where the Cache API exists (a browser); undefined elsewhere. */
export async function openModelCache(): Promise<CacheLike | undefined> {
  const storage = (globalThis as { caches?: CacheStorage }).caches;
  if (!storage) return undefined;
  try {
    return await storage.open(MODEL_CACHE_NAME);
  } catch {
    return undefined; // e.g. an opaque origin: models still load, they are just not kept
  }
}

/** The first file a load could not keep in the cache (storage full), as the person is told. */
export function notKeptBy(bound: BoundCache | undefined): { notKept: { code: DocQaError['code']; message: string } } | Record<string, never> {
  const error = bound?.putErrors[0];
  return error ? { notKept: { code: error.code, message: error.message } } : {};
}
