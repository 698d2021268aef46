import { signal } from '@preact/signals';
import { proxy } from 'comlink';
import { DocQaError, personalMessage } from '../core/errors.ts';
import type { Answer, AskRequest, AskStep, SearchFilter } from '../core/types.ts';
import { answerModel } from './answer-models-state.ts';
import { flushDeletes } from './delete-state.ts';
import { libraryApi } from './library-connection.ts';
import { expandQueries, lookFurther } from './preferences.ts';

/** The answer on show (the conversation's last turn), if any. */
export const answer = signal<Answer | undefined>(undefined);
/** A question is being answered. */
export const asking = signal(false);
/** Counts answers (and failed asks) so tests and assistive tech can tell a new answer from the last one. */
export const answerSeq = signal(0);
/** Why the last question (or the last source opened) failed, as the person should read it. */
export const askError = signal<string | undefined>(undefined);
/** What a model has written so far of the answer being asked (streamed), until the checked answer arrives. */
export const streaming = signal('');
/**
 * The steps taken so far for the question being asked (phrasings, hops, a whole document's parts read: its
 * latest such step only), until its answer arrives.
 */
export const askSteps = signal<AskStep[]>([]);

/**
 * Asks a question (within a conversation: `request`, see conversation-state.ts); the answer is shown in the
 * Answer region and returned (undefined when the question could not be asked). `onStep` hears each step
 * before the answer (the follow-up rewritten).
 */
export async function ask(question: string, filter?: SearchFilter, request: Omit<AskRequest, 'question' | 'filter'> = {}, onStep?: (step: AskStep) => void): Promise<Answer | undefined> {
  const api = libraryApi();
  if (!api || !question.trim()) return undefined;
  asking.value = true;
  askError.value = undefined;
  try {
    await flushDeletes();
    streaming.value = '';
    askSteps.value = [];
    // Phrasings, hops and the model's reading of filters need the model that writes answers; without one they are not asked for.
    const loop = answerModel.value ? { expand: expandQueries.value, multiHop: lookFurther.value, readFilters: true } : {};
    answer.value = await api.ask.ask(
      { question: question.trim(), filter, ...loop, ...request },
      proxy((piece: string) => {
        streaming.value += piece;
      }),
      proxy((step: AskStep) => {
        // A whole document's progress: its latest step only.
        askSteps.value = [...askSteps.value.filter((s) => s.type !== 'whole-document' || step.type !== 'whole-document'), step];
        onStep?.(step);
      }),
    );
    return answer.value;
  } catch (err) {
    askError.value = err instanceof DocQaError ? err.message : `The question could not be answered: ${personalMessage(err)}`;
  } finally {
    streaming.value = '';
    askSteps.value = [];
    asking.value = false;
    answerSeq.value++;
  }
  return undefined;
}

/** Stop: the model stops writing; the answer keeps what was written, checked. */
export async function stopAnswer(): Promise<void> {
  await libraryApi()?.ask.stop();
}
