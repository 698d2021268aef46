/**
 * web-llm's failures as DocQaErrors that say what to do next. Matched on web-llm 0.2.86's own error
 * classes (`lib/error.d.ts`: `WebGPUNotAvailableError`, `ShaderF16SupportError`, `DeviceLostError`, ...)
 * by name, since errors from its web worker arrive as strings: the worker handler posts
 * `err.toString()` ("WebGPUNotAvailableError: WebGPU is not supported ...") and the client rejects
 * with that string. Download failures have no class of their own: they are the browser's fetch
 * `TypeError` ("Failed to fetch", Firefox "NetworkError when attempting to fetch resource", Safari
 * "Load failed"), the Cache API refusing a failed response, or web-llm's artifact caches'
 * "Cannot fetch <url>", "Unable to fetch <url>, received status 404", "Failed to store <url> with error: ...".
 */
import { DocQaError } from '../../core/errors.ts';

/** Name and message of anything thrown, including web-llm's worker strings ("ShaderF16SupportError: ..."). */
export function describeThrown(err: unknown): { name: string; message: string } {
  if (err instanceof Error) return { name: err.name, message: err.message };
  if (typeof err === 'string') {
    const m = /^([A-Za-z]*(?:Error|Exception)): ?([\s\S]*)$/.exec(err);
    return m ? { name: m[1]!, message: m[2]! } : { name: '', message: err };
  }
  if (err && typeof err === 'object') {
    const e = err as { name?: unknown; message?: unknown };
    return { name: typeof e.name === 'string' ? e.name : '', message: typeof e.message === 'string' ? e.message : String(err) };
  }
  return { name: '', message: String(err) };
}

const NO_WEBGPU = new Set(['WebGPUNotAvailableError', 'WebGPUNotFoundError']);
const OUT_OF_MEMORY = new Set(['DeviceLostError', 'GPUOutOfMemoryError', 'WebLlmWorkerError']);
const DOWNLOAD = new Set(['IntegrityError', 'NetworkError']);
const NOT_IN_LIST = new Set(['ModelNotFoundError', 'MissingModelError', 'MissingModelWasmError', 'UnsupportedModelIdError']);

const OUT_OF_MEMORY_TEXT = /out of memory|\bOOM\b|device (?:was|is) lost|Cannot allocate|allocation failed|could not allocate/i;
const DOWNLOAD_TEXT =
  /Failed to fetch|NetworkError|Load failed|Cannot fetch|Unable to fetch|Failed to store|Network response was not ok|Failed to execute 'add' on 'Cache'|received status \d+|Integrity verification failed|ERR_INTERNET_DISCONNECTED|network error/i;

/**
 * The DocQaError for a web-llm failure while loading `model` or writing with it. Each names the model
 * and gives a way out:
 * - no WebGPU → `webgpu-unavailable`: answers use the WASM model or quotes;
 * - `shader-f16` (or another feature) missing → `model-unsupported`: choose a q4f32 model;
 * - device lost or out of memory (also a worker that died) → `gpu-out-of-memory`: close other tabs or
 *   choose a smaller model;
 * - storage full while caching → `storage-full`;
 * - download failure (while loading) → `model-download-failed`: check the connection and try again;
 *   nothing partial is kept (the loader deletes what was downloaded);
 * - prompt over the context window → `too-large`; a model missing from web-llm's list → `model-unsupported`;
 * - anything else → `internal`, with web-llm's message.
 */
export function explainWebLlmError(err: unknown, model: { label: string }, during: 'load' | 'generate'): DocQaError {
  if (err instanceof DocQaError) return err;
  const { name, message } = describeThrown(err);
  const who = model.label;
  const cause = { cause: err };
  if (NO_WEBGPU.has(name) || /WebGPU is not supported|Cannot find WebGPU/.test(message)) {
    return new DocQaError('webgpu-unavailable', `${who}: this browser has no WebGPU: answers use the WASM model or quotes`, cause);
  }
  if (name === 'ShaderF16SupportError' || (name === 'FeatureSupportError' && /shader-f16/.test(message)) || /extension shader-f16/.test(message)) {
    return new DocQaError('model-unsupported', `${who} needs the WebGPU feature shader-f16, which this device lacks: choose a q4f32 model`, cause);
  }
  if (name === 'FeatureSupportError') {
    const feature = /requires feature (\S+?),/.exec(message)?.[1] ?? 'a WebGPU feature';
    return new DocQaError('model-unsupported', `${who} needs ${feature}, which this browser lacks: choose another model`, cause);
  }
  if (OUT_OF_MEMORY.has(name) || OUT_OF_MEMORY_TEXT.test(message)) {
    return new DocQaError('gpu-out-of-memory', `${who} ran out of GPU memory (the device was lost): close other tabs or choose a smaller model`, cause);
  }
  if (name === 'QuotaExceededError' || /QuotaExceeded|quota/i.test(message)) {
    return new DocQaError('storage-full', `${who}: storage full while downloading the model: delete documents or models, or free disk space; nothing partial is kept`, cause);
  }
  if (name === 'AbortError') return new DocQaError('cancelled', `${who}: stopped`, cause);
  if (during === 'load' && (DOWNLOAD.has(name) || DOWNLOAD_TEXT.test(message) || (name === 'TypeError' && /fetch/i.test(message)))) {
    return new DocQaError('model-download-failed', `${who}: the download failed: check the connection and try again; nothing partial is kept`, cause);
  }
  if (name === 'ContextWindowSizeExceededError' || /exceed context window size/.test(message)) {
    const m = /number of prompt tokens: (\d+); context window size: (\d+)/.exec(message);
    const sizes = m ? ` (${m[1]} tokens; it holds ${m[2]})` : '';
    return new DocQaError('too-large', `${who}: the question and its passages are longer than the model's context window${sizes}: ask with fewer passages or start a new conversation`, cause);
  }
  if (NOT_IN_LIST.has(name)) {
    return new DocQaError('model-unsupported', `${who} is not in this version of WebLLM's model list: choose another model`, cause);
  }
  return new DocQaError('internal', `${who}: WebLLM failed while ${during === 'load' ? 'loading' : 'writing'}: ${message}`, cause);
}
