import type { Conversation, ConversationHeader } from '../core/conversation.ts';
import { DocQaError } from '../core/errors.ts';
import type { ConversationId } from '../core/ids.ts';
import type { ConversationsApi, Served } from '../core/library-api.ts';
import type { Answer, AskRequest, AskStep } from '../core/types.ts';
import { rewriteFollowUp } from '../question/follow-up.ts';
import type { Generator } from '../models/generator/generator.ts';
import { turnBudget } from '../generate/llm-answerer.ts';
import { fitTurns, NOT_FOUND, type ConversationTurn } from '../generate/prompt.ts';
import { summariseTurns } from '../generate/summarise.ts';
import type { ConversationStore } from '../store/conversation-store.ts';

/** A question made ready within its conversation: what to search, and what the answerer is told. */
export interface PreparedQuestion {
  /** The question as typed. */
  question: string;
  /** What to search and answer: the standalone question. */
  standalone: string;
  /** The conversation it continues (none: a new one is started when the answer is saved). */
  conversationId?: ConversationId;
  /** The answer replaces the conversation's last turn. */
  redo: boolean;
  /** The rewriting, when there was one (shown, editable). */
  steps: AskStep[];
  /** Earlier turns (searched question and answer text), oldest first, for the answerer to fit. */
  turns: ConversationTurn[];
  /** The model's summary of the older turns that do not fit, when there are such turns. */
  summary?: string;
}

/** What an answer said, as the next prompts quote it. */
export function answerText(answer: Answer): string {
  return answer.found ? answer.segments.map((s) => s.text.trim()).join(' ') : NOT_FOUND;
}

/**
 * The library's conversations: before retrieval, a follow-up is rewritten into a standalone
 * question (by the model, else by the rule; as the person edited it when they did) and older turns that
 * no longer fit the model's context are summarised by it; after the answer, the turn is saved (a stopped
 * answer too: what was written). Every question is saved: one without a conversation starts a new one.
 */
export class Conversations implements Served<ConversationsApi> {
  /** `changed`: told after each change to the saved conversations (every tab's history reads them again). */
  constructor(
    private readonly store: ConversationStore,
    private readonly changed: () => void = () => undefined,
  ) {}

  /** The question in its conversation: see {@link PreparedQuestion}. */
  async prepare(question: string, request: Pick<AskRequest, 'conversationId' | 'standalone' | 'redo'>, generator: Generator | undefined, signal?: AbortSignal): Promise<PreparedQuestion> {
    const asked = question.trim();
    const conversation = request.conversationId ? await this.store.get(request.conversationId) : undefined;
    const redo = !!request.redo && !!conversation?.turns.length;
    const earlier = (conversation?.turns ?? []).slice(0, redo ? -1 : undefined);
    const turns = earlier.map((t): ConversationTurn => ({ question: t.standalone, answer: answerText(t.answer) }));
    const edited = request.standalone?.replace(/\s+/gu, ' ').trim();
    const rewritten = edited ? { standalone: edited, by: 'person' as const } : await rewriteFollowUp(asked, turns, { generator, signal });
    const steps: AskStep[] = rewritten.by === 'none' ? [] : [{ type: 'rewritten', question: asked, standalone: rewritten.standalone, by: rewritten.by }];
    const prepared: PreparedQuestion = { question: asked, standalone: rewritten.standalone, conversationId: conversation?.id, redo, steps, turns };
    if (generator && conversation && turns.length) prepared.summary = await this.summaryFor(conversation, turns, rewritten.standalone, generator, signal);
    return prepared;
  }

  /**
   * The summary of the turns the answerer will leave out for its budget, when some are: the one kept with
   * the conversation if it covers them, else one the model writes now (from the kept summary and the
   * turns after it), kept for the next question.
   */
  private async summaryFor(conversation: Conversation, turns: readonly ConversationTurn[], question: string, generator: Generator, signal?: AbortSignal): Promise<string | undefined> {
    const budget = await turnBudget(question, generator);
    const fitted = await fitTurns(turns, budget, (t) => generator.countTokens(t));
    const dropped = turns.length - fitted.turns.length;
    if (dropped === 0) return undefined;
    const covered = conversation.summarisedTurns ?? 0;
    if (conversation.summary && covered >= dropped) return conversation.summary;
    // Ahead by half the kept turns (sent in full as well until they drop out): a summary is written every
    // few questions, not at each one.
    const upTo = dropped + Math.floor(fitted.turns.length / 2);
    const summary = await summariseTurns(generator, conversation.summary, turns.slice(Math.min(covered, dropped), upTo), {
      // Half the turns' room at most, so the summary and the newest turns fit together.
      maxTokens: Math.max(16, Math.floor(budget / 2)),
      signal,
    });
    if (summary && summary !== conversation.summary) await this.store.setSummary(conversation.id, summary, upTo);
    return summary;
  }

  /**
   * Saves the answer as a turn of its conversation (a new one when it has none, or when it was deleted
   * meanwhile) and returns it with its steps and conversation id. A save that fails (storage full) is
   * logged and the answer returned without a conversation: the person still sees it.
   */
  async record(prepared: PreparedQuestion, answer: Answer, at = Date.now()): Promise<Answer> {
    const steps = [...prepared.steps, ...(answer.steps ?? [])];
    const withSteps: Answer = steps.length ? { ...answer, steps } : { ...answer };
    try {
      let id = prepared.conversationId ?? (await this.store.create(prepared.question, at)).id;
      const turn = (conversationId: ConversationId) => ({ question: prepared.question, standalone: prepared.standalone, answer: { ...withSteps, conversationId }, at });
      try {
        await this.store.appendTurn(id, turn(id), { replaceLast: prepared.redo });
      } catch (err) {
        if (!(err instanceof DocQaError && err.code === 'internal')) throw err;
        id = (await this.store.create(prepared.question, at)).id;
        await this.store.appendTurn(id, turn(id));
      }
      this.changed();
      return { ...withSteps, conversationId: id };
    } catch (err) {
      console.warn('the answer could not be saved in the conversation history', err);
      return withSteps;
    }
  }

  list(): Promise<ConversationHeader[]> {
    return this.store.list();
  }

  get(id: ConversationId): Promise<Conversation | undefined> {
    return this.store.get(id);
  }

  async rename(id: ConversationId, title: string): Promise<void> {
    await this.store.rename(id, title);
    this.changed();
  }

  async delete(id: ConversationId): Promise<void> {
    await this.store.delete(id);
    this.changed();
  }
}
