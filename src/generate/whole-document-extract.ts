import type { Answer, AnswerSegment, Citation, Passage } from '../core/types.ts';
import { termsOf } from '../text/tokenize.ts';
import { splitSentences } from '../text/split-sentences.ts';
import { buildExtractiveAnswer, buildNotFoundAnswer, type TermStatistics } from './extractive-answer.ts';

/**
 * The whole-document answer without a model: quoted sentences from every section, in
 * document order, each cited. A summary quotes each section's first sentence (its topic sentence, as
 * documents are usually written), from evenly spaced sections when there are more than `maxSentences`; a
 * list, or a question asked with the toggle, quotes the sentences of each section that the extractive
 * answer would quote for the topic (`extractive-answer.ts`: the relevance rule, IDF weights), at most
 * `perSection` each.
 */

export interface WholeDocumentExtractOptions {
  /** 'summary': first sentences; otherwise the sentences about `topic`. */
  kind: 'summary' | 'list' | 'question';
  /** What to look for in each section ('' for a summary). */
  topic: string;
  /** Collection statistics for the relevance rule's IDF weights. */
  stats?: TermStatistics;
  /** Most sentences quoted. Default 12 for a summary, 30 otherwise; range 1–100. */
  maxSentences?: number;
  /** Most sentences quoted from one section (not for a summary). Default 2; range 1–5. */
  perSection?: number;
}

/** A section number opening a heading: "3.1.3 ", "10.2 ", "7. ". */
const SECTION_NUMBER = /^\d+(?:\.\d+)*\.?\s/u;
/** A numbered line with fewer content words than this is a heading ("6.3.1 What is an Interactive Shell?"). */
const HEADING_MAX_WORDS = 8;
/** A letter: numbers are not words of a statement ("3.1.3 Comments" has one word, not four terms). */
const LETTER = /\p{L}/u;

/**
 * A sentence that says something, not a bare heading: not a short numbered line, and it ends like a
 * sentence or has at least 4 content words.
 */
function isStatement(text: string): boolean {
  const t = text.trim();
  const words = termsOf(t).filter((w) => LETTER.test(w)).length;
  if (SECTION_NUMBER.test(t) && words < HEADING_MAX_WORDS) return false;
  return /[.!?。！？]["'”’)\]]?$/u.test(t) || words >= 4;
}

/** A sentence that starts in lower case continues one cut off before the section (a page break, a long block cut). */
const continues = (text: string) => {
  const first = text.trimStart()[0] ?? '';
  return first !== first.toUpperCase();
};

/** Indices of at most `max` of `n` items, evenly spaced, first and in order. */
function spread(n: number, max: number): number[] {
  if (n <= max) return Array.from({ length: n }, (_, i) => i);
  return Array.from({ length: max }, (_, i) => Math.floor((i * n) / max));
}

interface Quote {
  section: number;
  start: number;
  end: number;
}

/** Each chosen section's first statement (skipping headings, and a fragment that continues the section before). */
function firstSentences(sections: readonly Passage[], max: number): Quote[] {
  return spread(sections.length, max).flatMap((section) => {
    const window = sections[section]!.window;
    const statements = splitSentences(window).filter((r) => isStatement(window.slice(r.start, r.end)));
    // The topic sentence: the first that starts a sentence of its own, else the first statement.
    const first = statements.find((r) => !continues(window.slice(r.start, r.end))) ?? statements[0];
    return first ? [{ section, start: first.start, end: first.end }] : [];
  });
}

/** The sentences of each section the extractive answer quotes for the topic, in document order. */
function topicSentences(topic: string, sections: readonly Passage[], options: WholeDocumentExtractOptions): Quote[] {
  const out: Quote[] = [];
  const max = options.maxSentences ?? 30;
  for (const [section, p] of sections.entries()) {
    const found = buildExtractiveAnswer(topic, [p], { stats: options.stats, maxSentences: options.perSection ?? 2, minShareOfBest: 0 });
    const quotes = found.found ? found.citations[0]!.quotes : [];
    for (const q of quotes) out.push({ section, start: q.start, end: q.end });
    if (out.length >= max) return out.slice(0, max);
  }
  return out;
}

/**
 * The extractive whole-document answer: quotes in document order, cited [n] per section in order of first
 * use; not found (with the document's first sections as the closest passages) when no section has a
 * sentence for the topic.
 *
 * @example
 * buildWholeDocumentExtract('Summarise lease.md', sections, { kind: 'summary', topic: '' })
 * // → { found: true, segments: [{ text: 'This lease is made between …', cite: 1 }, { text: 'Rent is due …', cite: 2 }, …] }
 */
export function buildWholeDocumentExtract(question: string, sections: readonly Passage[], options: WholeDocumentExtractOptions): Answer {
  const summary = options.kind === 'summary' || !options.topic.trim();
  const quotes = summary ? firstSentences(sections, options.maxSentences ?? 12) : topicSentences(options.topic, sections, options);
  if (!quotes.length) return buildNotFoundAnswer(question, sections.slice(0, 5), { stats: options.stats });
  const numberOf = new Map<number, number>();
  const citations: Citation[] = [];
  const segments = quotes.map((q): AnswerSegment => {
    let n = numberOf.get(q.section);
    if (n === undefined) {
      n = citations.length + 1;
      numberOf.set(q.section, n);
      citations.push({ n, passage: sections[q.section]!, quotes: [], marks: [] });
    }
    citations[n - 1]!.quotes.push({ start: q.start, end: q.end });
    citations[n - 1]!.marks.push({ start: q.start, end: q.end });
    return { text: sections[q.section]!.window.slice(q.start, q.end), cite: n };
  });
  return { question, found: true, segments, citations };
}
