/**
 * Errors a person can act on. Each has a literal `code`; the message says what to do next.
 * Errors cross a worker as `{ name, code, message }` and are rebuilt with {@link reviveError}.
 */
export type ErrorCode =
  | 'unsupported-type'
  | 'empty-file'
  | 'corrupt-file'
  | 'password-protected'
  | 'no-text-layer'
  | 'no-readable-text'
  | 'ocr-failed'
  | 'ocr-language-refused'
  | 'archive-refused'
  | 'folder-refused'
  | 'invalid-encoding'
  | 'storage-full'
  | 'already-in-library'
  | 'schema-version'
  | 'storage-closed'
  | 'invalid-vector'
  | 'too-large'
  | 'read-limit'
  | 'too-slow'
  | 'interrupted'
  | 'cancelled'
  | 'model-files-missing'
  | 'model-download-failed'
  | 'model-unsupported'
  | 'model-output-invalid'
  | 'model-out-of-memory'
  | 'prompt-too-long'
  | 'webgpu-unavailable'
  | 'gpu-out-of-memory'
  | 'chunk-too-long'
  | 'invalid-setting'
  | 'internal';

export class DocQaError extends Error {
  override readonly name = 'DocQaError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface SerializedError {
  name: string;
  code: ErrorCode;
  message: string;
}

/** Turns anything thrown into a plain object that survives structured clone. */
export function serializeError(err: unknown): SerializedError {
  if (err instanceof DocQaError) return { name: err.name, code: err.code, message: err.message };
  if (isQuotaError(err)) {
    return { name: 'DocQaError', code: 'storage-full', message: STORAGE_FULL_MESSAGE };
  }
  return { name: 'DocQaError', code: 'internal', message: personalMessage(err) };
}

/**
 * What a person is told about an error the app did not expect, in words they can act on, with the
 * technical detail in brackets for a report: a storage failure says to reload, anything else to try again.
 */
export function personalMessage(err: unknown): string {
  if (err instanceof DocQaError) return err.message;
  if (isQuotaError(err)) return STORAGE_FULL_MESSAGE;
  const detail = err instanceof Error ? err.message : String(err);
  if (isStorageFailure(err)) return `the browser's storage refused the change (${detail}): reload the page, then try again`;
  return `an unexpected problem stopped it (${detail}): try again, and reload the page if it happens again`;
}

export function reviveError(e: SerializedError): DocQaError {
  return new DocQaError(e.code, e.message);
}

export const STORAGE_FULL_MESSAGE = 'storage full: delete documents or free disk space';

/** True for IndexedDB's QuotaExceededError, whichever way the browser wraps it. */
export function isQuotaError(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as { name?: string; code?: unknown; inner?: unknown };
  if (e.name === 'QuotaExceededError') return true;
  if (e instanceof DocQaError) return e.code === 'storage-full';
  return false;
}

/**
 * Whether an error is IndexedDB failing as a whole (a transaction aborted or refused, the connection
 * closing) rather than anything about the data written. When the browser force-closes the connection (site
 * data cleared, storage evicted), Chromium fails the transactions in flight with errors like these
 * ("Connection is closing because of: Force close delete origin", "The transaction was aborted") before
 * the connection's `close` event arrives.
 */
export function isStorageFailure(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const name = (err as { name?: string }).name;
  return name === 'AbortError' || name === 'UnknownError' || name === 'InvalidStateError' || name === 'TransactionInactiveError';
}

/** Prefixes a file's name to an error message that does not name it yet ("a.pdf: storage full: …"). */
export function forFile(error: SerializedError, name: string): SerializedError {
  return error.message.startsWith(`${name}:`) ? error : { ...error, message: `${name}: ${error.message}` };
}
