/**
 * A question set over real documents (`tests/fixtures/real-questions/*.json`): answerable questions, each
 * with the document that answers it and a short fact the quoted answer must contain, and questions the
 * documents do not answer. Asked through the app's retrieval and answer code, as {@link evaluateAnswers}
 * asks SciFact's claims; `npm run eval -- --questions <file> --docs <folder>` runs it.
 */
import type { Answer } from '../core/types.ts';
import { extractiveAnswerer, type Answerer } from '../generate/answerer.ts';
import { retrievePassages } from '../retrieve/retrieve.ts';
import { quotesOf } from './evaluate-answers.ts';
import { queryOf, type IndexedCollection } from './evaluate.ts';

export interface AnswerableQuestion {
  id: string;
  question: string;
  /** The document that answers it: its path under the documents folder. */
  document: string;
  /** What the quoted answer must contain (any one of them), compared without case, spacing or hyphens between words. */
  facts: string[];
}

export interface UnanswerableQuestion {
  id: string;
  question: string;
}

export interface QuestionSet {
  about: string;
  /** The folders (under the documents folder) whose pages make the library. */
  folders: string[];
  /** File extensions read from those folders (lower case, no dot); empty: every kind the app reads. */
  extensions: string[];
  answerable: AnswerableQuestion[];
  unanswerable: UnanswerableQuestion[];
}

const isString = (x: unknown): x is string => typeof x === 'string' && x.trim() !== '';

/** A question set from its JSON text, checked: every field present, ids unique. Throws an Error naming what is wrong. */
export function parseQuestionSet(text: string, name = 'questions'): QuestionSet {
  const raw = JSON.parse(text) as Record<string, unknown>;
  const fail = (what: string): never => {
    throw new Error(`${name}: ${what}`);
  };
  const list = (key: string): Array<Record<string, unknown>> => (Array.isArray(raw[key]) ? (raw[key] as Array<Record<string, unknown>>) : fail(`"${key}" must be a list`));
  const folders = list('folders') as unknown[];
  if (!folders.every(isString)) fail('"folders" must be a list of paths');
  const extensions = (raw.extensions ?? []) as unknown[];
  if (!Array.isArray(extensions) || !extensions.every(isString)) fail('"extensions" must be a list such as ["html", "htm"]');
  const ids = new Set<string>();
  const idOf = (q: Record<string, unknown>): string => {
    if (!isString(q.id) || !isString(q.question)) fail(`every question needs an "id" and a "question" (${JSON.stringify(q)})`);
    if (ids.has(q.id as string)) fail(`id "${String(q.id)}" is used twice`);
    ids.add(q.id as string);
    return q.id as string;
  };
  const answerable = list('answerable').map((q): AnswerableQuestion => {
    const id = idOf(q);
    const facts = Array.isArray(q.fact) ? q.fact : [q.fact];
    if (!isString(q.document) || facts.length === 0 || !facts.every(isString)) fail(`answerable question "${id}" needs a "document" and a "fact" (text or list of texts)`);
    return { id, question: q.question as string, document: q.document as string, facts: facts as string[] };
  });
  const unanswerable = list('unanswerable').map((q): UnanswerableQuestion => ({ id: idOf(q), question: q.question as string }));
  return { about: isString(raw.about) ? raw.about : '', folders: folders as string[], extensions: (extensions as string[]).map((e) => e.toLowerCase()), answerable, unanswerable };
}

/** Case, width, spacing and a hyphen between two words ("platform-dependent") do not make a fact different. */
const normalise = (text: string) =>
  text.normalize('NFKC').toLowerCase().replace(/(?<=\p{L})[-\u2010\u2011](?=\p{L})/gu, ' ').replace(/\s+/gu, ' ').trim();

/** Whether the answer quotes one of the facts (within one quoted sentence or across its quotes joined). */
export function quotesFact(answer: Answer, facts: readonly string[]): boolean {
  if (!answer.found) return false;
  const quoted = normalise(quotesOf(answer).join(' '));
  return facts.some((f) => quoted.includes(normalise(f)));
}

