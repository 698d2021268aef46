import type { Answer, AnswerSegment, Citation, Passage, TextRange } from '../core/types.ts';
import { termsOf } from '../text/tokenize.ts';
import { splitSentences } from '../text/split-sentences.ts';

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
 * Words that ask rather than say what is asked about; English function words Lucene's stop list keeps.
 * They are dropped from the question's content terms (a document rarely repeats "how" or "does"), unless
 * nothing else is left.
 */
const QUESTION_WORDS = new Set(
  termsOf(
    'what whats when where which who whom whose why how many much do does did done can could should would shall may might '
      + 'must has have had having been being am were i me my you your we our us tell show give find explain describe list',
  ),
);

interface ScoredSentence {
  passage: number;
  start: number;
  end: number;
  /**
   * Share of the question's distinct content terms the sentence contains, 0–1, IDF-weighted when the
   * weights come from the collection (the relevance rule).
   */
  coverage: number;
  /** Share of their IDF weight, plus the bonus inside the hit chunk: what ranks sentences. */
  score: number;
  /**
   * Whether it is a sentence that can answer: it ends like a sentence or says something besides the
   * question's own terms (a heading such as "Security deposit" does neither).
   */
  answers: boolean;
}

/** The question's content terms: its index terms without question words (all of them if nothing else is left). */
export function contentTermsOf(question: string): string[] {
  const terms = [...new Set(termsOf(question))];
  const content = terms.filter((t) => !QUESTION_WORDS.has(t));
  return content.length ? content : terms;
}

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

function scoreSentences(passages: readonly Passage[], weights: ReadonlyMap<string, number>, questionTerms: ReadonlySet<string>, weightedRule: boolean): ScoredSentence[] {
  const total = [...weights.values()].reduce((a, b) => a + b, 0);
  const out: ScoredSentence[] = [];
  passages.forEach((p, passage) => {
    for (const { start, end } of splitSentences(p.window)) {
      const text = p.window.slice(start, end);
      const terms = new Set(termsOf(text));
      let matched = 0;
      let weight = 0;
      for (const [t, w] of weights) {
        if (!terms.has(t)) continue;
        matched++;
        weight += w;
      }
      const inHit = end > p.hitStart && start < p.hitEnd;
      const score = total > 0 ? weight / total + (matched && inHit ? HIT_BONUS : 0) : 0;
      // A question in the text (an FAQ's heading, a table of contents entry) asks, it does not answer.
      const terminator = terminatorOf(text);
      const answers = !QUESTION_MARKS.has(terminator) && (terminator !== '' || [...terms].some((t) => !questionTerms.has(t)));
      const coverage = weightedRule ? (total > 0 ? weight / total : 0) : weights.size ? matched / weights.size : 0;
      out.push({ passage, start, end, coverage, score, answers });
    }
  });
  // Best first; ties go to the better-ranked passage, then to the earlier sentence.
  return out.sort((a, b) => b.score - a.score || a.passage - b.passage || a.start - b.start);
}

/** The text two quotes must not share: case, spacing and punctuation do not make a sentence new. */
function sameTextKey(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}

/**
 * The sentences to quote, from any passage: those that clear the relevance rule (`minCoverage`) and are
 * not a heading that only repeats the question, best first, at most `maxSentences`, each scoring at least
 * `minShareOfBest` of the best, never the same text twice.
 */
function chooseSentences(ranked: readonly ScoredSentence[], passages: readonly Passage[], options: ExtractiveOptions): ScoredSentence[] {
  const quotable = ranked.filter((s) => s.answers && s.coverage > 0 && s.coverage >= (options.minCoverage ?? 0.5));
  const best = quotable[0];
  if (!best) return [];
  const max = options.maxSentences ?? 3;
  const floor = best.score * (options.minShareOfBest ?? 0.6);
  const seen = new Set<string>();
  const chosen: ScoredSentence[] = [];
  for (const s of quotable) {
    if (chosen.length >= max || s.score < floor) break;
    const key = sameTextKey(passages[s.passage]!.window.slice(s.start, s.end));
    if (seen.has(key)) continue;
    seen.add(key);
    chosen.push(s);
  }
  return chosen;
}

const rangeOf = ({ start, end }: TextRange): TextRange => ({ start, end });
const byStart = (a: TextRange, b: TextRange) => a.start - b.start;

/** "Not found": every passage as a closest passage, its best partial match marked, nothing quoted. */
function notFound(question: string, passages: readonly Passage[], ranked: readonly ScoredSentence[]): Answer {
  const citations = passages.map((passage, i): Citation => {
    const best = ranked.find((s) => s.passage === i && s.coverage > 0);
    return { n: i + 1, passage, quotes: [], marks: best ? [rangeOf(best)] : [] };
  });
  return { question, found: false, segments: [], citations };
}

function rankSentences(question: string, passages: readonly Passage[], options: ExtractiveOptions): ScoredSentence[] {
  const passageTerms = passages.map((p) => new Set(termsOf(p.window)));
  return scoreSentences(passages, weightsOf(contentTermsOf(question), passageTerms, options.stats), new Set(termsOf(question)), Boolean(options.stats));
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
  const chosen = chooseSentences(ranked, passages, options);
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
    return { text: passages[s.passage]!.window.slice(s.start, s.end), cite: n };
  });
  for (const c of citations) {
    c.quotes.sort(byStart);
    c.marks = c.quotes.map(rangeOf);
  }
  return { question, found: true, segments, citations };
}
