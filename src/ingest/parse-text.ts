import { DocQaError } from '../core/errors.ts';
import type { Block, ParsedDoc } from '../core/types.ts';
import { normalizeText, runningLineIndexes, textToParagraphs } from './clean.ts';
import { indentOf, textHeading, underlinedHeading } from './text-headings.ts';
import { titleOfFirstLine } from './title.ts';

/** Plain-text sections are cut into blocks of about this many characters, labelled by line numbers. */
const TEXT_BLOCK_CHARS = 20_000;

/** Bytes looked at to tell text from binary and to guess a UTF-16 byte order. */
const SAMPLE_BYTES = 8192;

/**
 * The byte order of UTF-16 text written without a byte-order mark, or undefined when `sample` does not
 * read as one. UTF-16 text stores ASCII, spaces and line ends (present in any script's text) with a zero
 * high byte, so its zeros fall on one parity: odd positions for little-endian, even for big-endian. A
 * binary's zeros fall on both. The guess holds only when the sample then decodes to plausible text.
 */
function guessUtf16(sample: Uint8Array): 'utf-16le' | 'utf-16be' | undefined {
  const units = sample.length >> 1;
  let evenZeros = 0;
  let oddZeros = 0;
  for (let i = 0; i + 1 < sample.length; i += 2) {
    if (sample[i] === 0) evenZeros++;
    if (sample[i + 1] === 0) oddZeros++;
  }
  const [many, few] = oddZeros >= evenZeros ? [oddZeros, evenZeros] : [evenZeros, oddZeros];
  // At least 1 % of code units with a zero byte (a stray NUL in UTF-8 text is not UTF-16), four times
  // as many on one side as on the other (a CJK character's low byte is zero in 1 of 256).
  if (units === 0 || many < Math.max(1, units / 100) || many < 4 * few) return undefined;
  const encoding = oddZeros > evenZeros ? 'utf-16le' : 'utf-16be';
  return readsAsText(sample.subarray(0, units * 2), encoding) ? encoding : undefined;
}

/**
 * Whether `bytes` decode without broken surrogate pairs to text with no NUL, and at most 1 % control
 * characters, private-use characters and noncharacters: what binary data decodes to.
 */
function readsAsText(bytes: Uint8Array, encoding: 'utf-16le' | 'utf-16be'): boolean {
  let text: string;
  try {
    // `stream` lets a pair cut at the sample's end pass; a lone surrogate inside it still throws.
    text = new TextDecoder(encoding, { fatal: true }).decode(bytes, { stream: true });
  } catch {
    return false;
  }
  let odd = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0) return false;
    if (isUnlikelyInText(c)) odd++;
  }
  return odd <= text.length / 100;
}

/** Control characters other than tab, line ends and form feed; private use; the noncharacters U+FFFE and U+FFFF. */
function isUnlikelyInText(code: number): boolean {
  return (code < 0x20 && (code < 0x09 || code > 0x0d)) || (code >= 0x7f && code <= 0x9f) || (code >= 0xe000 && code <= 0xf8ff) || code >= 0xfffe;
}

/**
 * Decodes text bytes: UTF-8 (BOM stripped), UTF-16 with a BOM or without one (guessed from where its
 * zero bytes fall), else Windows-1252 when the bytes are not valid UTF-8 — the usual legacy encoding —
 * so old files still index instead of failing. Other bytes with NUL characters are not text.
 */
export function decodeText(bytes: Uint8Array, name: string): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes);
  const sample = bytes.subarray(0, SAMPLE_BYTES);
  if (sample.includes(0)) {
    const utf16 = guessUtf16(sample);
    if (utf16) return new TextDecoder(utf16).decode(bytes);
    throw new DocQaError('corrupt-file', `${name}: this does not look like a text file (it contains binary data)`);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return new TextDecoder('windows-1252').decode(bytes);
  }
}

interface Paragraph {
  /** 0-based indexes of its first and last lines. */
  first: number;
  last: number;
  lines: string[];
}

/** Whether a line ends a sentence: . ! ? or : before any closing quotes and brackets. Scanned, not a regex (`[.!?]["')]*$` is quadratic). */
function endsSentence(line: string): boolean {
  let i = line.trimEnd().length - 1;
  while (i >= 0 && '"\')]’”'.includes(line[i]!)) i--;
  return i >= 0 && '.!?:'.includes(line[i]!);
}

/** The line after a page break goes on with the paragraph before it: no sentence end before, lower case after, same indent. */
function continuesAcrossPages(before: string, after: string): boolean {
  return !endsSentence(before) && /^\s*\p{Ll}/u.test(after) && indentOf(before) === indentOf(after);
}

/**
 * Lines without form feeds (page breaks) and without the running headers and footers around them,
 * found as in PDFs ({@link runningLineIndexes}): an RFC's "Rescorla  Standards Track  [Page 73]" and
 * "RFC 8446  TLS  August 2018". A removed line stays as a blank line, so line numbers do not move.
 * A page break ends a paragraph (`breaks`: before these lines) unless the paragraph goes on across it
 * (`glue`: the blank lines between its halves).
 */
