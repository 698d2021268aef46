/**
 * A GGUF model (llama.cpp's format) run by llama.cpp compiled to WebAssembly (`@wllama/wllama`) behind
 * the one {@link Generator} interface, on the model host like every other runtime (`generate-handler.ts`).
 * Browser only: wllama runs llama.cpp in a worker of its own, started from the generate worker.
 *
 * - **Files**: the one `.gguf` file read whole from the load's source (hub, mirror, folder, the model
 *   cache; `model-file.ts`), its header checked first (`gguf-header.ts`): an instruct model (it carries a
 *   chat template), at most 2 GB (one ArrayBuffer; split files are not offered), and room for its file,
 *   KV cache and compute buffers in WebAssembly's 4 GB and the device's memory.
 * - **Prompt**: the messages through the model's own chat template (llama.cpp's `llama_chat_apply_template`).
 * - **Decoding**: greedy at temperature 0 (the same prompt gives the same text). `json: true` adds the
 *   JSON instruction and constrains decoding to one JSON object: at each step the likeliest of the top
 *   tokens whose bytes keep the reply a prefix of a JSON object of the request's shape, when it gives one
 *   (`generator/json-prefix.ts`), is taken, and the reply ends when the object closes; so a JSON step always receives well-formed JSON (unless
 *   `maxTokens` cuts it), which small models otherwise rarely write (SmolLM2-135M answered a JSON
 *   request with Python). llama.cpp's own grammars would do this inside the sampler, but wllama 2.3.5
 *   never advances a grammar past the first token (its `sampling_accept` calls
 *   `common_sampler_accept(…, accept_grammar = false)`), so a JSON grammar repeats `{` forever.
 * - **Streaming and stopping**: each token's bytes are decoded as they come (a character split over two
 *   tokens waits for its second half); the model's end-of-generation tokens, `maxTokens`, the context
 *   budget or `signal` end it, keeping what was written.
 * - **Threads**: llama.cpp's multi-thread build when the page is cross-origin isolated, on half the
 *   cores at most 4, counting the cores measured free (`host/cpu-probe.ts`), not the reported ones:
 *   llama.cpp's threads spin, and more of them than free cores stalls it; else the single-thread build.
 * - One generation at a time (the llama.cpp context is not re-entrant).
 */
import { DocQaError } from '../../core/errors.ts';
import { ggufFileOf, type GgufGeneratorEntry } from '../generator-catalogue.ts';
import { checkGenerateRequest, GenerationQueue, withJsonInstruction, type GenerationReport, type HostedGenerator } from '../generator/generation.ts';
import type { GenerateRequest, JsonShape } from '../generator/generator.ts';
import { JsonObjectPrefix } from '../generator/json-prefix.ts';
import { readModelFile } from '../model-file.ts';
import type { LoadOptions } from '../model-source.ts';
import { llamaThreads } from '../host/cpu-probe.ts';
import { checkGgufFits, readGgufFacts } from './gguf-header.ts';

/** Where the app serves llama.cpp's two WebAssembly builds (never a CDN). */
export interface GgufWasmPaths {
  /** `@wllama/wllama/esm/single-thread/wllama.wasm` as the app serves it. */
  singleThread: string;
  /** The multi-thread build; used only when the page is cross-origin isolated. */
  multiThread?: string;
}

/** Error messages of running out of memory in llama.cpp's WebAssembly (emscripten) or the browser. */
const OUT_OF_MEMORY = /out of memory|memory access out of bounds|failed to allocate|Cannot enlarge memory|Aborted\(OOM\)|bad_alloc|Array buffer allocation failed/i;

/** What a load may be told of the device (tests set it; the default reads `navigator`). */
export interface GgufDevice {
  /** GiB, as `navigator.deviceMemory` gives it (rounded, at most 8); undefined when the browser does not say. */
  deviceMemoryGiB?: number;
  crossOriginIsolated: boolean;
  hardwareConcurrency: number;
}

