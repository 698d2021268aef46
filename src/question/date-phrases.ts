/**
 * Date phrases of a question, for self-query's rule-based pass (English only): "from 2023", "in March
 * 2021", "since March 2024", "after 2022", "before 2020", "until June 2021", "dated 2023", and relative
 * ones, "last week" (the past 7 days), "this week", "this month", "last month", "this year", "last year",
 * "today", "yesterday", "in the last 30 days". Read against `now`, in local time. Preceded by "added"
 * ("added last week"), the phrase is about when documents were added to the library; otherwise the
 * caller decides (`core/query-filters.ts` `fieldFor`). Plain word matching: no expression is built at
 * run time.
 */
import type { DateField, DateRange } from '../core/query-filters.ts';

/** A date phrase found in a question. */
export interface DatePhrase {
  range: DateRange;
  /** 'added' when the question says so ("added last week"); else undefined: the caller picks. */
  field?: DateField;
  /** The words that asked for it, as written. */
  matched: string;
}

const MONTH_NAMES = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const MONTH_OF = new Map<string, number>([...MONTH_NAMES.map((m, i) => [m, i] as const), ...MONTH_NAMES.map((m, i) => [m.slice(0, 3), i] as const), ['sept', 8]]);
// "may" is a verb too often ("may I …"): only "in/since … May 2024" with a year counts, which the year check ensures.
const WITHIN = new Set(['in', 'from', 'during', 'of', 'dated']);
const OPEN_WORDS = new Set(['since', 'after', 'before', 'until']);
const ADDED_WORDS = new Set(['added', 'uploaded', 'imported']);
const DAY = 86_400_000;

interface Word {
  word: string;
  start: number;
  end: number;
}

function wordsOf(text: string): Word[] {
  return [...text.matchAll(/[\p{L}\p{N}]+/gu)].map((m) => ({ word: m[0].toLowerCase(), start: m.index, end: m.index + m[0].length }));
}

function yearOf(word: string | undefined): number | undefined {
  if (!word || word.length !== 4) return undefined;
  const year = Number(word);
  return Number.isInteger(year) && year >= 1900 && year <= 2100 ? year : undefined;
}

const startOfDay = (at: number) => {
  const d = new Date(at);
  return new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
};

/** A relative period at `words[i]` ("last week", "this month", "today", "the last 30 days"): its range and length in words. */
function relativeAt(words: readonly Word[], i: number, now: number): { range: DateRange; length: number } | undefined {
  const w = words[i]!.word;
  const next = words[i + 1]?.word;
  const today = startOfDay(now);
  const d = new Date(today);
  if (w === 'today') return { range: { from: today }, length: 1 };
  if (w === 'yesterday') return { range: { from: startOfDay(today - DAY / 2), before: today }, length: 1 };
  if (w === 'this' || w === 'last' || w === 'past' || w === 'previous') {
    const count = Number(next);
    if (w !== 'this' && Number.isInteger(count) && count > 0 && count <= 3650) {
      const unit = words[i + 2]?.word;
      const days = unit === 'days' ? count : unit === 'weeks' ? count * 7 : unit === 'months' ? count * 30 : undefined;
      return days === undefined ? undefined : { range: { from: today - days * DAY }, length: 3 };
    }
    const thisOne = w === 'this';
    if (next === 'week') return { range: thisOne ? { from: today - ((d.getDay() + 6) % 7) * DAY } : { from: today - 7 * DAY }, length: 2 };
    if (next === 'month') {
      const start = new Date(d.getFullYear(), d.getMonth(), 1).getTime();
      return { range: thisOne ? { from: start } : { from: new Date(d.getFullYear(), d.getMonth() - 1, 1).getTime(), before: start }, length: 2 };
    }
    if (next === 'year') {
      const start = new Date(d.getFullYear(), 0, 1).getTime();
      return { range: thisOne ? { from: start } : { from: new Date(d.getFullYear() - 1, 0, 1).getTime(), before: start }, length: 2 };
    }
  }
  return undefined;
}

/** "[in|from|since|after|before|until|…] [Month] Year" at `words[i]` (the preposition): its range and length in words. */
function calendarAt(words: readonly Word[], i: number): { range: DateRange; length: number } | undefined {
  const lead = words[i]!.word;
  if (!WITHIN.has(lead) && !OPEN_WORDS.has(lead)) return undefined;
  const month = MONTH_OF.get(words[i + 1]?.word ?? '');
  const year = yearOf(words[month === undefined ? i + 1 : i + 2]?.word);
  if (year === undefined) return undefined;
  const start = new Date(year, month ?? 0, 1).getTime();
  const end = month === undefined ? new Date(year + 1, 0, 1).getTime() : new Date(year, month + 1, 1).getTime();
  const length = month === undefined ? 2 : 3;
  if (WITHIN.has(lead)) return { range: { from: start, before: end }, length };
  if (lead === 'since') return { range: { from: start }, length };
  if (lead === 'after') return { range: { from: end }, length };
  return { range: { before: lead === 'before' ? start : end }, length };
}

/**
 * The first date phrase of a question, or undefined.
 *
 * @example
 * readDatePhrase('contracts added since March 2024', now)
 *   // → { range: { from: <1 Mar 2024> }, field: 'added', matched: 'added since March 2024' }
 * readDatePhrase('the reports from 2023', now) // → { range: { from: <1 Jan 2023>, before: <1 Jan 2024> }, matched: 'from 2023' }
 */
export function readDatePhrase(question: string, now: number): DatePhrase | undefined {
  const words = wordsOf(question);
  for (let i = 0; i < words.length; i++) {
    // "in the last 30 days", "over the past week": the article is skipped.
    const at = words[i]!.word === 'the' && (words[i + 1]?.word === 'last' || words[i + 1]?.word === 'past') ? i + 1 : i;
    const found = relativeAt(words, at, now) ?? calendarAt(words, at);
    if (!found) continue;
    // "added last week", "added in 2023", "uploaded since March".
    const added = [i - 1, i - 2].find((j) => ADDED_WORDS.has(words[j]?.word ?? ''));
    const first = words[added ?? i]!;
    const last = words[at + found.length - 1]!;
    return { range: found.range, ...(added !== undefined && { field: 'added' as const }), matched: question.slice(first.start, last.end) };
  }
  return undefined;
}
