/**
 * The WebLLM generator: {@link Generator} over web-llm's engine, which runs the model on WebGPU. The
 * engine is injected: the app makes it in the generate worker (`webllm-engine.ts`, reached through the
 * model host's WebLLM runtime, `webllm-runtime.ts`); tests pass a mocked engine (no GPU here). Loading
 * reports progress (`webllm-progress.ts`), failures become DocQaErrors with a way out
 * (`webllm-errors.ts`), and a download that fails or is stopped leaves nothing behind.
 *
 * @example
 * const generator = await loadWebLlm(createWebLlmDeps(), { model, onProgress });
 * for await (const piece of generator.stream({ messages, signal })) show(piece);
 */
import type { ChatCompletionChunk, ChatCompletionRequestStreaming, InitProgressReport } from '@mlc-ai/web-llm';
import { DocQaError } from '../../core/errors.ts';
import type { GenerateRequest, Generator, GeneratorModel, JsonShape } from '../generator/generator.ts';
import { explainWebLlmError } from './webllm-errors.ts';
import { trackWebLlmProgress, type WebLlmLoadProgress } from './webllm-progress.ts';

export type { WebLlmLoadProgress } from './webllm-progress.ts';

/** What the adapter uses of web-llm's `MLCEngineInterface` (which satisfies it). */
export interface WebLlmEngine {
  chat: { completions: { create(request: ChatCompletionRequestStreaming): Promise<AsyncIterable<ChatCompletionChunk>> } };
  /** Ends the generation in progress: the engine stops at its next token. */
  interruptGenerate(): void;
  unload(): Promise<void>;
}

/** How the adapter reaches web-llm; `webllm-engine.ts` makes the app's. */
export interface WebLlmDeps {
  /**
   * An engine with `modelId` loaded (downloaded first if not cached), reporting with web-llm's
   * `initProgressCallback`. Aborting `signal` stops the load (and rejects).
   */
  createEngine(modelId: string, options: { onProgress: (report: InitProgressReport) => void; signal?: AbortSignal }): Promise<LoadedEngine>;
  /** Deletes every file of `modelId` web-llm keeps (`deleteModelAllInfoInCache`). */
  deleteCachedModel(modelId: string): Promise<void>;
}

/** An engine and what else to let go of after its `unload()`. */
export interface LoadedEngine {
  engine: WebLlmEngine;
  dispose(): void;
}

export interface WebLlmLoadOptions {
  /** The model: web-llm's `model_id`, its label and context window; `downloadBytes` sizes progress. */
  model: GeneratorModel & { downloadBytes?: number };
  onProgress?: (event: WebLlmLoadProgress) => void;
  /** Stops loading: rejects with a `cancelled` DocQaError; a download in progress is deleted. */
  signal?: AbortSignal;
}

/** Tokens written when the request does not say (the Generator contract: "a few hundred"). */
export const DEFAULT_MAX_TOKENS = 512;
const MAX_TOKENS_LIMIT = 4096;

/**
 * Loads `options.model` and returns its generator. A failure is a DocQaError (see
 * {@link explainWebLlmError}); when the weights were being downloaded, what was downloaded is deleted
 * first, so a failed or stopped download never holds storage the model manager cannot show.
 */
export async function loadWebLlm(deps: WebLlmDeps, options: WebLlmLoadOptions): Promise<WebLlmGenerator> {
  const { model, onProgress, signal } = options;
  if (signal?.aborted) throw new DocQaError('cancelled', `${model.label}: loading stopped`);
  const progress = trackWebLlmProgress(model.id, model.downloadBytes, onProgress);
  let loaded: LoadedEngine;
  try {
    loaded = await deps.createEngine(model.id, { onProgress: (r) => progress.report(r), signal });
  } catch (err) {
    const partial = progress.downloadUnfinished;
    const error = signal?.aborted
      ? new DocQaError('cancelled', `${model.label}: loading stopped${partial ? '; nothing partial is kept' : ''}`, { cause: err })
      : explainWebLlmError(err, model, 'load');
    const dropPartial = error.code === 'cancelled' || error.code === 'model-download-failed' || error.code === 'storage-full';
    if (partial && dropPartial) await deps.deleteCachedModel(model.id).catch(() => undefined);
    throw error;
  }
  progress.finish();
  return new WebLlmGenerator(loaded, { id: model.id, label: model.label, contextTokens: model.contextTokens });
}

