/**
 * Tokenisation shared by indexing, querying and answer highlighting: Unicode words (dictionary words
 * for scripts written without spaces), lower case, diacritics kept (NFC), an English stop-word list,
 * and the Porter stemmer.
 */
import { stemmer } from 'stemmer';

/** Lucene's English stop words (what Anserini's BM25 baselines use) plus a few common function words. */
const STOP_WORDS = new Set(
  ('a an and are as at be but by for if in into is it no not of on or such that the their then there these they ' +
    'this to was will with')
    .split(' '),
);

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;

/** Scripts written without spaces between words: a run of them is one regex token, but many words. */
const NO_SPACES = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Thai}\p{sc=Lao}\p{sc=Khmer}\p{sc=Myanmar}]/u;
/** {@link WORD} with combining marks, which Thai, Lao, Khmer and Myanmar words contain. */
const WORD_WITH_MARKS = /[\p{L}\p{M}\p{N}]+(?:['’][\p{L}]+)?/gu;

let wordSegmenter: Intl.Segmenter | undefined;

/** Dictionary-based words of a token from a script without spaces ("東京都に住んで" → 東京, 都, に, 住, んで). */
function segmentWords(token: string, out: string[]): void {
  wordSegmenter ??= new Intl.Segmenter(undefined, { granularity: 'word' });
  for (const s of wordSegmenter.segment(token)) if (s.isWordLike) out.push(s.segment);
}

/**
 * Splits text into raw word tokens (letters and digits), keeping the original case. Runs of Han, Kana,
 * Thai, Lao, Khmer or Myanmar are cut into words by `Intl.Segmenter`; other text never reaches it.
 * Text is NFC-normalised first: documents are at ingest, but a question typed or pasted in decomposed
 * form ("cafe" + U+0301, as macOS file names and some keyboards give it) would otherwise be cut at the
 * combining accent and miss "café".
 */
export function tokenize(raw: string): string[] {
  const text = raw.normalize('NFC');
  if (!NO_SPACES.test(text)) return text.match(WORD) ?? [];
  const out: string[] = [];
  for (const run of text.match(WORD_WITH_MARKS) ?? []) {
    if (NO_SPACES.test(run)) segmentWords(run, out);
    else for (const token of run.match(WORD) ?? []) out.push(token);
  }
  return out;
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
