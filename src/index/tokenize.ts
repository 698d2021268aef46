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

/** Raw token → processed term (null for a stop word). Tokens repeat heavily, so this is most of the speed. */
const termCache = new Map<string, string | null>();
const TERM_CACHE_LIMIT = 500_000;

function computeTerm(term: string): string | null {
  let t = term.toLowerCase();
  if (t.endsWith("'s") || t.endsWith('’s')) t = t.slice(0, -2);
  if (STOP_WORDS.has(t) || t.length === 0) return null;
  return /\d/.test(t) ? t : stemmer(t);
}

/** Lower-cases, drops stop words and possessives, stems. Returns null for a term to ignore. */
export function processTerm(term: string): string | null {
  let processed = termCache.get(term);
  if (processed === undefined) {
    processed = computeTerm(term);
    if (termCache.size >= TERM_CACHE_LIMIT) termCache.clear();
    termCache.set(term, processed);
  }
  return processed;
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
