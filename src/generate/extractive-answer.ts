import { headingOf } from '../core/block-label.ts';
import { DOT_LEADER } from '../core/table-cells.ts';
import type { Answer, AnswerSegment, Citation, Passage, TextRange } from '../core/types.ts';
import { termsOf } from '../text/tokenize.ts';
import { answerSentences, blockStarts, type AnswerSentence, type SentenceKind } from './answer-sentences.ts';
import { afterTheStatement, completedWithFigure, distinctBest, statesSomething, type RankedSentence } from './quote-choice.ts';
import { contentTermsOf, unitsOf, type Matchable } from './question-units.ts';
import { asksForQuantity, holdsQuantity } from './quantity.ts';

/**
 * How common a term is in the collection, for IDF weights. An index that can count may implement it; without
 * one the answer counts the retrieved passages instead.
 */
export interface TermStatistics {
  /** Units counted (chunks, documents), at least 1. */
  readonly documentCount: number;
  /** Units that contain the processed term (as `termsOf` returns it). */
  documentFrequency(term: string): number;
}

export interface ExtractiveOptions {
  /** Most sentences quoted. Default 3; range 1–5. */
  maxSentences?: number;
  /**
   * A further sentence is quoted only if its score is at least this share of the best one's, so a weak
   * match never trails a strong one. Default 0.6; range 0–1.
   */
  minShareOfBest?: number;
  /**
   * The relevance rule: a sentence may be quoted only if it contains at least this share of the question's
   * distinct content terms, weighted by their IDF in the collection when `stats` is given (unweighted
   * without it); when none does, the answer is "not found". Default 0.5; range 0–1.
   */
  minCoverage?: number;
  /** What a question term found only in a passage's heading counts. Default {@link CONTEXT_SHARE}; range 0–1. */
  contextShare?: number;
  /** What a question term found only in a sentence's label line counts. Default {@link LABEL_SHARE}; range 0–1. */
  labelShare?: number;
  /**
   * Collection statistics (the index) for the IDF weights and the relevance rule. Default: document
   * frequency within the retrieved passages, which ranks sentences but is too noisy to weigh the rule by
   * (five passages), so without `stats` the rule counts terms unweighted.
   */
  stats?: TermStatistics;
}

