import { wrap, type Remote } from 'comlink';
import { DocQaError } from '../../core/errors.ts';

/**
 * A Comlink worker started on first use. If it dies (out of memory, say), pending calls fail with
 * 'internal' ("<name> worker stopped") and the next call starts a fresh one, which has lost its state:
 * the caller loads its model again.
 */
export class LazyWorker<Api> {
  private worker: Worker | undefined;
  private api: Remote<Api> | undefined;
  private died: Promise<never> | undefined;

  constructor(
    private readonly name: string,
    private readonly spawn: () => Worker,
  ) {}

  call<T>(run: (api: Remote<Api>) => Promise<T>): Promise<T> {
    if (!this.worker || !this.api || !this.died) {
      const worker = this.spawn();
      this.worker = worker;
      this.api = wrap<Api>(worker);
      this.died = new Promise<never>((_, reject) => {
        worker.addEventListener('error', (e) => {
          e.preventDefault();
          if (this.worker === worker) this.terminate();
          reject(new DocQaError('internal', `${this.name} worker stopped (${e.message || 'out of memory?'}): load the model again`));
        });
      });
      this.died.catch(() => undefined);
    }
    return Promise.race([run(this.api), this.died]);
  }

  /** Stops the worker now (a running call fails); the next call starts a fresh one. */
  terminate(): void {
    this.worker?.terminate();
    this.worker = undefined;
    this.api = undefined;
    this.died = undefined;
  }
}
