import type { RemovedCitation, TextRange } from '../core/types.ts';
import { termsOf } from '../text/tokenize.ts';
import { splitSentences } from '../text/split-sentences.ts';
import type { ContextPassage } from './context.ts';
import type { TermStatistics } from './extractive-answer.ts';

/**
 * Checked citations: a model's `[n]` is trusted only when passage n was given to it and
 * holds enough of what the sentence says. Lexical: the share of the sentence's content terms (stemmed,
 * stop words out, `text/tokenize`) found in one sentence, or two adjacent ones, of the passage's kept
 * text, each term weighted by its IDF in the collection when statistics are given. Measured on SciFact (docs/decisions/0018-citation-checker.md).
 */

/**
 * Default share of a sentence's content terms (IDF-weighted with statistics) that one or two adjacent
 * sentences of a cited passage must hold to support it. Chosen on SciFact dev claims (decision 0018,
 * the citation checker): IDF-weighted, 0.4 accepts 81.2% of claims against their evidence abstracts and
 * 0% against random abstracts; 51% against each claim's nearest lexical neighbour.
 */
export const DEFAULT_MIN_SUPPORT = 0.4;

/**
 * Default share of a sentence's content terms one passage must hold for the checker to cite it where
 * the model cited nothing that holds (small models often write no `[n]` at all). Higher than
 * {@link DEFAULT_MIN_SUPPORT}: the checker searches every passage given, all on the question's topic,
 * where a model's own citation names one. Chosen on SciFact dev claims restated without citations
 * (decision 0018): at 0.6, 59 % of them are cited and 82 % of those citations are evidence documents
 * (0.5: 78 % and 75 %; 0.7: 34 % and 89 %).
 */
export const DEFAULT_ATTRIBUTE_AT = 0.6;

/** A sentence needs this many content terms to be cited by the checker: a fragment ("Other pets") matches too much. */
export const MIN_ATTRIBUTE_TERMS = 3;

/** A sentence of a model's answer with the citations written in it. */
export interface WrittenSentence {
  /** The sentence without its `[n]` marks (and the spaces before them). */
  text: string;
  /** Passage numbers cited, in the order written, each once. */
  cites: number[];
}

/**
 * `[1]`, `[1, 2]`, `[1; 3]`, `[2-4]`, `[Passage 1]`. Spaces are single and optional, and every repeat is
 * bounded, so no run of a model's (or a document's) text makes it backtrack (`regex-safety.test.ts`);
 * the spaces before a mark are trimmed off separately.
 */
const MARK = /\[ ?(?:passages? ?)?(\d{1,4}(?: ?(?:,|;|–|-|and) ?\d{1,4}){0,20}) ?\]/giu;

/** The numbers in a mark's list; a range "2-4" expands (when short: at most 10). */
function numbersOf(list: string): number[] {
  const out: number[] = [];
  for (const part of list.split(/ ?(?:,|;|and) ?/u)) {
    const [a, b] = part.split(/ ?[–-] ?/u).map(Number);
    if (b === undefined) out.push(a!);
    else if (b >= a! && b - a! <= 10) for (let n = a!; n <= b; n++) out.push(n);
    else out.push(a!, b);
  }
  return out;
}

/** The text without its `[n]` marks and the spaces before them, and where each mark was (an offset of that text). */
function takeMarksOut(text: string): { clean: string; marks: Array<{ at: number; numbers: number[] }> } {
  let clean = '';
  const marks: Array<{ at: number; numbers: number[] }> = [];
  let from = 0;
  for (const m of text.matchAll(MARK)) {
    clean += text.slice(from, m.index).trimEnd();
    marks.push({ at: clean.length, numbers: numbersOf(m[1]!) });
    from = m.index + m[0].length;
  }
  return { clean: clean + text.slice(from), marks };
}

/**
 * Document text with its own citation-like marks in parentheses ("… infections [1]." → "… infections (1).").
 * A paper's reference marks look like the prompt's `[n]`: a model copying such a sentence would cite
 * passage 1 without meaning to, and the checker could not tell it from a citation.
 */
export function disarmCitationMarks(text: string): string {
  return text.replace(MARK, (mark) => `(${mark.slice(1, -1)})`);
}

/** Text without its `[n]` marks ("Rent is due [1]." → "Rent is due."): an earlier answer quoted in a prompt. */
export function withoutCitationMarks(text: string): string {
  return takeMarksOut(text).clean;
}

