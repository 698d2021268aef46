/**
 * The choices a filter's select offers when the library holds thousands of documents: only those whose
 * path or title holds what the person typed, at most {@link MAX_SHOWN} of them. Pure (unit-tested in Node).
 */
import { holdsName } from './library-view.ts';

/** One option of a filter's select. */
export interface Choice {
  value: string;
  label: string;
  /** Also matched by the find box (a document's title). */
  title?: string;
}

/**
 * Most options a narrowed select holds. Reason: a select of 6,623 documents took the page about 70 ms to
 * draw on every library refresh (decision 0036) and is a scroll of thousands on a phone; a person finds
 * one document by typing part of its name, as in the Library list.
 */
export const MAX_SHOWN = 100;

/** The options to show and how many matching ones are left out. */
export interface NarrowedChoices {
  shown: Choice[];
  /** Choices that match but are not shown (past {@link MAX_SHOWN}). */
  more: number;
  /** Choices that match `query` (all of them without one). */
  matching: number;
}

/**
 * The choices whose label (a path) or title contains `query`, case-insensitive as the Library list's
 * filter ("" matches all), in their order, at most `limit`; the `picked` choice is always among them, so
 * the select never loses what it shows as chosen.
 *
 * @example narrowChoices(docs, 'lease', 'doc-1') // the documents named "…lease…", and doc-1
 */
export function narrowChoices(choices: readonly Choice[], query: string, picked = '', limit = MAX_SHOWN): NarrowedChoices {
  const q = query.trim().toLocaleLowerCase();
  const matches = q ? choices.filter((c) => holdsName(c.label, c.title, q)) : choices;
  const shown = matches.slice(0, limit);
  let more = matches.length - shown.length;
  if (picked && !shown.some((c) => c.value === picked)) {
    const chosen = choices.find((c) => c.value === picked);
    if (chosen) shown.unshift(chosen);
    if (chosen && matches.includes(chosen)) more -= 1;
  }
  return { shown, more, matching: matches.length };
}
