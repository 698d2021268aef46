/**
 * Tokenisation shared by indexing, querying and answer highlighting: Unicode words, lower case,
 * diacritics kept (NFC), an English stop-word list, and the Porter stemmer.
 */
import { stemmer } from 'stemmer';

/** Lucene's English stop words (what Anserini's BM25 baselines use) plus a few common function words. */
const STOP_WORDS = new Set(
  ('a an and are as at be but by for if in into is it no not of on or such that the their then there these they ' +
    'this to was will with')
    .split(' '),
);

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;

/** Splits text into raw word tokens (letters and digits), keeping the original case. */
export function tokenize(text: string): string[] {
  return text.match(WORD) ?? [];
}

const stemCache = new Map<string, string>();

/** Lower-cases, drops stop words and possessives, stems. Returns null for a term to ignore. */
export function processTerm(term: string): string | null {
  let t = term.toLowerCase();
  if (t.endsWith("'s") || t.endsWith('’s')) t = t.slice(0, -2);
  if (STOP_WORDS.has(t) || t.length === 0) return null;
  let stem = stemCache.get(t);
  if (stem === undefined) {
    stem = /\d/.test(t) ? t : stemmer(t);
    if (stemCache.size > 200_000) stemCache.clear();
    stemCache.set(t, stem);
  }
  return stem;
}

/** Processed terms of a text (for highlighting and sentence scoring). */
export function termsOf(text: string): string[] {
  const out: string[] = [];
  for (const token of tokenize(text)) {
    const t = processTerm(token);
    if (t) out.push(t);
  }
  return out;
}
