import type { Answer, Passage } from '../core/types.ts';
import { buildExtractiveAnswer, type TermStatistics } from './extractive-answer.ts';

/**
 * What answers a question from the retrieved passages: the extractive answer now, a local LLM next (issue
 * 8), a scripted one in tests. `Library` is given one (default {@link extractiveAnswerer}), so the app, the
 * eval CLI and tests compose the same parts.
 */
export interface AnswerOptions {
  /** Called with each piece of text as a model writes it (streaming into the Answer region). */
  onText?: (piece: string) => void;
  /** Stops a model's writing; the answer keeps (and checks) what was written. */
  signal?: AbortSignal;
}

export interface Answerer {
  /** `stats`: the collection's term counts (the lexical index), for answerers that weigh words. */
  answer(question: string, passages: readonly Passage[], stats: TermStatistics, options?: AnswerOptions): Answer | Promise<Answer>;
}

/** The best sentences of the passages, quoted and cited ({@link buildExtractiveAnswer}, default options). */
export const extractiveAnswerer: Answerer = {
  answer: (question, passages, stats) => buildExtractiveAnswer(question, passages, { stats }),
};
