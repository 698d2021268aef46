import type { ConversationId } from './ids.ts';
import type { Answer } from './types.ts';

/** One question of a conversation with its answer, as saved. */
export interface SavedTurn {
  /** The question as the person typed it. */
  question: string;
  /** What was searched: the follow-up rewritten into a standalone question (or as the person edited it). */
  standalone: string;
  answer: Answer;
  /** When it was answered (ms since the epoch). */
  at: number;
}

/** A conversation as the history lists it: no turns (their answers are the bulky part). */
export interface ConversationHeader {
  id: ConversationId;
  /** Default: the first question, trimmed (cut at {@link TITLE_MAX_CHARS}); the person may rename it. */
  title: string;
  createdAt: number;
  updatedAt: number;
  /** Number of turns. */
  turnCount: number;
  /**
   * A summary of the oldest turns, written by the model when they no longer fit its context, sent in
   * their place. Absent until a conversation outgrows the context.
   */
  summary?: string;
  /** How many of the oldest turns {@link summary} covers. */
  summarisedTurns?: number;
}

/** A whole conversation: its header and its turns, oldest first. */
export interface Conversation extends ConversationHeader {
  turns: SavedTurn[];
}

/** Longest default title, in characters (a longer first question is cut, with an ellipsis). */
export const TITLE_MAX_CHARS = 120;

/** The title a conversation gets from its first question: trimmed, whitespace runs as one space, cut. */
export function titleOf(question: string): string {
  const t = question.replace(/\s+/gu, ' ').trim();
  return t.length > TITLE_MAX_CHARS ? `${t.slice(0, TITLE_MAX_CHARS - 1).trimEnd()}…` : t;
}
