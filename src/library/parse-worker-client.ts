import { proxy, wrap, type Remote } from 'comlink';
import { DocQaError } from '../core/errors.ts';
import type { PageReading, ReadingStage, ReadProgress } from '../core/types.ts';
import type { ParseApi, ParseRequest } from '../ingest/parse-handler.ts';
import type { PreparedDocument } from '../ingest/prepare-document.ts';
import { watch, type WatchedRun } from './parse-watchdog.ts';
import type { Preparer } from './preparer.ts';

export interface ParseWorkerOptions {
  /**
   * Longest time a file may go without reporting progress before its worker is terminated and the file
   * fails with "took too long to read". Default 30 s (pdf.js reports every page; a 5,000-page PDF reports
   * ~1,000 times a second). Try again quadruples it.
   */
  idleMs?: number;
}

const DEFAULT_IDLE_MS = 30_000;

/**
 * Reads files in a worker of their own, so a slow or hostile file costs time, never the library worker
 * that indexes and answers. One file at a time; the worker is terminated (and a fresh one started for the
 * next file) when the watchdog gives up on a file, when the file is deleted mid-read, or when the worker dies.
 */
export class ParseWorkerClient implements Preparer {
  private worker: Worker | undefined;
  private api: Remote<ParseApi> | undefined;
  private current: WatchedRun<PreparedDocument> | undefined;

  constructor(
    private readonly spawn: () => Worker,
    private readonly options: ParseWorkerOptions = {},
  ) {}

  prepare(request: ParseRequest, onProgress: ReadProgress, insist = false, onRecognised?: (reading: PageReading) => void): Promise<PreparedDocument> {
    const idleMs = (this.options.idleMs ?? DEFAULT_IDLE_MS) * (insist ? 4 : 1);
    const { worker, api } = this.ensureWorker();
    const run = watch<PreparedDocument>(
      async (beat) => {
        const died = new Promise<never>((_, reject) => {
          worker.onerror = (e) => {
            e.preventDefault();
            this.terminate();
            reject(new DocQaError('read-limit', `${request.name}: too large to read here: reading it stopped the reader (${e.message || 'out of memory'}). Split it into smaller files, or press Try again to insist`));
          };
        });
        died.catch(() => undefined);
        const progress = proxy((fraction: number, stage?: ReadingStage) => {
          beat();
          onProgress(fraction, stage);
        });
        const recognised = onRecognised && proxy((reading: PageReading) => onRecognised(reading));
        return Promise.race([api.prepare(request, progress, recognised), died]);
      },
      {
        idleMs,
        stop: () => this.terminate(),
        expired: () =>
          new DocQaError('too-slow', `${request.name}: took too long to read: no progress for ${Math.round(idleMs / 1000)} s. It was skipped; press Try again to give it more time`),
      },
    );
    this.current = run;
    return run.result.finally(() => {
      if (this.current === run) this.current = undefined;
    });
  }

  abort(error: DocQaError): void {
    this.current?.abort(error);
  }

  private ensureWorker(): { worker: Worker; api: Remote<ParseApi> } {
    if (!this.worker || !this.api) {
      this.worker = this.spawn();
      this.api = wrap<ParseApi>(this.worker);
    }
    return { worker: this.worker, api: this.api };
  }

  private terminate(): void {
    this.worker?.terminate();
    this.worker = undefined;
    this.api = undefined;
  }
}
