import { useEffect, useState } from 'preact/hooks';
import type { QuestionReading } from '../core/library-api.ts';
import type { SearchFilter } from '../core/types.ts';
import { libraryApi } from './library-connection.ts';
import { documents } from './library-state.ts';

/**
 * The question as the library worker read it while the person types (the chips, the whole-document
 * toggle and its note): the latest reading to arrive, and whether it is of what is on screen now (the
 * question, the filter, the removed chips and the documents). A reading takes a round trip to the worker:
 * until the next arrives, the last one stays (the whole-document toggle keeps its state); chips show only
 * while the reading is current.
 */
export interface ShownReading {
  reading: QuestionReading | undefined;
  /** The reading is of the question, filter, removed chips and documents shown now. */
  current: boolean;
}

/** Readings asked for, in order: a reading never replaces one asked for after it. */
let asked = 0;

/**
 * Has the library worker read the question (`AskApi.read`); undefined before the page is connected.
 * `removed`: keys of the chips the person removed.
 */
export async function readQuestion(question: string, filter: SearchFilter, removed: ReadonlySet<string>): Promise<QuestionReading | undefined> {
  return libraryApi()?.ask.read(question, filter, [...removed]);
}

/** Reads the question again whenever it, the filter, the removed chips or the library's documents change. */
export function useQuestionReading(question: string, filter: SearchFilter, removed: ReadonlySet<string>): ShownReading {
  // A new value only when a document changed (library-state.ts): the question is then read again.
  const docs = documents.value;
  const key = JSON.stringify([question, filter, [...removed]]);
  const [shown, setShown] = useState<{ seq: number; key: string; docs: unknown; reading: QuestionReading } | undefined>(undefined);
  useEffect(() => {
    const seq = ++asked;
    readQuestion(question, filter, removed).then(
      (reading) => {
        if (reading) setShown((before) => (before && before.seq > seq ? before : { seq, key, docs, reading }));
      },
      // The library cannot answer (its storage was closed): the page says so elsewhere; the last reading stays.
      () => undefined,
    );
  }, [key, docs]);
  return { reading: shown?.reading, current: shown?.key === key && shown.docs === docs };
}