/**
 * A model's answer as sentences, each with the `[n]` marks written in or right after it. A mark at the
 * start of a sentence ("… due monthly. [1] The deposit …") belongs to the sentence before it; marks are
 * taken out of the text ("due monthly [1]." → "due monthly.").
 *
 * @example
 * parseCitedSentences('Rent is due monthly [1]. The deposit is €500 [2][3].')
 * // → [{ text: 'Rent is due monthly.', cites: [1] }, { text: 'The deposit is €500.', cites: [2, 3] }]
 */
export function parseCitedSentences(answer: string): WrittenSentence[] {
  const { clean, marks } = takeMarksOut(answer);
  const sentences = splitSentences(clean);
  const out = sentences.map((s): WrittenSentence => ({ text: clean.slice(s.start, s.end), cites: [] }));
  for (const { at, numbers } of marks) {
    // The last sentence starting before the mark, else the first.
    let i = 0;
    while (i + 1 < sentences.length && sentences[i + 1]!.start < at) i++;
    const s = out[i];
    if (!s) continue;
    for (const n of numbers) if (!s.cites.includes(n)) s.cites.push(n);
  }
  return out;
}

/** A sentence's content terms and their weights: BM25's IDF with statistics (df at least 1), else 1 each. */
export function weightedTerms(text: string, stats?: TermStatistics): Map<string, number> {
  const terms = new Set(termsOf(text));
  const n = stats ? Math.max(1, stats.documentCount) : 0;
  return new Map(
    [...terms].map((t) => {
      if (!stats) return [t, 1];
      const df = Math.min(n, Math.max(1, stats.documentFrequency(t)));
      return [t, Math.log(1 + (n - df + 0.5) / (df + 0.5))];
    }),
  );
}

/** Share (0–1) of the weighted terms that `other` holds; 1 when there are none to check. */
export function overlapShare(terms: ReadonlyMap<string, number>, other: ReadonlySet<string>): number {
  let total = 0;
  let held = 0;
  for (const [t, w] of terms) {
    total += w;
    if (other.has(t)) held += w;
  }
  return total > 0 ? held / total : 1;
}

export interface CheckOptions {
  /** Share of the sentence's content terms a cited passage must hold. Default {@link DEFAULT_MIN_SUPPORT}; range 0–1. */
  minSupport?: number;
  /**
   * Share the best passage must hold to be cited for a sentence left without a citation that holds (the
   * citation is then `attributed`). Default {@link DEFAULT_ATTRIBUTE_AT}; above 1: never.
   */
  attributeAt?: number;
  /** Collection statistics for IDF weights (the lexical index). Default: every term weighs 1. */
  stats?: TermStatistics;
}

/** A citation that holds: passage `n` supports the sentence; `quote` is its best-matching sentence. */
export interface Support {
  /** The passage's number in the prompt. */
  n: number;
  /** Share of the sentence's content terms its best run of passage sentences holds. */
  share: number;
  /** That run (one sentence, or two adjacent ones, inside a kept range), as a range of `passage.window`. */
  quote: TextRange;
  /** Cited by the checker, not the model: the model wrote no citation here that holds. */
  attributed?: true;
}

export interface CheckedSentence {
  text: string;
  /** Citations that hold, in the order written. */
  support: Support[];
  /** Citations taken out, and why. */
  removed: RemovedCitation[];
  /**
   * No citation holds and the sentence says something (has content terms): shown marked. A sentence with
   * no content terms ("Yes.") and no citation is not marked: there is nothing to check.
   */
  unsupported: boolean;
}

/** Most consecutive passage sentences that together may support one sentence of the answer. */
export const SUPPORT_WINDOW = 2;

/** Where a passage supports a sentence best: consecutive sentences `[from, to)` and the share they hold. */
export interface BestSupport {
  share: number;
  from: number;
  to: number;
}

/**
 * The run of at most {@link SUPPORT_WINDOW} consecutive sentences (of one piece of text: `sentences` as
 * term sets, in order) holding the largest share of the weighted terms; the shortest such run, then the
 * earliest. A sentence of an answer often joins two adjacent sentences of its source; a longer run (a
 * whole passage) would hold the words of any sentence on its topic (see docs/decisions/0018-citation-checker.md).
 */
