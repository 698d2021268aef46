import { DocQaError } from '../core/errors.ts';

export interface WatchOptions {
  /** Longest time without a heartbeat before the run is stopped, in ms. */
  idleMs: number;
  /** Called once when the run is given up (terminate the worker here). */
  stop(): void;
  /** The error the run rejects with when it is given up. */
  expired(): DocQaError;
}

/** A run that can also be stopped from outside (Delete on a file being read). */
export interface WatchedRun<T> {
  result: Promise<T>;
  /** Stops the run now and rejects `result` with `error`. */
  abort(error: DocQaError): void;
}

/**
 * Runs `task` under a watchdog: every heartbeat (`beat`) restarts the clock, and when `idleMs` pass
 * without one, `stop` is called and the result rejects with `expired()`. A task that settles after being
 * stopped is ignored. Pure: the timers are the only environment it needs.
 */
export function watch<T>(task: (beat: () => void) => Promise<T>, options: WatchOptions): WatchedRun<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let settled = false;
  let fail!: (error: DocQaError) => void;
  const stopped = new Promise<never>((_, reject) => {
    fail = (error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.stop();
      reject(error);
    };
  });
  const beat = () => {
    if (settled) return;
    clearTimeout(timer);
    timer = setTimeout(() => fail(options.expired()), options.idleMs);
  };
  beat();
  const running = task(beat).finally(() => {
    settled = true;
    clearTimeout(timer);
  });
  // Whichever loses the race is expected to reject unobserved.
  running.catch(() => undefined);
  stopped.catch(() => undefined);
  return { result: Promise.race([running, stopped]), abort: fail };
}
