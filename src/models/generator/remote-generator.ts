/**
 * A {@link Generator} whose model runs elsewhere (the generate worker): pieces arrive through a callback
 * and are handed out by the async iterable; aborting the signal asks the other side to stop, and the
 * stream ends with what was written.
 */
import type { GenerateRequest, Generator, GeneratorModel } from './generator.ts';

/** What the other side offers: `generate` streams run `run`'s pieces to `onPiece` and resolves at its end. */
export interface GeneratorPort {
  countTokens(text: string): Promise<number>;
  generate(run: number, request: Omit<GenerateRequest, 'signal'>, onPiece: (piece: string) => void): Promise<void>;
  stop(run: number): Promise<void>;
}

let nextRun = 1;

export function remoteGenerator(model: GeneratorModel, port: GeneratorPort): Generator {
  return {
    model,
    countTokens: (text) => port.countTokens(text),
    async *stream(request) {
      const { signal, ...rest } = request;
      if (signal?.aborted) return;
      const run = nextRun++;
      const pieces: string[] = [];
      let wake: (() => void) | undefined;
      let done = false;
      let failure: unknown;
      const onAbort = () => void port.stop(run).catch(() => undefined);
      signal?.addEventListener('abort', onAbort, { once: true });
      void port
        .generate(run, rest, (piece) => {
          pieces.push(piece);
          wake?.();
        })
        .then(
          () => (done = true),
          (err: unknown) => {
            failure = err;
            done = true;
          },
        )
        .finally(() => wake?.());
      try {
        for (;;) {
          while (pieces.length) yield pieces.shift()!;
          if (done) break;
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
        }
        while (pieces.length) yield pieces.shift()!;
        if (failure) throw failure;
      } finally {
        signal?.removeEventListener('abort', onAbort);
        // The consumer left early (a break): the other side stops too.
        if (!done) void port.stop(run).catch(() => undefined);
      }
    },
  };
}
