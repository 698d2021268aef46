import { useState } from 'preact/hooks';
import type { QuestionReading } from '../core/library-api.ts';
import { chipKey, withChips, type QueryChip } from '../core/query-filters.ts';
import type { AskStep, SearchFilter } from '../core/types.ts';
import { answer, asking, askSteps } from './ask-state.ts';
import { readQuestion, useQuestionReading, type ShownReading } from './question-reading-state.ts';

/**
 * Filters read from the question, as removable chips, shown before the search runs: the rules' as the
 * question is typed (read by the library worker, `question-reading-state.ts`), the model's (`byModel`,
 * marked by a tooltip) once its reading arrives.
 */

const CHIP_WORDS: Record<QueryChip['kind'], string> = { document: 'Only in', folder: 'Only in folder', type: 'Only', tag: 'Only tagged', date: 'Only' };

/** The chips of the filters the model read (a `filters` step), if any. */
function chipsOfSteps(steps: readonly AskStep[] | undefined): QueryChip[] {
  return steps?.find((s): s is Extract<AskStep, { type: 'filters' }> => s.type === 'filters')?.chips ?? [];
}

/** The chips read from a question, and what the Ask panel does with them. */
export interface QuestionChips {
  /** The rules' chips, less those the person removed. */
  chips: QueryChip[];
  /** The model's chips not also read by the rules, while the question is the one it read. */
  byModel: QueryChip[];
  /** The person's filter with the rules' chips added: what Ask searches with. */
  filter: SearchFilter;
  /** The question's reading on show (its whole-document part is for the toggle and its note). */
  reading: ShownReading;
  /**
   * Reads the question on screen now, for Ask: the filter with its chips, and the reading (undefined when
   * the library cannot read it). Asked at once, so a question asked as soon as it is typed has its chips.
   */
  readNow: () => Promise<{ filter: SearchFilter; reading: QuestionReading | undefined }>;
  /** Removes a chip the rules read (it stays removed for the questions after). */
  hide: (chip: QueryChip) => void;
  /** Tells which question was asked last (trimmed): the model's chips are shown for it only. */
  setAsked: (question: string) => void;
}

/** Reads the question's chips against the library's documents (`filter`: the person's own, from the filter menus). */
export function useQuestionChips(question: string, filter: SearchFilter): QuestionChips {
  const [removed, setRemoved] = useState<ReadonlySet<string>>(new Set());
  const [asked, setAsked] = useState('');
  const reading = useQuestionReading(question, filter, removed);
  const kept = (found: readonly QueryChip[] = []) => found.filter((c) => !removed.has(chipKey(c)));
  // Only chips read from the question on screen: a chip of the question before it would filter a
  // question it was not read from (the next reading arrives a round trip later).
  const chips = kept(reading.current ? reading.reading?.chips : undefined);
  // The model's chips, once its reading arrives (a step before the answer), while the question is the one it read.
  const read = question.trim() === asked ? chipsOfSteps(asking.value ? askSteps.value : answer.value?.steps) : [];
  const byModel = read.filter((c) => !chips.some((r) => chipKey(r) === chipKey(c)));
  const readNow = async () => {
    const now = await readQuestion(question, filter, removed).catch(() => undefined);
    return { filter: withChips(filter, kept(now?.chips)), reading: now };
  };
  return { chips, byModel, filter: withChips(filter, chips), reading, readNow, hide: (c) => setRemoved(new Set([...removed, chipKey(c)])), setAsked };
}

/** The chips, each with a button that removes it (`onRemove`). */
export function QueryChips({ chips, byModel = [], onRemove }: { chips: QueryChip[]; byModel?: QueryChip[]; onRemove: (c: QueryChip) => void }) {
  if (!chips.length && !byModel.length) return null;
  return (
    <ul class="chips" aria-label="Filters from your question">
      {[...chips, ...byModel].map((c) => (
        <li key={chipKey(c)} title={byModel.includes(c) ? 'Read from your question by the model' : undefined}>
          {CHIP_WORDS[c.kind]} <bdi>{c.label}</bdi>{' '}
          <button type="button" class="chip-remove" aria-label={`Remove filter ${c.label}`} onClick={() => onRemove(c)}>
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}