/** Deletes a model's cached files (the model manager's Delete); a model in use is unloaded first by its owner. */
export async function deleteWebLlmModel(deps: WebLlmDeps, model: { id: string; label: string }): Promise<void> {
  try {
    await deps.deleteCachedModel(model.id);
  } catch (err) {
    throw new DocQaError('internal', `${model.label}: deleting its files failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}

/** A loaded WebLLM model as a {@link Generator}. */
export class WebLlmGenerator implements Generator {
  private loaded: LoadedEngine | undefined;

  constructor(
    loaded: LoadedEngine,
    readonly model: GeneratorModel,
  ) {
    this.loaded = loaded;
  }

  /** An estimate ({@link estimateTokens}): web-llm has no public tokenizer. */
  async countTokens(text: string): Promise<number> {
    return estimateTokens(text);
  }

  /**
   * Streams the answer: each chunk's `delta.content`, in order. When `signal` fires, the engine is told
   * to stop (`interruptGenerate`) and the stream ends at once, without an error, after the pieces
   * already written.
   */
  async *stream(request: GenerateRequest): AsyncGenerator<string> {
    const { signal } = request;
    if (signal?.aborted) return;
    const engine = this.engine();
    let chunks: AsyncIterable<ChatCompletionChunk>;
    try {
      chunks = await engine.chat.completions.create(toRequest(request));
    } catch (err) {
      if (signal?.aborted) return;
      throw explainWebLlmError(err, this.model, 'generate');
    }
    const iterator = chunks[Symbol.asyncIterator]();
    let interrupted = false;
    const interrupt = () => {
      if (interrupted) return;
      interrupted = true;
      try {
        engine.interruptGenerate();
      } catch {
        // The engine is gone: nothing to stop.
      }
    };
    let onAbort = () => {};
    const aborted = new Promise<'aborted'>((resolve) => {
      onAbort = () => {
        interrupt();
        resolve('aborted');
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    try {
      while (!signal?.aborted) {
        const next = iterator.next();
        const result = signal ? await Promise.race([next, aborted]) : await next;
        if (result === 'aborted') {
          next.catch(() => undefined); // settles once the engine stops; nothing waits for it
          break;
        }
        if (result.done) break;
        const piece = result.value.choices[0]?.delta?.content;
        if (piece) yield piece;
      }
    } catch (err) {
      if (signal?.aborted) return;
      throw explainWebLlmError(err, this.model, 'generate');
    } finally {
      signal?.removeEventListener('abort', onAbort);
      if (signal?.aborted) interrupt();
      // Closes the engine's stream (its worker then releases the model for the next request); not awaited.
      Promise.resolve(iterator.return?.()).catch(() => undefined);
    }
  }

  /** Frees the GPU memory; the files stay cached. */
  async unload(): Promise<void> {
    const loaded = this.loaded;
    this.loaded = undefined;
    if (!loaded) return;
    try {
      await loaded.engine.unload();
    } finally {
      loaded.dispose();
    }
  }

  private engine(): WebLlmEngine {
    if (!this.loaded) throw new DocQaError('internal', `${this.model.label} was unloaded: load it again`);
    return this.loaded.engine;
  }
}

function toRequest(request: GenerateRequest): ChatCompletionRequestStreaming {
  const maxTokens = Math.min(MAX_TOKENS_LIMIT, Math.max(1, Math.round(request.maxTokens ?? DEFAULT_MAX_TOKENS)));
  return {
    stream: true,
    messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
    max_tokens: maxTokens,
    temperature: request.temperature ?? 0,
    ...(request.json ? { response_format: { type: 'json_object' as const, ...(request.shape ? { schema: JSON.stringify(jsonSchemaOf(request.shape)) } : {}) } } : {}),
  };
}

/** A step's {@link JsonShape} as the JSON Schema web-llm holds decoding to (XGrammar): the same keys, types and bounds, nothing else. */
export function jsonSchemaOf(shape: JsonShape): Record<string, unknown> {
  switch (shape.type) {
    case 'object':
      return { type: 'object', properties: Object.fromEntries(Object.entries(shape.properties).map(([k, v]) => [k, jsonSchemaOf(v)])), ...(shape.required ? { required: [...shape.required] } : {}), additionalProperties: false };
    case 'string':
      return { type: shape.nullable ? ['string', 'null'] : 'string', ...(shape.maxLength !== undefined ? { maxLength: shape.maxLength } : {}) };
    case 'boolean':
      return { type: 'boolean' };
    case 'array':
      return { type: 'array', items: jsonSchemaOf(shape.items), ...(shape.minItems !== undefined ? { minItems: shape.minItems } : {}), ...(shape.maxItems !== undefined ? { maxItems: shape.maxItems } : {}) };
  }
}

/**
 * About how many tokens `text` takes in the instruct models offered (Llama 3.2, Qwen2.5, Phi-3.5),
 * erring high so a budget built on it does not overflow: ASCII characters 3 to a token (English runs
 * about 4 in these tokenizers; digits and punctuation fewer), other alphabetic scripts (accented
 * Latin, Greek, Cyrillic, Arabic, Hebrew, ...) 2 to a token, and characters from U+2E80 on (CJK,
 * kana, Hangul, emoji) 1.5 tokens each (Phi-3.5's 32k vocabulary falls back to bytes for many).
 * Chat-template tokens around each message are the caller's to add.
 */
export function estimateTokens(text: string): number {
  let ascii = 0;
  let alphabetic = 0;
  let wide = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp < 0x80) ascii++;
    else if (cp < 0x2e80) alphabetic++;
    else wide++;
  }
  return Math.ceil(ascii / 3 + alphabetic / 2 + wide * 1.5);
}
