/**
 * What every engine behind the {@link Generator} interface shares (transformers.js on ONNX, llama.cpp on
 * GGUF): the checks on a request, the JSON instruction, the report of a generation, and the hand-over of
 * pieces from the engine's callback to the stream the caller reads, which stops at once on abort or when
 * the caller leaves the loop.
 */
import { DocQaError } from '../../core/errors.ts';
import type { GeneratorModelEntry } from '../generator-catalogue.ts';
import type { ChatMessage, GenerateRequest, Generator } from './generator.ts';

/** `maxTokens` when a request gives none. */
export const DEFAULT_MAX_TOKENS = 512;
const MAX_TOKENS_LIMIT = 4096;

/** The instruction `json: true` adds to the system message. */
export const JSON_INSTRUCTION = 'Reply with one JSON object and nothing else: no text before or after it, no code fence.';

/** How the last generation went (for the context budget's bookkeeping, the bench and tests). */
export interface GenerationReport {
  /** Tokens of the prompt after the chat template. */
  promptTokens: number;
  /** Tokens the model wrote (the end-of-turn token included when it wrote one). */
  newTokens: number;
  /** `end`: the model ended its turn; `max-tokens`: `maxTokens` or the context budget; `aborted`: the signal or a `break`. */
  stop: 'end' | 'max-tokens' | 'aborted';
  /** Milliseconds from the request to the first piece (prompt processing), and from there to the end. */
  firstPieceMs?: number;
  writeMs?: number;
}

/** A generator the model host runs: the interface, plus its entry, its last report and a way to free it. */
export interface HostedGenerator extends Generator {
  /** The catalogue entry it was loaded from. */
  readonly entry: GeneratorModelEntry;
  /** The last finished generation's report; undefined before the first. */
  readonly lastGeneration: GenerationReport | undefined;
  /** Frees the inference session. */
  dispose(): Promise<void>;
}

/** `maxTokens` and `temperature` of a request, checked; `who` starts the message. */
export function checkGenerateRequest(request: GenerateRequest, who: string): { maxTokens: number; temperature: number } {
  const maxTokens = request.maxTokens ?? DEFAULT_MAX_TOKENS;
  if (!Number.isInteger(maxTokens) || maxTokens < 1 || maxTokens > MAX_TOKENS_LIMIT) {
    throw new DocQaError('invalid-setting', `${who}: maxTokens must be a whole number from 1 to ${MAX_TOKENS_LIMIT}, not ${maxTokens}`);
  }
  const temperature = request.temperature ?? 0;
  if (!Number.isFinite(temperature) || temperature < 0) {
    throw new DocQaError('invalid-setting', `${who}: temperature must be 0 (greedy) or more, not ${temperature}`);
  }
  return { maxTokens, temperature };
}

/**
 * The messages with the JSON instruction added to the first system message (or as a new first system
 * message): one system turn, which every chat template that has a system role accepts (some refuse a
 * system message after the first turn).
 */
export function withJsonInstruction(messages: readonly ChatMessage[], json: boolean | undefined): ChatMessage[] {
  if (!json) return [...messages];
  const first = messages.findIndex((m) => m.role === 'system');
  if (first < 0) return [{ role: 'system', content: JSON_INSTRUCTION }, ...messages];
  return messages.map((m, i) => (i === first ? { role: 'system', content: `${m.content}\n\n${JSON_INSTRUCTION}` } : m));
}

/** What a generation is given: where its pieces go, whether the caller stopped, and a signal of it. */
export interface GenerationRun {
  /** Hands a piece of text to the caller (dropped once the caller stopped). */
  push(piece: string): void;
  /** The caller's signal was aborted or the caller left the loop. */
  stopped(): boolean;
  /** Aborted when {@link stopped} turns true. */
  readonly signal: AbortSignal;
}

/**
 * One generation at a time per loaded model (an ONNX session and a llama.cpp context are not
 * re-entrant), each streamed to its caller: `stream` runs `generate` after the generations before it and
 * yields its pieces as they come; it ends at once when `signal` is aborted or the caller leaves the loop
 * (`break`), keeping the pieces already yielded, and only after the generation has finished, so the model
 * is free for the next. A failure, unless the caller stopped, is thrown as `explain` words it.
 */
export class GenerationQueue {
  private tail: Promise<unknown> = Promise.resolve();

  /** Resolves once every generation queued so far has finished (before the model is freed). */
  idle(): Promise<unknown> {
    return this.tail.catch(() => undefined);
  }

  async *stream(signal: AbortSignal | undefined, generate: (run: GenerationRun) => Promise<void>, explain: (err: unknown) => Error): AsyncGenerator<string> {
    const pieces: string[] = [];
    let wake: (() => void) | undefined;
    const notify = () => {
      wake?.();
      wake = undefined;
    };
    const leave = new AbortController(); // the caller stopped reading
    const stopped = () => leave.signal.aborted || (signal?.aborted ?? false);
    const combined = signal ? AbortSignal.any([signal, leave.signal]) : leave.signal;
    let finished = false;
    let failure: unknown;
    const push = (piece: string) => {
      if (stopped()) return;
      pieces.push(piece);
      notify();
    };
    const run = this.tail
      .then(async () => {
        if (!stopped()) await generate({ push, stopped, signal: combined });
      })
      .then(
        () => {
          finished = true;
        },
        (err: unknown) => {
          finished = true;
          failure = err;
        },
      )
      .finally(notify);
    this.tail = run;
    const onAbort = () => notify();
    signal?.addEventListener('abort', onAbort);
    try {
      for (;;) {
        if (stopped()) break;
        const piece = pieces.shift();
        if (piece !== undefined) {
          yield piece;
          continue;
        }
        if (finished) break;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
      await run;
      if (failure !== undefined && !stopped()) throw explain(failure);
    } finally {
      leave.abort();
      signal?.removeEventListener('abort', onAbort);
      await run; // the model is free again before the next stream or dispose
    }
  }
}
