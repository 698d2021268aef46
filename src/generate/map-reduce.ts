import { DocQaError } from '../core/errors.ts';
import type { Answer, Passage, RemovedCitation } from '../core/types.ts';
import { checkCitations, type CheckedSentence } from './citations.ts';
import { buildContext, type ContextPassage } from './context.ts';
import { buildNotFoundAnswer, type TermStatistics } from './extractive-answer.ts';
import type { ChatMessage, Generator } from '../models/generator/generator.ts';
import { answerOf, saysNotFound, writeStream } from './llm-answerer.ts';
import { buildMapMessages, buildReduceMessages, notesBlock, NOTHING_RELEVANT } from './map-reduce-prompt.ts';
import { buildMessages, countMessageTokens, passageBlock, questionTooLong } from './prompt.ts';

/** `attributeAt` above 1: the checker cites nothing a model did not. */
const NEVER = 2;

/**
 * A question about a whole document answered by a model over every section, within its
 * context window: when the whole document fits one prompt, one ordinary answer over all of it; else
 * map-reduce. Map: the sections, in document order and numbered [1]…[N] across the whole document, are
 * cut into parts that each fit one request (counted in the model's tokens, prompt and notes included);
 * the model takes notes on each part with [n] citations; each note's citations are checked against its
 * part and a note no passage supports is dropped. Reduce: the notes are combined into the answer (streamed
 * to `onText`), in rounds when they do not fit one request. The answer's citations are checked against the
 * sections they name (`citations.ts`) and the answer is built as the one-request answerer builds it.
 * Memory: the sections' text once, the notes (each at most `noteTokens`), one request at a time.
 */

export interface MapReduceOptions {
  generator: Generator;
  /** Every section of the document, in document order (`library/whole-document.ts` reads them). At least one. */
  sections: readonly Passage[];
  /** Collection statistics for the citation checker's IDF weights. Default: every term weighs 1. */
  stats?: TermStatistics;
  /** Most tokens of the answer. Default 512; capped at a quarter of the model's context window. */
  maxTokens?: number;
  /** Most tokens of one part's notes (and of one combined note in a reduce round). Default 256; capped at a quarter of the window. */
  noteTokens?: number;
  /** Default 0 (greedy). */
  temperature?: number;
  /** Share of a sentence's content terms a cited passage must hold (`citations.ts`). Default 0.4; 0–1. */
  minSupport?: number;
  /** Most reduce rounds before the final one; notes that still do not fit are left out (the answer says so by its citations). Default 4; 1–10. */
  maxRounds?: number;
  /** Each piece of the answer as the model writes it (the reduce step, or the one request). */
  onText?: (piece: string) => void;
  /** Stops the model: the answer is what it had written (the notes so far, while reading), checked, `stopped: true`. */
  signal?: AbortSignal;
  /** After each part is read: `done` of `total` parts. */
  onProgress?: (done: number, total: number) => void;
}

/** A part: the sections one map request reads. */
type Part = ContextPassage[];

const cap = (value: number | undefined, fallback: number, contextTokens: number) => Math.max(1, Math.min(value ?? fallback, Math.floor(contextTokens / 4)));

/** Each section whole, numbered 1..N in document order. */
function numbered(sections: readonly Passage[]): ContextPassage[] {
  return sections.map((passage, i) => ({ n: i + 1, passage, kept: [{ start: 0, end: passage.window.length }], text: passage.window, merged: 1 }));
}

/** A section cut to `budget` tokens as the prompt writes it (whole sentences, those that matter first: `context.ts`). */
async function trimmed(question: string, p: ContextPassage, budget: number, count: (t: string) => Promise<number>): Promise<ContextPassage | undefined> {
  const built = await buildContext(question, [p.passage], { budget, countTokens: count, render: (_n, passage, text) => passageBlock(p.n, passage, text), minRerankScore: -Infinity });
  const kept = built.passages[0];
  return kept ? { ...kept, n: p.n } : undefined;
}

interface PlanInput {
  question: string;
  passages: readonly ContextPassage[];
  generator: Generator;
  /** Tokens a request may take: the window less the notes'. */
  limit: number;
  docName: string;
  /** Each section's tokens as the prompt writes it, by its number. */
  costs: ReadonlyMap<number, number>;
}

/**
 * The parts: consecutive sections, as many as fit one map request each (a greedy cut on each section's
 * cost, then the request counted whole; a part over the limit gives back its last section, and a section
 * too long for a request alone is cut to its sentences that matter).
 */