const TERMINAL = /^\p{Sentence_Terminal}$/u;
const CLOSING = /^[\p{Pe}\p{Pf}"']$/u;

/** The sentence terminator the text ends with, before closing quotes or brackets; '' when none. */
function terminatorOf(text: string): string {
  let i = text.length - 1;
  while (i >= 0 && CLOSING.test(text[i]!)) i--;
  return i >= 0 && TERMINAL.test(text[i]!) ? text[i]! : '';
}

/** Question marks: ASCII, full-width (CJK), Arabic, reversed. */
const QUESTION_MARKS = new Set(['?', '？', '؟', '⸮']);

/** Bonus for a sentence inside the chunk the index hit (the passage is the rest of its parent window). */
const HIT_BONUS = 0.1;

/**
 * Bonus for a sentence holding a quantity (a number, a number word) when the question asks for one ("How
 * many…", "How long…", "What is the maximum…"): of the sentences that name its subject, the one stating
 * the figure answers ("The default is 1 GB." rather than "This is a soft limit; WAL size can exceed
 * max_wal_size…").
 */
export const QUANTITY_BONUS = 0.1;

/**
 * A question term found only in the passage's heading (the section a sentence stands in) counts this much
 * of its weight: the section names what its sentences are about, but less surely than a sentence naming it.
 */
export const CONTEXT_SHARE = 0.5;

/**
 * A question term found only in a sentence's label line (the term or field name it stands under, its
 * table's header) counts this much of its weight: the sentence under "checkpoint_timeout (integer)" that
 * says "The default is five minutes" describes that very setting, as a definition describes its term.
 * On the manuals, 1 rather than {@link CONTEXT_SHARE} quoted the fact for 5 more of 43 questions and 1
 * fewer, with "Not found" unchanged there and on the calibration split.
 */
export const LABEL_SHARE = 1;

/**
 * For ranking only, a question unit held elsewhere in a sentence's block (another sentence under the
 * same label, {@link blockStarts}), or held by the sentence and repeated by its label, adds this
 * share of its weight: of two sentences naming "max_wal_size", the one in the block under
 * "max_wal_size (integer)" that also says "The default is 1 GB." answers "What is the default
 * max_wal_size?", not the one under "checkpoint_warning (integer)". Small, so that a sentence holding
 * more of the question itself still ranks first; chosen on the calibration split (0.1 to 0.3 alike).
 */
export const BLOCK_SHARE = 0.2;

/**
 * What a piece of each kind is worth against a sentence of prose when ranking: a label (heading, field
 * name, caption) or a line of code names a subject or shows an example, the sentence under it states the
 * fact, so it is quoted only when no sentence does better. Table rows are facts as they stand.
 */
export const KIND_WEIGHT: Readonly<Record<SentenceKind, number>> = { prose: 1, row: 1, code: 0.5, label: 0.5 };

/**
 * BM25's IDF (always positive) for each term, from `stats` or, without it, from the retrieved passages: a
 * term in every passage weighs little, a rare one (or one in none of them: the question asks about
 * something they do not say) weighs most.
 */
function weightsOf(terms: readonly string[], passageTerms: ReadonlyArray<ReadonlySet<string>>, stats?: TermStatistics): Map<string, number> {
  const n = stats ? Math.max(1, stats.documentCount) : passageTerms.length;
  // A word no chunk holds weighs as the rarest word some chunk holds: it is as often a variant the stemmer
  // does not join ("short" asked, "shorter" written; "march" typed for "marché") as an absent subject,
  // and in a small library the full weight of an absent word would outweigh all the others.
  const df = (t: string) => (stats ? Math.max(1, stats.documentFrequency(t)) : passageTerms.filter((p) => p.has(t)).length);
  return new Map(terms.map((t) => [t, Math.log(1 + (n - df(t) + 0.5) / (df(t) + 0.5))]));
}

/** What a question unit counts when only a sentence's surroundings hold it: its label line, or its passage's heading. */
interface ContextShares {
  label: number;
  heading: number;
}

function scoreSentences(passages: readonly Passage[], weights: ReadonlyMap<string, number>, question: string, weightedRule: boolean, shares: ContextShares): RankedSentence[] {
  const questionTerms = new Set(termsOf(question));
  const wantsQuantity = asksForQuantity(question);
  const units = unitsOf(question, weights);
  const total = units.reduce((a, u) => a + u.weight, 0);
  const headings = passages.map((p) => headingOf(p.label));
  const sentences = answerSentences(passages);
  const matchable = (text: string): Matchable => ({ terms: new Set(termsOf(text)), text: text.toLowerCase() });
  const matched = sentences.map((s) => {
    const sentence = matchable(s.text);
    const label = matchable(s.context);
    const heading = matchable(headings[s.passage]!);
    const holds = new Set<number>();
    // Units only the surroundings hold, with the share each counts.
    const nearby = new Map<number, number>();
    const repeated = new Set<number>();
    units.forEach((u, i) => {
      const own = u.holds(sentence);
      const inLabel = u.holds(label);
      const inContext = inLabel || u.holds(heading);
      if (own) holds.add(i);
      else if (inContext) nearby.set(i, inLabel ? shares.label : shares.heading);
      if (own && inContext) repeated.add(i);
    });
    return { terms: sentence.terms, holds, nearby, repeated };
  });
  // What the other sentences of each block hold: a sentence is read with its block, for ranking only.
  const starts = blockStarts(sentences);
  const inBlock = new Map<number, Set<number>>();
  matched.forEach((m, i) => {
    const block = inBlock.get(starts[i]!) ?? new Set<number>();
    for (const u of m.holds) block.add(u);
    inBlock.set(starts[i]!, block);
  });
  const weightOf = (set: Iterable<number>) => [...set].reduce((sum, u) => sum + units[u]!.weight, 0);
  return sentences.map((s, i): RankedSentence => {
    const { terms, holds, nearby, repeated } = matched[i]!;
    const block = [...inBlock.get(starts[i]!)!].filter((u) => !holds.has(u) && !nearby.has(u));
    const near = [...nearby].reduce((sum, [u, share]) => sum + share * units[u]!.weight, 0);
    const weighted = total > 0 ? (weightOf(holds) + near) / total : 0;
    const counted = units.length ? (holds.size + [...nearby.values()].reduce((a, b) => a + b, 0)) / units.length : 0;
    const coverage = holds.size === 0 ? 0 : weightedRule ? weighted : counted;
    const withBlock = total > 0 ? weighted + (BLOCK_SHARE * (weightOf(block) + weightOf(repeated))) / total : 0;
    const bonus = (s.inHit ? HIT_BONUS : 0) + (wantsQuantity && holdsQuantity(s.text) ? QUANTITY_BONUS : 0);
    const score = holds.size === 0 ? 0 : withBlock * KIND_WEIGHT[s.kind] + bonus;
    // A question in the text (an FAQ's heading, a table of contents entry) asks, it does not answer.
    const terminator = terminatorOf(s.text);
    const answers = !QUESTION_MARKS.has(terminator) && (terminator !== '' || [...terms].some((t) => !questionTerms.has(t))) && !DOT_LEADER.test(s.text);
    return { ...s, coverage, score, prior: weighted, answers, holds };
  });
}

/** Best first; ties go to the better-ranked passage, then to the earlier sentence. */
const byScore = (a: RankedSentence, b: RankedSentence) => b.score - a.score || a.passage - b.passage || a.start - b.start;

/**
 * The sentences to quote, from any passage: those that clear the relevance rule (`minCoverage`) and are
 * not a heading that only repeats the question, best first, at most `maxSentences`, each scoring at least
 * `minShareOfBest` of the best that is not a label, never the same text twice; none when only labels clear it.
 * The best is followed by what completes it in its block (`completedInBlock`, `quote-choice.ts`).
 */
function chooseSentences(question: string, ranked: readonly RankedSentence[], options: ExtractiveOptions): RankedSentence[] {
  const quotable = ranked.filter((s) => s.answers && s.coverage > 0 && s.coverage >= (options.minCoverage ?? 0.5));
  const best = quotable.find(statesSomething);
  if (!best) return [];
  const floor = best.score * (options.minShareOfBest ?? 0.6);
  const chosen = distinctBest(afterTheStatement(quotable, best, (s) => s.score), options.maxSentences ?? 3, (s) => s.score >= floor);
  return completedWithFigure(question, chosen, ranked, options.maxSentences ?? 3);
}

const rangeOf = ({ start, end }: TextRange): TextRange => ({ start, end });
const byStart = (a: TextRange, b: TextRange) => a.start - b.start;

/** "Not found": every passage as a closest passage, its best partial match marked, nothing quoted. */
function notFound(question: string, passages: readonly Passage[], ranked: readonly RankedSentence[]): Answer {
  const citations = passages.map((passage, i): Citation => {
    const best = ranked.find((s) => s.passage === i && s.coverage > 0);
    return { n: i + 1, passage, quotes: [], marks: best ? [rangeOf(best)] : [] };
  });
  return { question, found: false, segments: [], citations };
}

/**
 * Every quotable piece of the passages ({@link answerSentences}) with its coverage, score and whether it
 * can answer, best first: what the extractive answer chooses from, exported for the calibration of its
 * relevance rule (`tools/calibrate-answer.ts`).
 */
export function rankSentences(question: string, passages: readonly Passage[], options: Pick<ExtractiveOptions, 'stats' | 'contextShare' | 'labelShare'> = {}): RankedSentence[] {
  const passageTerms = passages.map((p) => new Set(termsOf(p.window)));
  const weights = weightsOf(contentTermsOf(question), passageTerms, options.stats);
  const shares = { label: options.labelShare ?? LABEL_SHARE, heading: options.contextShare ?? CONTEXT_SHARE };
  return scoreSentences(passages, weights, question, Boolean(options.stats), shares).sort(byScore);
}

/**
 * "Not found in your documents." as the extractive answer gives it: every passage a closest passage
 * (numbered in retrieval order), its best partial match marked, nothing cited. Also used when a model
 * finds no answer.
 */
export function buildNotFoundAnswer(question: string, passages: readonly Passage[], options: ExtractiveOptions = {}): Answer {
  return notFound(question, passages, rankSentences(question, passages, options));
}

/**
 * The answer used until the LLM stage exists: the best sentences across all retrieved passages, in order
 * of relevance, each cited [n]. Citations are numbered in order of first use and carry the exact quoted
 * ranges; a passage two quotes come from has one number. A sentence can be quoted only if it contains at
 * least half (`minCoverage`) of the question's content terms, weighted by their IDF in the collection
 * (`stats`; unweighted without it), and is not a heading or label that only
 * repeats the question's words; when none can, the answer is not found and its citations are the closest
 * passages, which it does not cite.
 *
 * Quotable sentences are ranked by the IDF-weighted share of the question's content terms they contain,
 * plus a small bonus inside the chunk the index hit.
 *
 * @example
 * buildExtractiveAnswer('When is the rent due?', passages)
 * // → { found: true, segments: [{ text: 'Rent is due on the first day of each month.', cite: 1 }], … }
 */
export function buildExtractiveAnswer(question: string, passages: readonly Passage[], options: ExtractiveOptions = {}): Answer {
  const ranked = rankSentences(question, passages, options);
  return answerQuoting(question, passages, chooseSentences(question, ranked, options), ranked);
}

/**
 * The answer quoting `chosen` (pieces of `passages`, in the order given), each cited [n]: citations are
 * numbered in order of first use and carry the exact quoted ranges; a passage two quotes come from has
 * one number. Nothing chosen: "not found", the passages as closest ones with their best partial match
 * in `ranked` marked.
 */
export function answerQuoting(question: string, passages: readonly Passage[], chosen: readonly AnswerSentence[], ranked: readonly RankedSentence[]): Answer {
  if (chosen.length === 0) return notFound(question, passages, ranked);
  const numberOf = new Map<number, number>();
  const citations: Citation[] = [];
  const segments: AnswerSegment[] = chosen.map((s) => {
    let n = numberOf.get(s.passage);
    if (n === undefined) {
      n = citations.length + 1;
      numberOf.set(s.passage, n);
      citations.push({ n, passage: passages[s.passage]!, quotes: [], marks: [] });
    }
    citations[n - 1]!.quotes.push(rangeOf(s));
    const code = s.kind === 'code' || (passages[s.passage]!.code ?? []).some((c) => c.start <= s.start && s.end <= c.end);
    return code ? { text: s.text, cite: n, code } : { text: s.text, cite: n };
  });
  for (const c of citations) {
    c.quotes.sort(byStart);
    c.marks = c.quotes.map(rangeOf);
  }
  return { question, found: true, segments, citations };
}