/** What happened to one question. */
export interface QuestionOutcome {
  id: string;
  question: string;
  answerable: boolean;
  /** The answer quoted something (not "Not found in your documents."). */
  answered: boolean;
  /** Answerable only: the quotes contain the expected fact. */
  factQuoted: boolean;
  /** Answerable only: where the expected document's first passage stood among the 5 retrieved (1–5), 0 when absent. */
  documentRank: number;
  /** The quoted text ('' when not found). */
  quoted: string;
}

export interface QuestionReport {
  answerable: number;
  /** Share of the answerable questions answered. */
  answered_rate: number;
  /** Share of the answerable questions whose quotes contain the expected fact. */
  fact_quoted_rate: number;
  /** Share of the answerable questions whose document is among the 5 passages retrieved (what the answer can quote at best). */
  document_retrieved_rate: number;
  /**
   * Median words quoted in the answers to answerable questions that were answered: what a person reads to
   * find the fact. A fact inside a quote of a whole table counts as quoted; this says how much came with it.
   */
  quoted_words_median: number;
  unanswerable: number;
  /** Share of the unanswerable questions answered "Not found in your documents.". */
  not_found_rate: number;
  outcomes: QuestionOutcome[];
}

export interface QuestionEvalOptions {
  /**
   * Asks every question in one conversation, as a person trying the app might: each is rewritten by this
   * (`rewriteByRule` from question/follow-up.ts) against the question searched before it. Default: each
   * question on its own.
   */
  followUp?: (question: string, previous: string) => string;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length === 0 ? 0 : sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const share = (n: number, of: number) => (of ? Math.round((n / of) * 10_000) / 10_000 : 0);

/**
 * Asks every question of the set through the app's retrieval (5 passages) and `answerer` (default the
 * extractive answer), over the indexed documents (`beirIdOf` maps each document to its path); with
 * `options.followUp`, all in one conversation.
 */
export async function evaluateQuestions(indexed: IndexedCollection, set: QuestionSet, answerer: Answerer = extractiveAnswerer, options: QuestionEvalOptions = {}): Promise<QuestionReport> {
  const outcomes: QuestionOutcome[] = [];
  let previous: string | undefined;
  const ask = async (asked: string) => {
    // In one conversation, each question is first made standalone against the one searched before it.
    const question = options.followUp && previous !== undefined ? options.followUp(asked, previous) : asked;
    previous = question;
    const passages = await retrievePassages(indexed.search, indexed.source, queryOf(indexed, question), { k: 5, retrievers: indexed.retrievers });
    return { passages, answer: await answerer.answer(question, passages, indexed.lexical) };
  };
  for (const q of set.answerable) {
    const { passages, answer } = await ask(q.question);
    const documentRank = passages.findIndex((p) => indexed.beirIdOf.get(p.docId) === q.document) + 1;
    const quoted = answer.found ? quotesOf(answer).join(' ') : '';
    outcomes.push({ id: q.id, question: q.question, answerable: true, answered: answer.found, factQuoted: quotesFact(answer, q.facts), documentRank, quoted });
  }
  for (const q of set.unanswerable) {
    const { answer } = await ask(q.question);
    outcomes.push({ id: q.id, question: q.question, answerable: false, answered: answer.found, factQuoted: false, documentRank: 0, quoted: answer.found ? quotesOf(answer).join(' ') : '' });
  }
  const answerable = outcomes.filter((o) => o.answerable);
  const unanswerable = outcomes.filter((o) => !o.answerable);
  return {
    answerable: answerable.length,
    answered_rate: share(answerable.filter((o) => o.answered).length, answerable.length),
    fact_quoted_rate: share(answerable.filter((o) => o.factQuoted).length, answerable.length),
    document_retrieved_rate: share(answerable.filter((o) => o.documentRank > 0).length, answerable.length),
    quoted_words_median: median(answerable.filter((o) => o.answered).map((o) => o.quoted.split(/\s+/u).filter(Boolean).length)),
    unanswerable: unanswerable.length,
    not_found_rate: share(unanswerable.filter((o) => !o.answered).length, unanswerable.length),
    outcomes,
  };
}