async function planParts(input: PlanInput): Promise<Part[]> {
  const count = (t: string) => input.generator.countTokens(t);
  // The widest part number the prompt can write, so a counted request never grows when numbered.
  const messagesOf = (part: Part) => buildMapMessages(input.question, part, { part: 99_999, parts: 99_999, docName: input.docName });
  const base = await countMessageTokens(messagesOf([]), count);
  // The question fills the window (a pasted text, say): shortening it is the way out, not another model.
  if (base >= input.limit && (await countMessageTokens(buildMapMessages('', [], { part: 99_999, parts: 99_999, docName: input.docName }), count)) < input.limit / 2) {
    throw questionTooLong(input.generator.model.label, base, input.limit);
  }
  if (base >= input.limit) throw windowTooSmall(input.generator);
  const queue = [...input.passages];
  const parts: Part[] = [];
  while (queue.length) {
    const part: Part = [];
    let total = base;
    while (queue.length) {
      // The separator between two blocks counts as one token.
      const cost = input.costs.get(queue[0]!.n)! + 1;
      if (part.length && total + cost > input.limit) break;
      part.push(queue.shift()!);
      total += cost;
    }
    // A section cut a few times and still too long (a tokenizer that does not add up) is left out.
    for (let cuts = 0; ; ) {
      const excess = (await countMessageTokens(messagesOf(part), count)) - input.limit;
      if (excess <= 0) break;
      if (part.length > 1) {
        queue.unshift(part.pop()!);
        continue;
      }
      const budget = (await count(passageBlock(part[0]!.n, part[0]!.passage, part[0]!.text))) - excess - 1 - cuts;
      const cut = cuts++ < 5 && budget > 0 ? await trimmed(input.question, part[0]!, budget, count) : undefined;
      if (!cut) {
        part.length = 0;
        break;
      }
      part[0] = cut;
    }
    if (part.length) parts.push(part);
  }
  // Every section was cut to nothing: the rules and the question leave no room for document text (a
  // 512-token model). "Not found in your documents" would be wrong: the document was never read.
  if (!parts.length && input.passages.length) throw windowTooSmall(input.generator);
  return parts;
}

function windowTooSmall(generator: Generator): DocQaError {
  return new DocQaError('prompt-too-long', `the model's context window (${generator.model.contextTokens} tokens) is too small to read a document part by part: choose a model with a larger window`);
}

/** The sentences that hold, rewritten with their checked [n]: what a part's (or a round's) notes keep. */
function keptNotes(checked: readonly CheckedSentence[]): string {
  return checked
    .filter((s) => s.support.length > 0 && !saysNotFound(s.text))
    .map((s) => `${s.text.trim()} ${s.support.map((x) => `[${x.n}]`).join('')}`)
    .join(' ');
}

interface Run {
  question: string;
  options: MapReduceOptions;
  all: readonly ContextPassage[];
  /** Tokens of a note or a combined note. */
  noteTokens: number;
}

function request(run: Run, messages: ChatMessage[], maxTokens: number) {
  return { messages, maxTokens, temperature: run.options.temperature ?? 0, signal: run.options.signal };
}

/** Map: each part's checked notes, in document order (parts with nothing relevant give none), until a stop. */
async function mapParts(run: Run, parts: readonly Part[]): Promise<string[]> {
  const { generator, signal, stats, minSupport } = run.options;
  const notes: string[] = [];
  const docName = parts[0]?.[0]?.passage.docName ?? '';
  for (const [i, part] of parts.entries()) {
    if (signal?.aborted) break;
    const text = await writeStream(generator, request(run, buildMapMessages(run.question, part, { part: i + 1, parts: parts.length, docName }), run.noteTokens));
    // Notes keep only what the model cited and its part supports: the checker cites nothing itself here
    // (a note's fact must not move to a neighbouring section); the final answer is checked against all.
    const note = text.trim() === NOTHING_RELEVANT ? '' : keptNotes(checkCitations(text, part, { stats, minSupport, attributeAt: NEVER }));
    if (note) notes.push(note);
    if (!signal?.aborted) run.options.onProgress?.(i + 1, parts.length);
  }
  return notes;
}

/** Consecutive notes in groups that each fit a reduce request of `limit` tokens (a note alone always makes a group). */
async function groupNotes(run: Run, notes: readonly string[], limit: number): Promise<string[][]> {
  const count = (t: string) => run.options.generator.countTokens(t);
  const base = await countMessageTokens(buildReduceMessages(run.question, [], false), count);
  const groups: string[][] = [];
  let group: string[] = [];
  let total = base;
  for (const note of notes) {
    const cost = (await count(notesBlock(note))) + 1;
    if (group.length && total + cost > limit) {
      groups.push(group);
      group = [];
      total = base;
    }
    group.push(note);
    total += cost;
  }
  if (group.length) groups.push(group);
  return groups;
}

