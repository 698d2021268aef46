import { batch, signal } from '@preact/signals';
import type { ConversationHeader } from '../core/conversation.ts';
import type { ConversationId, DocId } from '../core/ids.ts';
import type { QueryChip } from '../core/query-filters.ts';
import type { Answer, AskStep, SearchFilter } from '../core/types.ts';
import { answer, answerSeq, ask, askError } from './ask-state.ts';
import { libraryApi } from './library-connection.ts';

/** The conversation on show: its id (none: the next question starts one). */
export const conversationId = signal<ConversationId | undefined>(undefined);
/** The answers before the current one in the conversation on show, oldest first. */
export const earlier = signal<Answer[]>([]);
/** Counts changes to the saved conversations, in any tab (the history reads them again). */
export const conversationsSeq = signal(0);
/** Saved conversations for the history, most recently updated first. */
export const conversations = signal<ConversationHeader[]>([]);
/** The follow-up rewritten for the question being asked (shown before its answer arrives). */
export const liveStep = signal<Extract<AskStep, { type: 'rewritten' }> | undefined>(undefined);

/** The rewriting step of an answer, if its question was rewritten (or edited by the person). */
export function rewrittenStep(a: Answer): Extract<AskStep, { type: 'rewritten' }> | undefined {
  return a.steps?.find((s): s is Extract<AskStep, { type: 'rewritten' }> => s.type === 'rewritten');
}

/** The question as the person typed it (the answer's own question is the one searched). */
export function typedQuestion(a: Answer): string {
  return rewrittenStep(a)?.question ?? a.question;
}

/** Reads the history again. */
export async function refreshConversations(): Promise<void> {
  const api = libraryApi();
  if (!api) return;
  try {
    conversations.value = await api.conversations.list();
  } catch (err) {
    console.warn('the conversation history could not be read', err);
  }
}

/**
 * Asks in the conversation on show: a follow-up is rewritten before retrieval; `standalone` (the searched
 * question as the person edited it) asks the last question again, its answer replacing the last one, as
 * does `options.redo` (a filter the model read removed: `options.filterChips` are the ones left).
 */
export async function askInConversation(question: string, filter?: SearchFilter, standalone?: string, options: { wholeDocument?: DocId; filterChips?: QueryChip[]; redo?: boolean } = {}): Promise<void> {
  const before = answer.value;
  const current = conversationId.value;
  const redo = standalone !== undefined || !!options.redo;
  liveStep.value = undefined;
  const result = await ask(question, filter, { ...options, conversationId: current, standalone, redo }, (step) => {
    if (step.type === 'rewritten') liveStep.value = step;
  });
  liveStep.value = undefined;
  if (result?.conversationId) {
    batch(() => {
      if (result.conversationId !== current) earlier.value = [];
      else if (!redo && before) earlier.value = [...earlier.value, before];
      conversationId.value = result.conversationId;
    });
  }
  await refreshConversations();
}

/** New conversation: the Answer area is cleared; the next question starts a conversation. */
export function newConversation(): void {
  batch(() => {
    conversationId.value = undefined;
    earlier.value = [];
    answer.value = undefined;
    askError.value = undefined;
    answerSeq.value++;
  });
}

/** Shows a saved conversation: its earlier turns compact, the last in full; the next question continues it. */
export async function reopenConversation(id: ConversationId): Promise<void> {
  const api = libraryApi();
  if (!api) return;
  const saved = await api.conversations.get(id);
  if (!saved) {
    askError.value = 'This conversation was deleted (in another tab?)';
    await refreshConversations();
    return;
  }
  batch(() => {
    conversationId.value = saved.id;
    earlier.value = saved.turns.slice(0, -1).map((t) => t.answer);
    answer.value = saved.turns.at(-1)?.answer;
    askError.value = undefined;
    answerSeq.value++;
  });
}

export async function renameConversation(id: ConversationId, title: string): Promise<void> {
  await libraryApi()?.conversations.rename(id, title);
  await refreshConversations();
}

/** Deletes a saved conversation; the one on show is cleared from the Answer area. */
export async function deleteConversation(id: ConversationId): Promise<void> {
  await libraryApi()?.conversations.delete(id);
  if (conversationId.value === id) newConversation();
  await refreshConversations();
}
