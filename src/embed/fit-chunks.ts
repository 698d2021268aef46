/**
 * No chunk is silently truncated: a text longer than the model's input, counted in the model's own
 * tokens (prefix and special tokens included), is split into pieces that each fit, at sentence ends
 * (`text/split-sentences.ts`, the splitter chunking and answers use), else at spaces, else between
 * characters. Pure: the token counter is passed in (`Embedder.countTokens`, or any tokenizer in tests).
 */
import { DocQaError } from '../core/errors.ts';
import { splitSentences } from '../text/split-sentences.ts';

/** A piece of input text `source`: the characters [start, end) of it. */
export interface FitPiece {
  source: number;
  start: number;
  end: number;
  text: string;
}

export interface FitResult {
  /** Every input text's pieces, in order; a text that fits is one piece covering all of it. */
  pieces: FitPiece[];
  /** How many input texts had to be split. */
  split: number;
}

interface Range {
  start: number;
  end: number;
}

/**
 * Splits each text that is too long into pieces that fit. The pieces of a text cover every character
 * of it that is not a space, in order and without overlap; a text that fits comes back whole.
 * Throws DocQaError 'chunk-too-long' only when a single character does not fit (a prefix as long as
 * the model's input).
 *
 * @example
 * fitChunks(chunkTexts, (t) => embedder.countTokens(t, 'passage'), embedder.model.maxTokens)
 */
export function fitChunks(texts: readonly string[], countTokens: (text: string) => number, maxTokens: number): FitResult {
  const pieces: FitPiece[] = [];
  let split = 0;
  texts.forEach((text, source) => {
    const fits = (r: Range) => countTokens(text.slice(r.start, r.end)) <= maxTokens;
    const ranges = fits({ start: 0, end: text.length }) ? [{ start: 0, end: text.length }] : fitRange(text, { start: 0, end: text.length }, 0, fits, maxTokens);
    if (ranges.length > 1) split++;
    for (const r of ranges) pieces.push({ source, start: r.start, end: r.end, text: text.slice(r.start, r.end) });
  });
  return { pieces, split };
}

/** Level 0: sentences; 1: words; 2: characters. Returns ranges that each fit, packed greedily. */
function fitRange(text: string, range: Range, level: number, fits: (r: Range) => boolean, maxTokens: number): Range[] {
  if (level === 2) return splitCharacters(text, range, fits, maxTokens);
  const parts = level === 0 ? splitSentences(text, range.start, range.end) : splitWords(text, range);
  const units: Range[] = [];
  for (const part of parts) {
    if (fits(part)) units.push(part);
    else units.push(...fitRange(text, part, level + 1, fits, maxTokens));
  }
  return pack(units, fits);
}

/** Joins consecutive units (with the text between them) while the join still fits. */
function pack(units: Range[], fits: (r: Range) => boolean): Range[] {
  const out: Range[] = [];
  let current: Range | undefined;
  for (const unit of units) {
    const joined: Range | undefined = current && { start: current.start, end: unit.end };
    if (joined && fits(joined)) current = joined;
    else {
      if (current) out.push(current);
      current = unit;
    }
  }
  if (current) out.push(current);
  return out;
}

/** Runs of non-space characters in the range. */
function splitWords(text: string, range: Range): Range[] {
  const out: Range[] = [];
  const re = /\S+/gu;
  re.lastIndex = range.start;
  for (let m = re.exec(text); m && m.index < range.end; m = re.exec(text)) {
    out.push({ start: m.index, end: Math.min(range.end, m.index + m[0].length) });
  }
  return out;
}

/** Longest prefixes that fit, found by binary search, never cutting a surrogate pair. */
function splitCharacters(text: string, range: Range, fits: (r: Range) => boolean, maxTokens: number): Range[] {
  const out: Range[] = [];
  let start = range.start;
  while (start < range.end) {
    let lo = start + 1;
    let hi = range.end;
    if (isLowSurrogate(text, lo)) lo++;
    if (!fits({ start, end: lo })) {
      throw new DocQaError('chunk-too-long', `embedder: "${text.slice(start, lo)}" alone is longer than the model's ${maxTokens} tokens (with its prefix)`);
    }
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      const end = isLowSurrogate(text, mid) ? mid - 1 : mid;
      if (end > lo && fits({ start, end })) lo = end;
      else hi = mid - 1;
    }
    out.push({ start, end: lo });
    start = lo;
  }
  return out;
}

const isLowSurrogate = (text: string, i: number) => {
  const c = text.charCodeAt(i);
  return c >= 0xdc00 && c <= 0xdfff;
};