export function removePageFurniture(raw: string[]): { lines: string[]; glue: Uint8Array; breaks: Uint8Array } {
  const glue = new Uint8Array(raw.length);
  const breaks = new Uint8Array(raw.length);
  if (!raw.some((l) => l.includes('\f'))) return { lines: raw, glue, breaks };
  // Each page is a list of pieces of lines; `owners` gives each piece's line.
  const pages: string[][] = [[]];
  const owners: number[][] = [[]];
  raw.forEach((line, i) => {
    line.split('\f').forEach((piece, k) => {
      if (k > 0) {
        pages.push([]);
        owners.push([]);
      }
      pages.at(-1)!.push(piece);
      owners.at(-1)!.push(i);
    });
  });
  const drops = runningLineIndexes(pages);
  const kept: string[][] = raw.map(() => []);
  pages.forEach((page, p) => page.forEach((piece, j) => piece && !drops[p]!.has(j) && kept[owners[p]![j]!]!.push(piece)));
  const lines = kept.map((pieces) => pieces.join(' '));
  const shown = (p: number, j: number) => Boolean(pages[p]![j]!.trim()) && !drops[p]!.has(j);
  for (let p = 0; p + 1 < pages.length; p++) {
    const last = pages[p]!.findLastIndex((_, j) => shown(p, j));
    const first = pages[p + 1]!.findIndex((_, j) => shown(p + 1, j));
    const before = last < 0 ? undefined : owners[p]![last];
    const after = first < 0 ? undefined : owners[p + 1]![first];
    if (before === undefined || after === undefined || before >= after) continue;
    if (continuesAcrossPages(lines[before]!, lines[after]!)) glue.fill(1, before + 1, after);
    else breaks[after] = 1;
  }
  return { lines, glue, breaks };
}

/** Paragraphs: runs of lines between blank lines and page breaks (a glued blank line does not end one). */
function paragraphsOf({ lines, glue, breaks }: ReturnType<typeof removePageFurniture>): Paragraph[] {
  const out: Paragraph[] = [];
  let current: Paragraph | undefined;
  lines.forEach((line, i) => {
    if (breaks[i]) current = undefined;
    if (line.trim()) {
      if (current) {
        current.lines.push(line);
        current.last = i;
      } else out.push((current = { first: i, last: i, lines: [line] }));
    } else if (!glue[i]) current = undefined;
  });
  return out;
}

/**
 * Plain text: paragraphs at blank lines, page breaks (form feeds) and their running headers and
 * footers removed. Numbered, capitalised and underlined headings ({@link textHeading},
 * {@link underlinedHeading}) start sections: a block is
 * labelled "4.6.1. New Session Ticket Message (lines 5301–5366)" (its `section` is the heading), or
 * "lines a–b" before the first heading. A block holds about `TEXT_BLOCK_CHARS` at most. The title is a
 * first line that reads as one ({@link textTitle}), else none (the file name stands in).
 */
export function parseText(bytes: Uint8Array, name: string, onProgress?: (fraction: number) => void): ParsedDoc {
  const paragraphs = paragraphsOf(removePageFurniture(decodeText(bytes, name).split(/\r\n?|\n/)));
  const blocks: Block[] = [];
  let section: string | undefined;
  let current: string[] = [];
  let size = 0;
  let firstLine = 1;
  let lastLine = 1;
  let headingLine: number | undefined;
  const flush = () => {
    if (!current.length) return;
    const range = firstLine === lastLine ? `line ${firstLine}` : `lines ${firstLine}–${lastLine}`;
    blocks.push({ label: section ? `${section} (${range})` : range, section, text: current.join('\n\n') });
    current = [];
    size = 0;
  };
  for (const [k, para] of paragraphs.entries()) {
    if (onProgress && k % 2048 === 2047) onProgress(k / paragraphs.length);
    const underlined = underlinedHeading(para.lines);
    const heading = underlined?.heading ?? textHeading(para.lines, paragraphs[k + 1]?.lines[0]);
    const body = para.lines.slice(underlined ? underlined.lines : heading ? 1 : 0);
    if (heading) {
      flush();
      section = normalizeText(heading) || undefined;
      headingLine = para.first + 1;
    }
    const paras = body.length ? textToParagraphs(body.join('\n')) : [];
    if (!paras.length) continue;
    if (!current.length) firstLine = headingLine ?? para.first + 1;
    headingLine = undefined;
    current.push(...paras);
    lastLine = para.last + 1;
    for (const p of paras) size += p.length;
    if (size >= TEXT_BLOCK_CHARS) flush();
  }
  flush();
  const title = textTitle(paragraphs, name);
  return { ...(title && { title: normalizeText(title), titleSource: 'heading' as const }), blocks };
}

/**
 * A title line: the first paragraph's underlined heading, or the first paragraph when it is one line,
 * followed by more text; either when it reads as a title
 * ({@link titleOfFirstLine}). Otherwise none, and the file name stands in: an RFC's first paragraph is
 * its header block, a note's first line is often its first sentence.
 */
function textTitle(paragraphs: readonly Paragraph[], name: string): string | undefined {
  const first = paragraphs[0];
  const underlined = first && underlinedHeading(first.lines);
  if (underlined) return titleOfFirstLine(underlined.heading, name);
  return first && first.lines.length === 1 && paragraphs.length > 1 ? titleOfFirstLine(first.lines[0]!, name) : undefined;
}