export function bestSupport(terms: ReadonlyMap<string, number>, sentences: ReadonlyArray<ReadonlySet<string>>): BestSupport {
  let best: BestSupport = { share: -1, from: 0, to: 0 };
  for (let from = 0; from < sentences.length; from++) {
    const union = new Set<string>();
    for (let to = from + 1; to <= Math.min(sentences.length, from + SUPPORT_WINDOW); to++) {
      for (const t of sentences[to - 1]!) union.add(t);
      const share = overlapShare(terms, union);
      if (share > best.share || (share === best.share && to - from < best.to - best.from)) best = { share, from, to };
    }
  }
  return best.share < 0 ? { share: 0, from: 0, to: 0 } : best;
}

/** A passage's kept sentences, as ranges of its window and term sets, one list per kept range. */
type PassageSentences = Array<Array<{ range: TextRange; terms: Set<string> }>>;

function sentencesOfPassage(p: ContextPassage): PassageSentences {
  return p.kept.map((r) => splitSentences(p.passage.window, r.start, r.end).map((range) => ({ range, terms: new Set(termsOf(p.passage.window.slice(range.start, range.end))) })));
}

/** The best support a passage gives a sentence, and the passage text it is in (a range of its window). */
function supportIn(terms: ReadonlyMap<string, number>, passage: PassageSentences): { share: number; quote?: TextRange } {
  let out: { share: number; quote?: TextRange } = { share: 0 };
  // Runs never cross an omission: kept ranges that are not adjacent are not one text.
  for (const piece of passage) {
    const best = bestSupport(terms, piece.map((s) => s.terms));
    if (best.to > best.from && (out.quote === undefined || best.share > out.share)) {
      out = { share: best.share, quote: { start: piece[best.from]!.range.start, end: piece[best.to - 1]!.range.end } };
    }
  }
  return out;
}

/**
 * Checks every sentence of a model's answer against the passages it was given: a `[n]` with no passage n
 * is removed ('no-such-passage'); one whose passage holds less than `minSupport` of the sentence's content
 * terms (in its best one or two adjacent sentences) is removed ('not-supported'). A sentence left with no
 * citation is cited to the passage that holds the most of it when that is at least `attributeAt`
 * (`attributed`), else it is `unsupported`. Each citation that holds names those sentences (for the
 * Source dialog).
 *
 * @example
 * checkCitations('Rent is due monthly [1]. Pets are welcome [9].', context.passages)
 * // → [{ text: 'Rent is due monthly.', support: [{ n: 1, … }], removed: [], unsupported: false },
 * //    { text: 'Pets are welcome.', support: [], removed: [{ n: 9, reason: 'no-such-passage', … }], unsupported: true }]
 */
export function checkCitations(answer: string, passages: readonly ContextPassage[], options: CheckOptions = {}): CheckedSentence[] {
  const min = options.minSupport ?? DEFAULT_MIN_SUPPORT;
  const attributeAt = options.attributeAt ?? DEFAULT_ATTRIBUTE_AT;
  const byN = new Map(passages.map((p) => [p.n, p]));
  const sentencesByN = new Map<number, PassageSentences>();
  const sentencesOf = (n: number) => {
    let s = sentencesByN.get(n);
    if (!s) sentencesByN.set(n, (s = sentencesOfPassage(byN.get(n)!)));
    return s;
  };
  return parseCitedSentences(answer).map(({ text, cites }): CheckedSentence => {
    const terms = weightedTerms(text, options.stats);
    const support: Support[] = [];
    const removed: RemovedCitation[] = [];
    for (const n of cites) {
      if (!byN.has(n)) {
        removed.push({ n, reason: 'no-such-passage', sentence: text });
        continue;
      }
      const { share, quote } = supportIn(terms, sentencesOf(n));
      if (quote && share >= min) support.push({ n, share, quote });
      else removed.push({ n, reason: 'not-supported', sentence: text });
    }
    if (support.length === 0 && terms.size >= MIN_ATTRIBUTE_TERMS && attributeAt <= 1) {
      let best: Support | undefined;
      for (const p of passages) {
        const { share, quote } = supportIn(terms, sentencesOf(p.n));
        if (quote && share >= attributeAt && (!best || share > best.share)) best = { n: p.n, share, quote, attributed: true };
      }
      if (best) support.push(best);
    }
    return { text, support, removed, unsupported: support.length === 0 && terms.size > 0 };
  });
}
