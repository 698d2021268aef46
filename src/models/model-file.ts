/**
 * One model file read whole from a {@link ModelSource}, for runtimes that take their weights as bytes
 * rather than through transformers.js (llama.cpp's GGUF files): the same sources, cache, guarded fetch
 * and progress events as every other load (`model-source.ts`), so a GGUF model downloads, is kept for
 * offline use and is imported from a folder exactly as an ONNX model is.
 */
import { DocQaError } from '../core/errors.ts';
import { guardDownloads } from './download-guard.ts';
import { KEY_ORIGIN } from './model-cache.ts';
import { FileTally } from './file-tally.ts';
import { remotePrefixFor, type LoadOptions, type ModelLocation } from './model-source.ts';

const withSlash = (s: string) => (s.endsWith('/') ? s : `${s}/`);

/** The URL `path` of `model` is read from, and the key the bound cache knows it by. */
export function modelFileUrl(model: ModelLocation, path: string, options: Pick<LoadOptions, 'source'>): string {
  const { source } = options;
  if (source.kind === 'folder') return `${withSlash(source.root)}${model.repo}/${path}`;
  const prefix = remotePrefixFor(model, source) ?? KEY_ORIGIN;
  return `${prefix}${path.split('/').map(encodeURIComponent).join('/')}`;
}

/** Reads a body to the end, reporting bytes so far (`total` from Content-Length, else 0 until done). */
async function readBody(response: Response, report: (loaded: number, total: number) => void, signal?: AbortSignal): Promise<Blob> {
  const length = Number(response.headers.get('content-length') ?? NaN);
  const total = Number.isFinite(length) ? length : 0;
  if (!response.body) return response.blob();
  const reader = response.body.getReader();
  const parts: Uint8Array[] = [];
  let loaded = 0;
  let last = 0;
  for (;;) {
    if (signal?.aborted) {
      await reader.cancel().catch(() => undefined);
      throw new DOMException('loading stopped', 'AbortError');
    }
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    loaded += value.byteLength;
    // Progress at most every 1 MB: a 100 MB file is a hundred events, not thousands.
    if (loaded - last >= 1 << 20) {
      last = loaded;
      report(loaded, total);
    }
  }
  report(loaded, total || loaded);
  return new Blob(parts as BlobPart[], { type: response.headers.get('content-type') ?? 'application/octet-stream' });
}

/**
 * `path` of `model` as a Blob: from the bound cache when it is there, else from the source (a folder
 * served by the app, the hub, a mirror; the cache source never fetches), stored in the cache once read
 * whole. Progress goes out as `file` and `total` events, then `file-done`. Throws 'model-files-missing'
 * naming the file when the source has no such file, 'model-download-failed' when a download breaks off.
 */
export async function readModelFile(model: ModelLocation, path: string, options: LoadOptions & { signal?: AbortSignal }): Promise<Blob> {
  const url = modelFileUrl(model, path, options);
  const tally = new FileTally();
  const report = (loaded: number, total: number) => {
    tally.progress(path, loaded, total);
    options.onProgress?.({ type: 'file', file: path, loaded, total });
    options.onProgress?.({ type: 'total', ...tally.sum() });
  };
  const done = () => {
    tally.done(path);
    options.onProgress?.({ type: 'file-done', file: path });
    options.onProgress?.({ type: 'total', ...tally.sum() });
  };
  const useCache = options.cache && options.source.kind !== 'folder';
  const cached = useCache ? await options.cache!.match(url) : undefined;
  if (cached) {
    const blob = await readBody(cached, report, options.signal);
    done();
    return blob;
  }
  const where = options.source.kind === 'folder' ? `folder ${withSlash(options.source.root)}${model.repo}` : `${model.repo} (${options.source.kind === 'cache' ? 'model files kept on this device' : options.source.kind === 'hub' ? 'hub' : options.source.baseUrl})`;
  if (options.source.kind === 'cache') {
    throw new DocQaError('model-files-missing', `${where} has no ${path}: download the model again or import its file`);
  }
  const fetchFn = guardDownloads(options.fetch ?? ((input, init) => fetch(input, init)));
  const response = await fetchFn(url, options.signal ? { signal: options.signal } : undefined);
  if (response.status === 404) throw new DocQaError('model-files-missing', `${where} has no ${path}: add the file (or choose the folder that holds it) and load the model again`);
  if (!response.ok) throw new DocQaError('model-download-failed', `model files: ${path} from ${where} answered HTTP ${response.status}: try again later, or import the file from disk`);
  const blob = await readBody(response, report, options.signal);
  if (useCache) {
    // Kept once read whole (the cache checks it against the announced length); a refusal (storage full)
    // is recorded by the bound cache and reported with the load: the model works, unkept.
    await options.cache!.put(url, new Response(blob, { headers: response.headers })).catch(() => undefined);
  }
  done();
  return blob;
}
