/**
 * The sentences an answer may quote, read from the retrieved passages with what each line is: a sentence
 * of prose, a table row, a line of code, or a label (a heading, a field or term name, a caption: a short
 * line without final punctuation). What a sentence says often needs the line above it: "The default is
 * five minutes (5min)." is about the setting named on its label line, "timestamp … | 294276 AD" about the
 * column named in its table's header. Each sentence carries that context, for the answer's scoring; the
 * quote is the sentence alone.
 */
import type { Passage } from '../core/types.ts';
import { CELL_SEPARATOR } from '../core/table-cells.ts';
import { splitSentences } from '../text/split-sentences.ts';
import { tokenize } from '../text/tokenize.ts';

/** What a quotable piece of text is. */
export type SentenceKind = 'prose' | 'row' | 'code' | 'label';

export interface AnswerSentence {
  /** Index of its passage in the list given. */
  passage: number;
  /** Its range in the passage's window. */
  start: number;
  end: number;
  text: string;
  kind: SentenceKind;
  /**
   * What it is read with: the nearest label line above it in the window, and for a table row the table's
   * header row (cells named after their column). '' when none.
   */
  context: string;
  /** Cells of a table row paired with their column names ("High Value: 294276 AD"), '' for other kinds. */
  namedCells: string;
  /** Inside the chunk the index hit (the passage is the rest of its parent window). */
  inHit: boolean;
  /** Which non-blank line of its passage's window it is on (sentences of one paragraph share it). */
  line: number;
}

/** A label has at most this many words: "checkpoint_timeout (integer)", "Table 8.9. Date/Time Types", "3.4.1. The single line synopsis". */
const LABEL_WORDS = 8;
/** Share of a line's visible characters that are code punctuation, from which a line without final punctuation reads as code. */
const CODE_SYMBOL_SHARE = 0.08;

