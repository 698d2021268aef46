import { DocQaError } from '../../core/errors.ts';
import type { EmbeddingEvent } from '../../core/types.ts';
import { FileTally } from '../file-tally.ts';
import type { LoadProgress } from '../model-source.ts';

/**
 * What the library worker does around a model held by another worker (embed, rerank, generate): download
 * progress as the page shows it, and a call retried once after that worker was restarted.
 */

/** Turns the loader's per-file progress into the `download` figures of `embedding` events, at most ~10 a second. */
export function progressReporter(report: (download: NonNullable<EmbeddingEvent['download']>) => void): (event: LoadProgress) => void {
  const files = new FileTally();
  let last = 0;
  return (event) => {
    if (event.type === 'file') files.progress(event.file, event.loaded, event.total);
    else if (event.type === 'file-done') files.done(event.file);
    else return;
    const now = Date.now();
    if (event.type === 'file' && now - last < 100 && event.loaded < event.total) return;
    last = now;
    report({ ...files.sum(), files: files.list() });
  };
}

/** Whether an error says the worker had stopped, or a fresh one holds no model (its predecessor died). */
export function isWorkerRestart(err: unknown): boolean {
  return err instanceof DocQaError && err.code === 'internal' && (err.message.includes('worker stopped') || err.message.includes('no model is loaded'));
}

/**
 * Runs a call to a model worker; if that worker had stopped (it ran out of memory, say: a fresh one starts
 * with no model), the model is loaded again (`reload`, from the browser's model cache) and the call retried
 * once. Any other error is thrown as it is.
 */
export async function retryAfterRestart<T>(run: () => Promise<T>, reload: () => Promise<unknown>, worker: string): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (!isWorkerRestart(err)) throw err;
    console.warn(`${worker} worker restarted; loading the model again`, err);
    await reload();
    return run();
  }
}