/**
 * Notes that fit the final request: combined in rounds (each group of notes into one shorter note, checked
 * against the sections) while they do not fit; when a round no longer shortens them, or after
 * `maxRounds`, the first notes that fit, in document order.
 */
async function reduceRounds(run: Run, notes: string[], limit: number): Promise<string[]> {
  const count = (t: string) => run.options.generator.countTokens(t);
  const fits = async (n: readonly string[]) => (await countMessageTokens(buildReduceMessages(run.question, n, true), count)) <= limit;
  const roundLimit = run.options.generator.model.contextTokens - run.noteTokens;
  for (let round = 0; round < Math.min(10, Math.max(1, run.options.maxRounds ?? 4)) && !(await fits(notes)); round++) {
    const groups = await groupNotes(run, notes, roundLimit);
    if (groups.length >= notes.length) break;
    const next: string[] = [];
    for (const group of groups) {
      if (run.options.signal?.aborted) return notes;
      const text = await writeStream(run.options.generator, request(run, buildReduceMessages(run.question, group, false), run.noteTokens));
      const note = keptNotes(checkCitations(text, run.all, { stats: run.options.stats, minSupport: run.options.minSupport, attributeAt: NEVER }));
      if (note) next.push(note);
    }
    notes = next;
  }
  const kept: string[] = [];
  for (const note of notes) {
    if (!(await fits([...kept, note]))) break;
    kept.push(note);
  }
  return kept;
}

/** The answer from what the model wrote, checked against the sections (as `llm-answerer.ts` builds it). */
function finish(run: Run, text: string, stopped: boolean): Answer {
  const { question, options } = run;
  const model = options.generator.model;
  const extra = { generatedBy: model.label, ...(stopped ? { stopped: true } : {}) };
  const checked = checkCitations(text, run.all, { stats: options.stats, minSupport: options.minSupport });
  const removedCitations: RemovedCitation[] = checked.flatMap((s) => s.removed);
  const said = checked.filter((s) => !saysNotFound(s.text) && s.text.trim() !== NOTHING_RELEVANT);
  const supported = checked.some((s) => s.support.length > 0);
  if (said.length === 0 || (!supported && checked.some((s) => saysNotFound(s.text)))) {
    // The closest passages of a document read whole: its first sections.
    return { ...buildNotFoundAnswer(question, options.sections.slice(0, 5), { stats: options.stats }), removedCitations, ...extra };
  }
  return { question, found: true, ...answerOf(said, run.all), removedCitations, ...extra };
}

/**
 * Answers a question over every section of one document (see the file comment).
 *
 * @example
 * const answer = await mapReduceAnswer('Summarise the lease', { generator, sections, onText: show, onProgress: (d, t) => note(`Read ${d} of ${t} parts`) });
 */
export async function mapReduceAnswer(question: string, options: MapReduceOptions): Promise<Answer> {
  const { generator, signal } = options;
  const ctx = generator.model.contextTokens;
  const maxTokens = cap(options.maxTokens, 512, ctx);
  const run: Run = { question, options, all: numbered(options.sections), noteTokens: cap(options.noteTokens, 256, ctx) };
  if (run.all.length === 0) return finish(run, '', false);
  const count = (t: string) => generator.countTokens(t);
  const answerLimit = ctx - maxTokens;

  const costs = new Map<number, number>();
  for (const p of run.all) costs.set(p.n, await count(passageBlock(p.n, p.passage, p.text)));
  // The whole document in one ordinary answer, when it fits (summed first: counting a long document's
  // whole prompt would be slow).
  const sum = [...costs.values()].reduce((a, b) => a + b + 1, await countMessageTokens(buildMessages({ question, passages: [] }), count));
  const single = sum <= answerLimit ? buildMessages({ question, passages: run.all }) : undefined;
  if (single && (await countMessageTokens(single, count)) <= answerLimit) {
    const text = await writeStream(generator, request(run, single, maxTokens), options.onText);
    if (!signal?.aborted) options.onProgress?.(1, 1);
    return finish(run, text, signal?.aborted === true);
  }

  const parts = await planParts({ question, passages: run.all, generator, limit: ctx - run.noteTokens, docName: options.sections[0]!.docName, costs });
  options.onProgress?.(0, parts.length);
  let notes = await mapParts(run, parts);
  if (signal?.aborted) return finish(run, notes.join(' '), true);
  if (notes.length === 0) return finish(run, '', false);
  notes = await reduceRounds(run, notes, answerLimit);
  if (signal?.aborted) return finish(run, notes.join(' '), true);
  const text = await writeStream(generator, request(run, buildReduceMessages(question, notes, true), maxTokens), options.onText);
  // Stopped before the answer said anything: the notes are what was written.
  return finish(run, signal?.aborted && !text.trim() ? notes.join(' ') : text, signal?.aborted === true);
}
