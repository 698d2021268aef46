import type { Answer, Passage } from '../core/types.ts';
import { buildExtractiveAnswer, type TermStatistics } from './extractive-answer.ts';
import type { ConversationTurn } from './prompt.ts';

/** What an answer written by a model takes besides the question; the extractive answer ignores it. */
export interface AnswerOptions {
  /** Called with each piece of text as the model writes it (the streamed answer, before it is checked). */
  onText?: (piece: string) => void;
  /** Stops the model: the answer is what it had written, checked, with `stopped: true`. */
  signal?: AbortSignal;
  /** Earlier questions and answers of the conversation, oldest first. Default none. */
  turns?: readonly ConversationTurn[];
  /** A summary of the conversation, used in place of the older turns that do not fit. */
  summary?: string;
  /** Other searches that found the passages (phrasings, hop queries): their words count when a tight context keeps sentences. */
  searches?: readonly string[];
}

/**
 * What answers a question from the retrieved passages: the extractive answer now, a local LLM next (issue
 * 8), a scripted one in tests. `Library` is given one (default {@link extractiveAnswerer}), so the app, the
 * eval CLI and tests compose the same parts.
 */
export interface Answerer {
  /**
   * `stats`: the collection's term counts (the lexical index), for answerers that weigh words; `options`:
   * streaming, stop and the conversation, for answerers that write with a model.
   */
  answer(question: string, passages: readonly Passage[], stats: TermStatistics, options?: AnswerOptions): Answer | Promise<Answer>;
}

/** The best sentences of the passages, quoted and cited ({@link buildExtractiveAnswer}, default options). */
export const extractiveAnswerer: Answerer = {
  answer: (question, passages, stats) => buildExtractiveAnswer(question, passages, { stats }),
};
