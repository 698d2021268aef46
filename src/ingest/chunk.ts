/**
 * Structure-first chunking. Blocks (pages, sections) are never crossed; inside a block, paragraphs are
 * packed into chunks of at most `maxChars`; a paragraph that is too long is split at sentences (the same
 * {@link splitSentences} whose sentences the answer quotes and marks), then at spaces. Consecutive chunks
 * overlap by at most `overlapChars`. Each chunk also gets a parent window
 * (small-to-big): its whole block when that is short, else up to `parentChars` centred on the chunk.
 */
import type { Block } from '../core/types.ts';
import { splitSentences } from '../text/split-sentences.ts';

export interface ChunkOptions {
  /** Largest chunk, in characters. Default 1500; range 100–20000. */
  maxChars: number;
  /** Most characters shared by two consecutive chunks. Default 150; range 0–maxChars/2. */
  overlapChars: number;
  /** Largest parent window, in characters. Default 3000; at least maxChars. */
  parentChars: number;
}

export const DEFAULT_CHUNK_OPTIONS: ChunkOptions = { maxChars: 1500, overlapChars: 150, parentChars: 3000 };

export interface ChunkSpan {
  block: number;
  start: number;
  end: number;
  parentStart: number;
  parentEnd: number;
  ordinal: number;
}

interface Range {
  start: number;
  end: number;
}

/** Ranges of `re`-separated, non-blank pieces of text[start, end). */
function splitRanges(text: string, start: number, end: number, re: RegExp): Range[] {
  const out: Range[] = [];
  const slice = text.slice(start, end);
  let last = 0;
  for (const m of slice.matchAll(re)) {
    const cut = m.index + m[0].length;
    pushTrimmed(text, start + last, start + cut, out);
    last = cut;
  }
  pushTrimmed(text, start + last, end, out);
  return out;
}

function pushTrimmed(text: string, start: number, end: number, out: Range[]): void {
  while (start < end && /\s/.test(text[start] ?? '')) start++;
  while (end > start && /\s/.test(text[end - 1] ?? '')) end--;
  if (end > start) out.push({ start, end });
}

/**
 * Moves a cut position that would split a surrogate pair (an emoji, a rare CJK character) by one:
 * back for an end, forward for a start, so a range never grows.
 */
function safeCut(text: string, i: number, direction: -1 | 1 = -1): number {
  const code = text.charCodeAt(i);
  return i > 0 && code >= 0xdc00 && code <= 0xdfff ? i + direction : i;
}

/**
 * Last space in text[from, to), or -1. Bounded on purpose: `lastIndexOf` alone would scan back to
 * the start of a text without spaces for every chunk (quadratic on a 5 MB line of minified data).
 */
function lastSpaceIn(text: string, from: number, to: number): number {
  const i = text.slice(from, to).lastIndexOf(' ');
  return i < 0 ? -1 : from + i;
}

/** First space in text[from, to), or -1; bounded like `lastSpaceIn`. */
function firstSpaceIn(text: string, from: number, to: number): number {
  const i = text.slice(from, to).indexOf(' ');
  return i < 0 ? -1 : from + i;
}

/** Cuts a range into pieces of at most `max` characters, at spaces where possible. */
function splitAtSpaces(text: string, r: Range, max: number): Range[] {
  const out: Range[] = [];
  let start = r.start;
  while (r.end - start > max) {
    let cut = lastSpaceIn(text, start + 1, start + max + 1);
    if (cut <= start) cut = safeCut(text, start + max);
    if (cut <= start) cut = start + max;
    pushTrimmed(text, start, cut, out);
    start = cut;
  }
  pushTrimmed(text, start, r.end, out);
  return out;
}

/** Units no longer than `max`: paragraphs, else sentences, else space-separated pieces. */
function unitsOf(text: string, max: number): Range[] {
  const units: Range[] = [];
  for (const para of splitRanges(text, 0, text.length, /\n\s*\n/g)) {
    if (para.end - para.start <= max) {
      units.push(para);
      continue;
    }
    for (const sentence of splitSentences(text, para.start, para.end)) {
      if (sentence.end - sentence.start <= max) units.push(sentence);
      else units.push(...splitAtSpaces(text, sentence, max));
    }
  }
  return units;
}

/** Start of the overlap for a chunk that follows one ending at `prevEnd`. */
function overlapStart(text: string, prev: Range, overlap: number): number {
  if (overlap <= 0) return prev.end;
  const from = Math.max(prev.start + 1, prev.end - overlap);
  const space = text.slice(from, prev.end).search(/\s\S/);
  return space < 0 ? prev.end : from + space + 1;
}

function parentOf(text: string, r: Range, parentChars: number): Range {
  if (text.length <= parentChars) return { start: 0, end: text.length };
  const extra = Math.max(0, parentChars - (r.end - r.start));
  let start = Math.max(0, r.start - Math.floor(extra / 2));
  let end = Math.min(text.length, start + (r.end - r.start) + extra);
  start = Math.max(0, Math.min(start, end - parentChars));
  // Snap outwards-in to word boundaries so the window never starts or ends mid-word.
  if (start > 0) {
    const s = firstSpaceIn(text, start, r.start);
    if (s >= 0) start = s + 1;
  }
  if (end < text.length) {
    const e = lastSpaceIn(text, r.end, end + 1);
    if (e >= 0) end = e;
  }
  return { start: safeCut(text, Math.min(start, r.start), 1), end: safeCut(text, Math.max(end, r.end)) };
}

/** Chunks one block's text; see the module comment. */
export function chunkText(text: string, options: ChunkOptions = DEFAULT_CHUNK_OPTIONS): Range[] {
  const { maxChars, overlapChars } = options;
  const chunks: Range[] = [];
  let current: Range | undefined;
  for (const unit of unitsOf(text, maxChars)) {
    if (!current) current = { ...unit };
    else if (unit.end - current.start <= maxChars) current.end = unit.end;
    else {
      chunks.push(current);
      const start = overlapStart(text, current, overlapChars);
      current = start < current.end && unit.end - start <= maxChars ? { start, end: unit.end } : { ...unit };
    }
  }
  if (current) chunks.push(current);
  return chunks;
}

/** Chunks every block of a document, numbering chunks in reading order. */
export function chunkBlocks(blocks: Block[], options: ChunkOptions = DEFAULT_CHUNK_OPTIONS): ChunkSpan[] {
  const spans: ChunkSpan[] = [];
  blocks.forEach((block, b) => {
    for (const r of chunkText(block.text, options)) {
      const parent = parentOf(block.text, r, options.parentChars);
      spans.push({ block: b, start: r.start, end: r.end, parentStart: parent.start, parentEnd: parent.end, ordinal: spans.length });
    }
  });
  return spans;
}
