/**
 * A deterministic baseline {@link Generator} for the answer evaluation (`npm run eval -- --answers
 * --generator quote`): not a model. It reads the prompt the LLM answerer built (`generate/prompt.ts`),
 * takes the top passages in the order given, and for each writes the passage's sentence that shares the
 * most content terms with the question, followed by that passage's `[n]`. Its sentences are the passages'
 * own, so the citation checker should support nearly every one of them: what it does not support measures
 * the checker (sentence splitting, the omission marks of trimmed context, the threshold), not a model; and
 * how often its citations hold the claim's evidence document measures retrieval and context building.
 * Node, browser and tests alike; no model files.
 */
import { termsOf } from '../text/tokenize.ts';
import { contentTermsOf } from '../generate/question-units.ts';
import type { ChatMessage, GenerateRequest, Generator, GeneratorModel } from '../models/generator/generator.ts';
import { NOT_FOUND } from '../generate/prompt.ts';
import { countScriptedTokens, piecesOf } from '../models/generator/scripted-generator.ts';
import { splitSentences } from '../text/split-sentences.ts';

export interface QuoteGeneratorOptions {
  /** How many of the passages (in the prompt's order, which is retrieval order) get a sentence. Default 3; range 1–20. */
  passages?: number;
  /** The context window `model` reports, in {@link countScriptedTokens} tokens. Default 4,096; range ≥ 16. */
  contextTokens?: number;
}

/** A passage as the prompt quotes it: its number and its text (entities decoded). */
export interface PromptPassage {
  n: number;
  text: string;
}

const OPEN = '<passage n="';
const CLOSE = '\n</passage>';
const QUESTION = 'Question: ';

/** Document text as it was before the prompt wrote "<", ">" and "&" as entities. */
function decodeEntities(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');
}

/**
 * The numbered passages and the question of the last user message, as `buildMessages` writes them
 * (`<passage n="1" source="…">\ntext\n</passage>` blocks, then "Question: …" last). Read by position, not
 * by pattern: document text cannot hold "<", so a block ends at the first "\n</passage>".
 */
export function readPrompt(messages: readonly ChatMessage[]): { question: string; passages: PromptPassage[] } {
  const user = [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
  const passages: PromptPassage[] = [];
  let at = user.indexOf(OPEN);
  while (at >= 0) {
    const numberEnd = user.indexOf('"', at + OPEN.length);
    const bodyStart = user.indexOf('">\n', numberEnd + 1);
    const bodyEnd = bodyStart < 0 ? -1 : user.indexOf(CLOSE, bodyStart);
    if (numberEnd < 0 || bodyStart < 0 || bodyEnd < 0) break;
    passages.push({ n: Number(user.slice(at + OPEN.length, numberEnd)), text: decodeEntities(user.slice(bodyStart + 3, bodyEnd)) });
    at = user.indexOf(OPEN, bodyEnd + CLOSE.length);
  }
  const q = user.lastIndexOf(QUESTION);
  return { question: q >= 0 ? user.slice(q + QUESTION.length).trim() : '', passages };
}

/** The passage's sentence sharing the most of the question's content terms (the first on a tie), ending in a full stop. */
export function bestSentence(question: string, text: string): string {
  const terms = contentTermsOf(question);
  let best = '';
  let bestShared = -1;
  for (const { start, end } of splitSentences(text)) {
    const sentence = text.slice(start, end).trim();
    if (!sentence) continue;
    const own = new Set(termsOf(sentence));
    const shared = terms.filter((t) => own.has(t)).length;
    if (shared > bestShared) [best, bestShared] = [sentence, shared];
  }
  // A sentence without a final stop would run into the next one once the [n] marks are taken out.
  return best && !/[.!?]$/u.test(best) ? `${best}.` : best;
}

/**
 * The baseline's answer to a prompt: for each of the first `passages` passages, its best sentence and
 * `[n]`, one after the other; "Not found in your documents." when the prompt has no passage.
 *
 * @example
 * quoteAnswer(buildMessages({ question: 'When is rent due?', passages: context.passages }))
 * // → 'Rent is due on the first of the month. [1] The deposit is one month of rent. [2]'
 */
export function quoteAnswer(messages: readonly ChatMessage[], passages = 3): string {
  const prompt = readPrompt(messages);
  const parts = prompt.passages
    .slice(0, passages)
    .map((p) => ({ n: p.n, sentence: bestSentence(prompt.question, p.text) }))
    .filter((p) => p.sentence)
    .map((p) => `${p.sentence} [${p.n}]`);
  return parts.length ? parts.join(' ') : NOT_FOUND;
}

/**
 * The quote baseline as a {@link Generator} (model id 'quote'): streams {@link quoteAnswer} word by
 * word, stops at `maxTokens` (counted as the scripted generator counts) or when `signal` is aborted.
 */
export class QuoteGenerator implements Generator {
  readonly model: GeneratorModel;
  private readonly passages: number;

  constructor(options: QuoteGeneratorOptions = {}) {
    this.passages = Math.min(20, Math.max(1, Math.floor(options.passages ?? 3)));
    this.model = { id: 'quote', label: 'Quote baseline (not a model)', contextTokens: Math.max(16, options.contextTokens ?? 4096) };
  }

  countTokens(text: string): Promise<number> {
    return Promise.resolve(countScriptedTokens(text));
  }

  async *stream(request: GenerateRequest): AsyncIterable<string> {
    const maxTokens = request.maxTokens ?? Infinity;
    let written = '';
    for (const piece of piecesOf(quoteAnswer(request.messages, this.passages))) {
      if (request.signal?.aborted || countScriptedTokens(written + piece) > maxTokens) return;
      written += piece;
      yield piece;
    }
  }
}
