import type { Answer, AnswerSegment, Citation, Passage, RemovedCitation, TextRange } from '../core/types.ts';
import type { AnswerOptions, Answerer } from './answerer.ts';
import { checkCitations, type CheckedSentence } from './citations.ts';
import { buildContext, type BuiltContext, type ContextPassage } from './context.ts';
import { buildNotFoundAnswer, type TermStatistics } from './extractive-answer.ts';
import type { ChatMessage, GenerateRequest, Generator } from '../models/generator/generator.ts';
import { buildMessages, countMessageTokens, fitTurns, NOT_FOUND, passageBlock, questionTooLong } from './prompt.ts';

export interface LlmAnswererOptions {
  generator: Generator;
  /** Most tokens the answer may take. Default 512; capped at a quarter of the model's context window. */
  maxTokens?: number;
  /** Default 0 (greedy: the same passages give the same answer). */
  temperature?: number;
  /** Rerank logit under which a passage is left out (`context.ts`). Default −2. */
  minRerankScore?: number;
  /** Share of a sentence's content terms a cited passage must hold (`citations.ts`). Default 0.4; 0–1. */
  minSupport?: number;
  /** Share one passage must hold to be cited where the model cited nothing that holds (`citations.ts`). Default 0.6; above 1: never. */
  attributeAt?: number;
  /** Share of the prompt's room (after the rules, question and answer) earlier turns may take. Default 0.25; 0–1. */
  turnShare?: number;
}

interface Prepared {
  context: BuiltContext;
  messages: ChatMessage[];
}

/**
 * The context and the messages, within the model's window: `limit` tokens for the prompt (the window less
 * the answer's). The passages get what the rules, the question and the kept turns leave; if the whole
 * prompt still counts more (separators, a tokenizer that does not add up), the passages' budget shrinks by
 * the excess and the context is built again.
 */
async function prepare(question: string, passages: readonly Passage[], generator: Generator, limit: number, options: LlmAnswererOptions, call: AnswerOptions): Promise<Prepared> {
  const count = (text: string) => generator.countTokens(text);
  const base = await countMessageTokens(buildMessages({ question, passages: [] }), count);
  const turns = await fitTurns(call.turns ?? [], turnBudgetOf(limit, base, options), count, call.summary);
  let budget = limit - base - turns.tokens;
  for (;;) {
    const context = await buildContext(question, passages, { budget: Math.max(0, budget), countTokens: count, render: passageBlock, minRerankScore: options.minRerankScore, searches: call.searches });
    const messages = buildMessages({ question, passages: context.passages, turns: turns.turns, summary: turns.summary });
    const total = await countMessageTokens(messages, count);
    if (total <= limit || context.passages.length === 0) return { context, messages };
    budget -= total - limit;
  }
}

/** Whether some passage clears the relevance threshold, so an empty context means the prompt had no room for it. */
async function roomWasTheLimit(question: string, passages: readonly Passage[], generator: Generator, options: LlmAnswererOptions): Promise<boolean> {
  const unbounded = await buildContext(question, passages, { budget: Infinity, countTokens: (t) => generator.countTokens(t), render: passageBlock, minRerankScore: options.minRerankScore });
  return unbounded.passages.length > 0;
}

/** Answer tokens: `maxTokens` (default 512) capped at a quarter of the window, at least 1. */
const answerTokensOf = (generator: Generator, options: Pick<LlmAnswererOptions, 'maxTokens'>) => Math.max(1, Math.min(options.maxTokens ?? 512, Math.floor(generator.model.contextTokens / 4)));

/** The earlier turns' share of the prompt's room, `limit` tokens less the `base` (rules and question). */
const turnBudgetOf = (limit: number, base: number, options: Pick<LlmAnswererOptions, 'turnShare'>) => Math.max(0, Math.floor((limit - base) * (options.turnShare ?? 0.25)));

/**
 * Tokens the answerer over `generator` gives a question's earlier turns (what {@link fitTurns} fits them
 * in): the caller learns which turns will be left out, to have them summarised first.
 */
export async function turnBudget(question: string, generator: Generator, options: Pick<LlmAnswererOptions, 'maxTokens' | 'turnShare'> = {}): Promise<number> {
  const limit = generator.model.contextTokens - answerTokensOf(generator, options);
  const base = await countMessageTokens(buildMessages({ question, passages: [] }), (t) => generator.countTokens(t));
  return turnBudgetOf(limit, base, options);
}

/**
 * What the model writes for a request, each piece also given to `onText`. A stop (`request.signal`) ends it
 * with what was written: a generator that throws an AbortError when stopped is not failing. Any other
 * error is thrown as it is.
 */
export async function writeStream(generator: Generator, request: GenerateRequest, onText?: (piece: string) => void): Promise<string> {
  let text = '';
  const signal = request.signal;
  try {
    if (signal?.aborted) return text;
    for await (const piece of generator.stream(request)) {
      text += piece;
      onText?.(piece);
      if (signal?.aborted) break;
    }
  } catch (err) {
    if (!signal?.aborted) throw err;
  }
  return text;
}

