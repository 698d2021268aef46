/**
 * The one interface every text generator implements: WebLLM on WebGPU in its own worker, a
 * transformers.js text-generation model on WASM, and in tests a scripted generator. Every LLM-using step
 * (the answer, follow-up rewriting, query expansion, the multi-hop judgement) depends on this, never on a
 * library: tests drive the logic with a scripted generator and the real transformers.js path on a tiny
 * random-weight decoder.
 */

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface GenerateRequest {
  messages: readonly ChatMessage[];
  /** Most tokens to write. Default: the generator's own (a few hundred); range 1–4096. */
  maxTokens?: number;
  /** 0 (the default) is greedy: the same prompt gives the same text. */
  temperature?: number;
  /** Ask for one JSON object (query expansion, the multi-hop judgement); the caller still parses and checks it. */
  json?: boolean;
  /**
   * With `json`, the object's shape, for engines that can hold decoding to it (llama.cpp here, WebLLM's
   * JSON schema); others only ask for JSON. The caller parses and checks the reply all the same.
   */
  shape?: JsonShape;
  /** Stops generation: the stream ends (without an error) after the pieces already written. */
  signal?: AbortSignal;
}

/**
 * The shape of a JSON value a step wants: an object of named keys (each optional, no others), a string
 * (up to `maxLength` bytes; `nullable`: or null), a boolean, an array (of `items`, from `minItems` to
 * `maxItems`).
 */
export type JsonShape =
  /** `required`: keys that come first, in this order; the object cannot close without them. */
  | { type: 'object'; properties: Record<string, JsonShape>; required?: readonly string[] }
  | { type: 'string'; maxLength?: number; nullable?: boolean }
  | { type: 'boolean' }
  | { type: 'array'; items: JsonShape; minItems?: number; maxItems?: number };

export interface GeneratorModel {
  id: string;
  /** Shown to the person. */
  label: string;
  /** The model's context window, in its own tokens (prompt and answer together). */
  contextTokens: number;
}

export interface Generator {
  readonly model: GeneratorModel;
  /** Tokens a text takes in the model's own tokenizer (for the context budget). */
  countTokens(text: string): Promise<number>;
  /**
   * Writes the answer piece by piece (each piece as the model produced it: a token or a few). Ends when
   * the model stops, `maxTokens` is reached, or `signal` is aborted. Throws a DocQaError a person can act
   * on when the model cannot run (out of memory, the device was lost).
   */
  stream(request: GenerateRequest): AsyncIterable<string>;
}

/** The whole text of a stream (for steps that need the complete output, such as JSON). */
export async function generateText(generator: Generator, request: GenerateRequest): Promise<string> {
  let text = '';
  for await (const piece of generator.stream(request)) text += piece;
  return text;
}
