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