/** Whether a sentence is the model saying the passages do not answer. */
export function saysNotFound(text: string): boolean {
  const simple = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
  return simple(text).startsWith(simple(NOT_FOUND));
}

/** Sorted ranges with overlapping ones joined (two sentences' supports may share a sentence). */
function joinRanges(ranges: readonly TextRange[]): TextRange[] {
  const out: TextRange[] = [];
  for (const r of [...ranges].sort((a, b) => a.start - b.start || a.end - b.end)) {
    const last = out.at(-1);
    if (last && r.start < last.end) last.end = Math.max(last.end, r.end);
    else out.push({ start: r.start, end: r.end });
  }
  return out;
}

/**
 * The checked sentences as an answer: citations renumbered in order of first use (only passages cited by a
 * sentence they support), each with the passage sentences that support it as `quotes`.
 */
export function answerOf(sentences: readonly CheckedSentence[], passages: readonly ContextPassage[]): Pick<Answer, 'segments' | 'citations'> {
  const byN = new Map(passages.map((p) => [p.n, p]));
  const numberOf = new Map<number, number>();
  const quotes: TextRange[][] = [];
  const citations: Citation[] = [];
  const segments = sentences.map((s): AnswerSegment => {
    const cites = s.support.map(({ n, quote }) => {
      let k = numberOf.get(n);
      if (k === undefined) {
        k = citations.length + 1;
        numberOf.set(n, k);
        citations.push({ n: k, passage: byN.get(n)!.passage, quotes: [], marks: [] });
        quotes.push([]);
      }
      quotes[k - 1]!.push(quote);
      return k;
    });
    const segment: AnswerSegment = { text: s.text };
    if (cites.length) segment.cite = cites[0];
    if (cites.length > 1) segment.cites = cites;
    if (cites.length) segment.quotes = s.support.map(({ quote }) => ({ ...quote }));
    if (s.support.length && s.support.every((x) => x.attributed)) segment.attributed = true;
    if (s.unsupported) segment.unsupported = true;
    return segment;
  });
  citations.forEach((c, i) => {
    c.quotes = joinRanges(quotes[i]!);
    c.marks = c.quotes.map((r) => ({ ...r }));
  });
  return { segments, citations };
}

/**
 * An {@link Answerer} that has a model write the answer: context (`context.ts`) → prompt
 * (`prompt.ts`) → the generator's stream (each piece to `onText`; `signal` stops it, keeping what was
 * written) → checked citations (`citations.ts`) → an `Answer` whose Sources are only the passages cited by a
 * sentence they support, renumbered in order of first use. Removed citations are listed with the reason;
 * a sentence left without one is cited to the passage that states it (`attributed`) or, when none does,
 * is `unsupported`. When the model says "Not found in your documents."
 * (and nothing it wrote is supported), when it wrote nothing, or when no passage clears the relevance
 * threshold (then the model is not asked), the answer is not found, with the closest passages as the
 * extractive answer gives them. A generator's error (out of memory, device lost) is thrown as it is.
 *
 * @example
 * const answerer = createLlmAnswerer({ generator });
 * const answer = await answerer.answer(question, passages, index, { onText: (t) => show(t), signal });
 */
export function createLlmAnswerer(options: LlmAnswererOptions): Answerer {
  const { generator } = options;
  return {
    async answer(question: string, passages: readonly Passage[], stats: TermStatistics, call: AnswerOptions = {}): Promise<Answer> {
      const model = generator.model;
      const maxTokens = answerTokensOf(generator, options);
      const notFound = (extra: Partial<Answer>): Answer => ({ ...buildNotFoundAnswer(question, passages, { stats }), generatedBy: model.label, removedCitations: [], ...extra });
      if (passages.length === 0) return notFound({});
      const limit = model.contextTokens - maxTokens;
      const { context, messages } = await prepare(question, passages, generator, limit, options, call);
      if (context.passages.length === 0) {
        // No room, not no relevant passage: the question alone fills the window (a pasted text, say).
        if (await roomWasTheLimit(question, passages, generator, options)) throw questionTooLong(model.label, await countMessageTokens(buildMessages({ question, passages: [] }), (t) => generator.countTokens(t)), limit);
        return notFound({});
      }

      const signal = call.signal;
      const text = await writeStream(generator, { messages, maxTokens, temperature: options.temperature ?? 0, signal }, call.onText);
      const stopped = signal?.aborted === true ? { stopped: true } : {};

      const checked = checkCitations(text, context.passages, { stats, minSupport: options.minSupport, attributeAt: options.attributeAt });
      const removedCitations: RemovedCitation[] = checked.flatMap((s) => s.removed);
      const supported = checked.some((s) => s.support.length > 0);
      const said = checked.filter((s) => !saysNotFound(s.text));
      if (said.length === 0 || (!supported && checked.some((s) => saysNotFound(s.text)))) return notFound({ removedCitations, ...stopped });
      return { question, found: true, ...answerOf(said, context.passages), removedCitations, generatedBy: model.label, ...stopped };
    },
  };
}