const TERMINAL = /[\p{Sentence_Terminal}][\p{Pe}\p{Pf}"']*$/u;
/** Prompts that start lines of code and shell sessions: ">>> ", "... ", "$ ", "% ", "# " before a command. */
const PROMPT = /^(?:>>>|\.\.\.|[$%]|#(?=\s*[a-z]))\s/;
const CODE_SYMBOLS = /[=(){}[\]<>;_$#@\\/*&|^~`+]/gu;
const VISIBLE = /\S/gu;

/** A call or an index right after a name ("sorted(", "student[2]"), an assignment, or a statement's end. */
const CODE_SHAPE = /[\p{L}\p{N}_][([]|[^=!<>]=[^=]|[;{}]$/u;

/** Share of a line's words that are plain lower-case words, from which a long line reads as words, not code. */
const PLAIN_WORD_SHARE = 0.8;

/**
 * Whether a line is a run of plain words, longer than a label: a list item ending in ";" or "," ("--search
 * file (or -S), which finds the package(s) containing the file;") reads as prose, though it ends as a
 * statement does and holds a call's shape.
 */
function readsAsWords(line: string): boolean {
  const words = tokenize(line);
  return words.length > LABEL_WORDS && words.filter((w) => /^\p{Ll}+$/u.test(w)).length >= PLAIN_WORD_SHARE * words.length;
}

/**
 * Whether a line without final punctuation reads as code: a prompt, or the shape of code (a call, an
 * index, an assignment, a statement's end) dense with code punctuation. "checkpoint_timeout (integer)"
 * and "pickle.DEFAULT_PROTOCOL" are labels; "sorted(pairs, key=itemgetter(2))" is code.
 */
function isCode(line: string): boolean {
  if (PROMPT.test(line)) return true;
  if (readsAsWords(line)) return false;
  const visible = line.match(VISIBLE)?.length ?? 0;
  return visible > 0 && CODE_SHAPE.test(line) && (line.match(CODE_SYMBOLS)?.length ?? 0) / visible >= CODE_SYMBOL_SHARE;
}

/** Most words of a field's name ("Maximum upload size", "Monthly rent"). */
const FIELD_NAME_WORDS = 5;
/** "Name: value": the name before the first colon and a space, the value after it. */
const FIELD = /^([^:]{1,80}):\s+\S/u;

/**
 * Whether a short line states a field's value: "Maximum upload size: 25 MB", "Monthly rent: €950",
 * "Depends: libc6". It says something, as a sentence does, though it has no final punctuation. A name
 * ending in a number is a caption or a heading's ("Table 1.1: List of packages", "Chapter 4: Results").
 */
function isField(line: string): boolean {
  const name = FIELD.exec(line)?.[1];
  if (!name) return false;
  const words = tokenize(name).length;
  return words >= 1 && words <= FIELD_NAME_WORDS && !/\p{N}\s*$/u.test(name);
}

/** What a line of a window is ({@link SentenceKind}); '' for a blank line. */
export function kindOfLine(line: string): SentenceKind | '' {
  const text = line.trim();
  if (!text) return '';
  if (text.includes(CELL_SEPARATOR)) return 'row';
  if (TERMINAL.test(text)) return 'prose';
  if (isCode(text)) return 'code';
  if (isField(text)) return 'prose';
  return tokenize(text).length <= LABEL_WORDS ? 'label' : 'prose';
}

/** "High Value: 294276 AD; Resolution: 1 microsecond": a row's cells after the header's, empty cells left out. */
function nameCells(row: string, header: string): string {
  const names = header.split(CELL_SEPARATOR).map((c) => c.trim());
  return row
    .split(CELL_SEPARATOR)
    .map((cell, i) => ({ cell: cell.trim(), name: names[i] ?? '' }))
    .filter(({ cell }) => cell)
    .map(({ cell, name }) => (name && name !== cell ? `${name}: ${cell}` : cell))
    .join('; ');
}

interface Line {
  start: number;
  end: number;
  kind: SentenceKind;
}

/** The non-blank lines of a window with their kinds, trimmed. */
function linesOf(window: string): Line[] {
  const out: Line[] = [];
  let at = 0;
  while (at <= window.length) {
    const nl = window.indexOf('\n', at);
    const stop = nl < 0 ? window.length : nl;
    let start = at;
    let end = stop;
    while (start < end && /\s/u.test(window[start]!)) start++;
    while (end > start && /\s/u.test(window[end - 1]!)) end--;
    const kind = kindOfLine(window.slice(start, end));
    if (kind) out.push({ start, end, kind });
    if (nl < 0) break;
    at = nl + 1;
  }
  return out;
}

/**
 * Every sentence of every passage, in passage and window order, with its kind and context. A prose line
 * is cut into sentences (the one splitter, so a quote never stops at "€8." or "Dr."); a row, a line of
 * code or a label is one piece. Consecutive rows (blank lines between them allowed) are one table whose
 * first row is its header (kind 'label').
 */
export function answerSentences(passages: readonly Passage[]): AnswerSentence[] {
  const out: AnswerSentence[] = [];
  passages.forEach((p, passage) => {
    const w = p.window;
    let label = '';
    let header: string | undefined;
    // After a line ending in ":" ("…is used to set an upper bound on:"), lines without final punctuation are the
    // items of its list; the first line that ends like a sentence closes it.
    let listing = false;
    for (const [lineNo, line] of linesOf(w).entries()) {
      const text = w.slice(line.start, line.end);
      if (line.kind !== 'row') header = undefined;
      const inHit = (s: number, e: number) => e > p.hitStart && s < p.hitEnd;
      if (line.kind === 'prose') {
        for (const s of splitSentences(w, line.start, line.end)) {
          out.push({ passage, start: s.start, end: s.end, text: w.slice(s.start, s.end), kind: 'prose', context: label, namedCells: '', inHit: inHit(s.start, s.end), line: lineNo });
        }
      } else {
        const isHeader = line.kind === 'row' && header === undefined;
        const context = line.kind === 'row' && !isHeader ? [label, header].filter(Boolean).join('\n') : label;
        const namedCells = line.kind === 'row' && !isHeader ? nameCells(text, header!) : '';
        // A table's header names its columns: it labels the rows, it states nothing.
        const kind = isHeader ? 'label' : line.kind;
        out.push({ passage, start: line.start, end: line.end, text, kind, context, namedCells, inHit: inHit(line.start, line.end), line: lineNo });
        if (isHeader) header = text;
      }
      // A label, a signature or a command line above names what the lines under it are about.
      // The items of a list are not labels over what follows it: the label stays the one above the list.
      if (line.kind === 'code' || (line.kind === 'label' && !listing)) label = text;
      if (line.kind === 'prose') listing = text.endsWith(':') || (listing && !TERMINAL.test(text));
    }
  });
  return out;
}

/**
 * Where each sentence's block starts (an index into `sentences`, in window order): a block is the run of
 * prose sentences read under one label (a setting's description under its name). A sentence under no
 * label, a label, a row or a line of code is a block of its own.
 */
export function blockStarts(sentences: readonly AnswerSentence[]): number[] {
  const starts: number[] = [];
  sentences.forEach((s, i) => {
    const prev = sentences[i - 1];
    const continues = prev !== undefined && s.context !== '' && prev.passage === s.passage && s.kind === 'prose' && prev.kind === 'prose' && prev.context === s.context;
    starts.push(continues ? starts[i - 1]! : i);
  });
  return starts;
}

/**
 * The sentences after `best` in its block ({@link blockStarts}: prose under the same label, the setting
 * or term it describes), in order; none when it is under no label. A description often says what a
 * setting is ("Specifies the minimum delay between autovacuum runs on any given database.") and a
 * sentence after it what the question also asks ("The default is one minute (1min)."): quoted together
 * they answer "How long…" or "What is the default…".
 */
export function restOfBlock<T extends AnswerSentence>(best: AnswerSentence, sentences: readonly T[]): T[] {
  return runUnderLabel(best, sentences.filter((s) => s.passage === best.passage && s.start >= best.end).sort((a, b) => a.start - b.start));
}

/**
 * The other sentences of `best`'s paragraph (its line of the window), those after it first, then those
 * before it, each side nearest first: where a sentence under no label is completed ("Note that a complex
 * query might run several sort operations…" under a Markdown heading, its default stated before it).
 */
export function paragraphOf<T extends AnswerSentence>(best: AnswerSentence, sentences: readonly T[]): T[] {
  const mates = sentences.filter((s) => s.passage === best.passage && s.line === best.line && s.start !== best.start);
  const after = mates.filter((s) => s.start >= best.end).sort((a, b) => a.start - b.start);
  const before = mates.filter((s) => s.end <= best.start).sort((a, b) => b.start - a.start);
  return [...after, ...before];
}

/**
 * The sentences of `best`'s passage under no label line outside its paragraph, nearest first (by
 * characters, either side): the rest of its section, where a sentence under no label is completed when
 * its paragraph says nothing more ("Do not include the package name in the synopsis line." with "The
 * single line synopsis should be kept brief—certainly under 80 characters." a paragraph above it).
 */
export function sectionOf<T extends AnswerSentence>(best: AnswerSentence, sentences: readonly T[]): T[] {
  const distance = (s: AnswerSentence) => (s.start >= best.end ? s.start - best.end : best.start - s.end);
  return sentences.filter((s) => s.passage === best.passage && s.line !== best.line && s.context === '' && s.kind === 'prose').sort((a, b) => distance(a) - distance(b));
}

/** The prose sentences of `nearestFirst` (one side of `best`, nearest first) up to the first that is not under `best`'s label. */
function runUnderLabel<T extends AnswerSentence>(best: AnswerSentence, nearestFirst: readonly T[]): T[] {
  if (!best.context || best.kind !== 'prose') return [];
  const block: T[] = [];
  for (const s of nearestFirst) {
    if (s.kind !== 'prose' || s.context !== best.context) break;
    block.push(s);
  }
  return block;
}

/**
 * The sentences before `best` in its block, nearest first ({@link restOfBlock} the other way): a setting's
 * default may come before the sentence that best names what the question asks ("The default value is four
 * megabytes (4MB)." before "Note that a complex query might perform several sort … operations…").
 */
export function startOfBlock<T extends AnswerSentence>(best: AnswerSentence, sentences: readonly T[]): T[] {
  return runUnderLabel(best, sentences.filter((s) => s.passage === best.passage && s.end <= best.start).sort((a, b) => b.start - a.start));
}

/**
 * Words that open a sentence by pointing back at the one before it ("It is affectionately known as the
 * walrus operator…", "This form is much slower…"): such a sentence quoted alone does not say what it is about.
 */
const POINTS_BACK = /^(?:it|its|this|these|those|they|their|them|such|he|she|his|her)\b/iu;

/**
 * The sentence `s` points back at: the one just before it in its paragraph, when `s` opens with a word that
 * refers to it ({@link POINTS_BACK}); undefined otherwise, or when `s` opens its paragraph.
 */
export function antecedentOf<T extends AnswerSentence>(s: AnswerSentence, sentences: readonly T[]): T | undefined {
  if (s.kind !== 'prose' || !POINTS_BACK.test(s.text)) return undefined;
  let before: T | undefined;
  for (const o of sentences) {
    if (o.passage === s.passage && o.line === s.line && o.end <= s.start && (!before || o.start > before.start)) before = o;
  }
  return before;
}