function readDevice(): GgufDevice {
  const nav = (globalThis as { navigator?: { deviceMemory?: number; hardwareConcurrency?: number } }).navigator;
  return {
    ...(typeof nav?.deviceMemory === 'number' ? { deviceMemoryGiB: nav.deviceMemory } : {}),
    crossOriginIsolated: (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true,
    hardwareConcurrency: nav?.hardwareConcurrency ?? 1,
  };
}

/** The part of wllama this engine uses (an interface, so its types stay here). */
interface Engine {
  decode(tokens: number[], options: object): Promise<unknown>;
  getLogits(topK: number): Promise<Array<{ token: number; p: number }>>;
  detokenize(tokens: number[]): Promise<Uint8Array>;
  kvClear(): Promise<void>;
  isTokenEOG(token: number): boolean;
  mustAddBosToken(): boolean;
  getBOS(): number;
  loadModel(blobs: Blob[], config: { n_ctx: number; n_threads: number; n_batch?: number }): Promise<void>;
  formatChat(messages: { role: 'system' | 'user' | 'assistant'; content: string }[], addAssistant: boolean): Promise<string>;
  tokenize(text: string, special?: boolean): Promise<number[]>;
  createCompletion(
    prompt: string,
    options: {
      nPredict: number;
      sampling: { temp: number };
      abortSignal?: AbortSignal;
      onNewToken: (token: number, piece: Uint8Array, currentText: string) => void;
      stream?: false;
    },
  ): Promise<string>;
  getLoadedContextInfo(): { n_ctx: number; n_ctx_train: number; n_vocab: number };
  getNumThreads(): number;
  isMultithread(): boolean;
  exit(): Promise<void>;
}

export interface GgufLoadOptions extends LoadOptions {
  wasm: GgufWasmPaths;
  /** Default: read from `navigator`. */
  device?: never;
  deviceFacts?: GgufDevice;
  /**
   * Measures the free cores with up to `upTo` probe workers (`host/cpu-probe.ts`); asked only when the
   * multi-thread build could run on 2 threads or more. Absent: the reported cores are taken as free.
   */
  measureCores?: (upTo: number) => Promise<number>;
}

/**
 * Runs `load` with `document.baseURI` readable in a worker: wllama resolves its WebAssembly paths against
 * it (`new URL(path, document.baseURI)`), which only a page has. The stand-in (the worker's own URL)
 * exists only while the model loads, when nothing else runs in this worker (the host runs one call at a
 * time), so no other library mistakes the worker for a page.
 */
async function withDocumentBase<T>(load: () => Promise<T>): Promise<T> {
  const scope = globalThis as { document?: unknown; location?: { href: string } };
  if (scope.document !== undefined || !scope.location) return load();
  scope.document = { baseURI: scope.location.href };
  try {
    return await load();
  } finally {
    delete scope.document;
  }
}

/** Turns an engine failure into a DocQaError a person can act on. */
export function explainGgufError(err: unknown, entry: GgufGeneratorEntry): DocQaError {
  if (err instanceof DocQaError) return err;
  const message = err instanceof Error ? err.message : String(err);
  if (OUT_OF_MEMORY.test(message) || (err instanceof RangeError && /memory|buffer/i.test(message))) {
    return new DocQaError('model-out-of-memory', `generator: ${entry.label} ran out of memory (${message.slice(0, 200)}): close other tabs or apps and try again, choose a smaller model, or use the extractive answer`, { cause: err });
  }
  if (/load_error|failed to load model|unknown model architecture|error loading model/i.test(message)) {
    return new DocQaError('model-unsupported', `generator: llama.cpp could not load ${entry.label} (${message.slice(0, 200)}): the file is damaged or its architecture is newer than this app's llama.cpp`, { cause: err });
  }
  return new DocQaError('internal', `generator: ${entry.label} failed: ${message.slice(0, 300)}`, { cause: err });
}

/**
 * Reads `entry`'s GGUF file from `options.source`, checks it and loads it into llama.cpp.
 *
 * @example
 * const generator = await loadGgufGenerator(SMOLLM2_135M_INSTRUCT, { source: { kind: 'hub' }, wasm, onProgress });
 */
export async function loadGgufGenerator(entry: GgufGeneratorEntry, options: GgufLoadOptions): Promise<HostedGenerator> {
  const file = ggufFileOf(entry);
  const blob = await readModelFile(entry, file, options);
  const facts = await readGgufFacts(blob, file);
  const device = options.deviceFacts ?? readDevice();
  checkGgufFits(facts, blob.size, entry.contextTokens, device, entry.label);
  const contextTokens = facts.contextLength ? Math.min(entry.contextTokens, facts.contextLength) : entry.contextTokens;
  const { Wllama } = await import('@wllama/wllama/esm/index.js');
  const canThread = device.crossOriginIsolated && options.wasm.multiThread !== undefined;
  const reported = Math.max(1, device.hardwareConcurrency);
  const cores = canThread && llamaThreads(true, reported) > 1 && options.measureCores ? Math.min(reported, await options.measureCores(reported)) : reported;
  const threads = llamaThreads(canThread, cores);
  console.info(`llama.cpp: ${threads} thread${threads === 1 ? '' : 's'} (${cores === reported ? '' : `${cores.toFixed(1)} cores measured free of `}${reported} reported${canThread ? '' : ', not cross-origin isolated'})`);
  const engine = new Wllama(
    { 'single-thread/wllama.wasm': options.wasm.singleThread, ...(options.wasm.multiThread ? { 'multi-thread/wllama.wasm': options.wasm.multiThread } : {}) },
    { suppressNativeLog: true, logger: { debug: () => {}, log: () => {}, warn: () => {}, error: (...args: unknown[]) => console.error('llama.cpp:', ...args) } },
  ) as unknown as Engine;
  try {
    await withDocumentBase(() => engine.loadModel([blob], { n_ctx: contextTokens, n_threads: threads }));
  } catch (err) {
    await engine.exit().catch(() => undefined);
    throw explainGgufError(err, entry);
  }
  options.onProgress?.({ type: 'ready' });
  return createGgufGenerator(entry, engine, contextTokens);
}

/** Candidates looked at per step of constrained decoding: the top 40, then (if none fits) the top 1,000. */
const JSON_CANDIDATES = [40, 1000];

/**
 * When none of the top 1,000 continues the object (a key the model does not spell, a string it will not
 * close), the first of these characters that does is written, closers first: an unfinished object always
 * has one, so a reply stops short only at `maxTokens`.
 */
const FALLBACK_CHARACTERS = ['"', '}', ']', ',', ':', ' ', ...'abcdefghijklmnopqrstuvwxyz_0123456789', 'true', 'false'];

/**
 * How much less likely a token already written among the last {@link PENALTY_WINDOW} becomes
 * (llama.cpp's `repeat_penalty` on probabilities): without it a small model held to JSON loops inside
 * a string ("1234567890123…") until its budget runs out.
 */
const REPEAT_PENALTY = 1.5;
const PENALTY_WINDOW = 32;

/**
 * Writes one JSON object after the prompt's `tokens` (see the module comment): `onPiece` gets each token's bytes. Returns the tokens
 * written. Stops when the object closes, at `nPredict`, on `signal`, or when no candidate continues the
 * object (the reply is then left as it is, for the caller's parser to refuse).
 */
async function writeJson(engine: Engine, tokens: number[], shape: JsonShape | undefined, nPredict: number, signal: AbortSignal, onPiece: (bytes: Uint8Array) => void): Promise<number> {
  await engine.kvClear();
  await engine.decode(tokens, {});
  const pieces = new Map<number, Uint8Array>();
  const pieceOf = async (token: number) => {
    let piece = pieces.get(token);
    if (!piece) pieces.set(token, (piece = await engine.detokenize([token])));
    return piece;
  };
  const encoder = new TextEncoder();
  let state = new JsonObjectPrefix(shape);
  const recent: number[] = [];
  let written = 0;
  while (written < nPredict && !state.complete && !signal.aborted) {
    let chosen: { token: number; piece: Uint8Array; next: JsonObjectPrefix } | undefined;
    for (const k of JSON_CANDIDATES) {
      // Never more than the vocabulary: wllama 2.3.5 erases past the end of its list for a larger k.
      const candidates = (await engine.getLogits(Math.min(k, engine.getLoadedContextInfo().n_vocab)))
        .map(({ token, p }) => ({ token, score: recent.includes(token) ? p / REPEAT_PENALTY : p }))
        .sort((a, b) => b.score - a.score);
      for (const { token } of candidates) {
        if (engine.isTokenEOG(token)) continue;
        const piece = await pieceOf(token);
        const next = piece.length > 0 ? state.try(piece) : undefined;
        if (next) {
          chosen = { token, piece, next };
          break;
        }
      }
      if (chosen) break;
    }
    let forced: number[] = [];
    if (!chosen) {
      const character = FALLBACK_CHARACTERS.find((c) => state.try(encoder.encode(c)));
      if (character === undefined) break;
      forced = await engine.tokenize(character, false);
      chosen = { token: forced[0] ?? -1, piece: encoder.encode(character), next: state.try(encoder.encode(character))! };
    }
    state = chosen.next;
    written += Math.max(1, forced.length);
    recent.push(chosen.token);
    if (recent.length > PENALTY_WINDOW) recent.shift();
    onPiece(chosen.piece);
    if (!state.complete) await engine.decode(forced.length ? forced : [chosen.token], {});
  }
  return written;
}

function createGgufGenerator(entry: GgufGeneratorEntry, engine: Engine, contextTokens: number): HostedGenerator {
  const generations = new GenerationQueue();
  let lastGeneration: GenerationReport | undefined;

  async function* stream(request: GenerateRequest): AsyncGenerator<string> {
    const { maxTokens, temperature } = checkGenerateRequest(request, 'generator');
    const signal = request.signal;
    if (signal?.aborted) return;
    const started = performance.now();
    yield* generations.stream(
      signal,
      async ({ push, stopped, signal: stop }) => {
        let prompt: string;
        try {
          prompt = await engine.formatChat(withJsonInstruction(request.messages, request.json), true);
        } catch (err) {
          throw new DocQaError('model-unsupported', `generator: ${entry.label}'s chat template refused the conversation: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
        }
        const tokens = await engine.tokenize(prompt, true);
        if (engine.mustAddBosToken() && tokens[0] !== engine.getBOS()) tokens.unshift(engine.getBOS());
        const promptTokens = tokens.length;
        const room = contextTokens - promptTokens;
        if (room < 1) {
          throw new DocQaError('prompt-too-long', `generator: the prompt takes ${promptTokens} tokens, but ${entry.label} is given at most ${contextTokens} (prompt and answer together): send fewer or shorter passages`);
        }
        const nPredict = Math.min(maxTokens, room);
        const decoder = new TextDecoder();
        let newTokens = 0;
        let firstPieceAt: number | undefined;
        const onPiece = (piece: Uint8Array) => {
          newTokens++;
          const text = decoder.decode(piece, { stream: true });
          if (text) {
            firstPieceAt ??= performance.now();
            push(text);
          }
        };
        if (request.json) await writeJson(engine, tokens, request.shape, nPredict, stop, onPiece);
        else await engine.createCompletion(prompt, { nPredict, sampling: { temp: temperature }, abortSignal: stop, onNewToken: (_token, piece) => onPiece(piece) });
        const tail = decoder.decode();
        if (tail) push(tail);
        const now = performance.now();
        lastGeneration = {
          promptTokens,
          newTokens,
          stop: stopped() ? 'aborted' : newTokens >= nPredict ? 'max-tokens' : 'end',
          firstPieceMs: Math.round((firstPieceAt ?? now) - started),
          writeMs: Math.round(now - (firstPieceAt ?? now)),
        };
      },
      (err) => explainGgufError(err, entry),
    );
  }

  return {
    entry,
    model: { id: entry.id, label: entry.label, contextTokens },
    get lastGeneration() {
      return lastGeneration;
    },
    countTokens: async (text: string) => (await engine.tokenize(text, false)).length,
    stream,
    async dispose() {
      await generations.idle();
      await engine.exit();
    },
  };
}
