import { headingOf } from '../core/block-label.ts';
import type { Answer, AnswerSegment, Citation, Passage, TextRange } from '../core/types.ts';
import { termsOf } from '../text/tokenize.ts';
import { answerSentences, antecedentOf, blockStarts, paragraphOf, restOfBlock, sectionOf, startOfBlock, type AnswerSentence, type SentenceKind } from './answer-sentences.ts';
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

/**
 * Dot leaders ("1.21 Shell glob patterns . . . . . 27"): a line of a table of contents or of a list of
 * tables, which names a section and states nothing.
 */
const LEADERS = /(?:\.\s?){5}/u;

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

/** A quotable piece of a passage with the figures the answer decides by. */
export interface RankedSentence extends AnswerSentence {
  /**
   * The relevance rule's figure, 0–1: the share of the question's distinct content terms the sentence
   * holds (those only in its context at {@link CONTEXT_SHARE}), IDF-weighted when the weights come from
   * the collection; 0 when the sentence itself holds none of them.
   */
  coverage: number;
  /**
   * What ranks sentences: the coverage times the kind's weight ({@link KIND_WEIGHT}), plus the bonus inside
   * the hit chunk and, when the question asks for a quantity, for holding one ({@link QUANTITY_BONUS}).
   */
  score: number;
  /**
   * The IDF-weighted share of the question's content terms in the sentence and its context (those only in
   * the context at {@link CONTEXT_SHARE}), also when the sentence itself holds none: how near the
   * question it is at all, which picks the sentences a model reads ({@link createEncoderAnswerer}).
   */
  prior: number;
  /**
   * Whether it is a sentence that can answer: not a question nor a contents line (dot leaders), and it ends
   * like a sentence or says something besides the question's own terms (a heading such as "Security
   * deposit" does neither).
   */
  answers: boolean;
  /** Which of the question's units (its content terms, an identifier as one) the sentence itself holds, by their order. */
  holds: ReadonlySet<number>;
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
    const answers = !QUESTION_MARKS.has(terminator) && (terminator !== '' || [...terms].some((t) => !questionTerms.has(t))) && !LEADERS.test(s.text);
    return { ...s, coverage, score, prior: weighted, answers, holds };
  });
}

/** Best first; ties go to the better-ranked passage, then to the earlier sentence. */
const byScore = (a: RankedSentence, b: RankedSentence) => b.score - a.score || a.passage - b.passage || a.start - b.start;

/** The text two quotes must not share: case, spacing and punctuation do not make a sentence new. */
function sameTextKey(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}

/**
 * The first `max` of `ranked` (best first) for which `keep` holds, never the same text twice (compared
 * without case, spacing or punctuation, also across passages); stops at the first one `keep` refuses.
 */
export function distinctBest<T extends AnswerSentence>(ranked: readonly T[], max: number, keep: (s: T) => boolean): T[] {
  const seen = new Set<string>();
  const chosen: T[] = [];
  for (const s of ranked) {
    if (chosen.length >= max || !keep(s)) break;
    const key = sameTextKey(s.text);
    if (seen.has(key)) continue;
    seen.add(key);
    chosen.push(s);
  }
  return chosen;
}

/**
 * The sentences to quote, from any passage: those that clear the relevance rule (`minCoverage`) and are
 * not a heading that only repeats the question, best first, at most `maxSentences`, each scoring at least
 * `minShareOfBest` of the best that is not a label, never the same text twice; none when only labels clear it.
 * The best is followed by what completes it in its block ({@link completedInBlock}).
 */
function chooseSentences(question: string, ranked: readonly RankedSentence[], options: ExtractiveOptions): RankedSentence[] {
  const quotable = ranked.filter((s) => s.answers && s.coverage > 0 && s.coverage >= (options.minCoverage ?? 0.5));
  const best = quotable.find(statesSomething);
  if (!best) return [];
  const floor = best.score * (options.minShareOfBest ?? 0.6);
  const chosen = distinctBest(afterTheStatement(quotable, best, (s) => s.score), options.maxSentences ?? 3, (s) => s.score >= floor);
  return completedWithFigure(question, chosen, ranked, options.maxSentences ?? 3);
}

/**
 * `chosen` (best first) with, right after its first sentence, the first sentence after that one in its
 * block ({@link restOfBlock}) that holds a question unit the first lacks, or a figure when the question
 * asks for a quantity and the first states none (a figure in another passage's quote says nothing of
 * this subject): "Specifies the minimum delay between autovacuum runs on any given database." then "The
 * default is one minute (1min)."; when no figure comes after it, the nearest before it in its block
 * ({@link startOfBlock}), or, under no label line, in its paragraph ({@link paragraphOf}). A first
 * sentence ending in a colon is followed by what it introduces, which reads as its end and takes no
 * quote's place ({@link introducedBy}). A first sentence that points back ("It is affectionately known
 * as…", {@link antecedentOf}) comes after the sentence it points at. At most `max` in all, more only to keep
 * those together. Shared by the answer by words and the answer by meaning.
 */
export function completedInBlock<T extends RankedSentence>(question: string, chosen: readonly T[], ranked: readonly T[], max: number): T[] {
  const best = chosen[0];
  if (!best) return [];
  const rest = restOfBlock(best, ranked);
  const wantsFigure = asksForQuantity(question) && !holdsQuantity(best.text);
  const completes = rest.find((s) => s.answers && ([...s.holds].some((u) => !best.holds.has(u)) || (wantsFigure && holdsQuantity(s.text))));
  // No figure after it: the nearest one before it in its block ("The default value is 4MB." comes first
  // there); under no label line (a Markdown section), in its paragraph, after it first.
  // Under no label, and nothing in the paragraph: the nearest figure in its section that names something asked.
  const statesFigure = (s: T) => s.answers && holdsQuantity(s.text);
  const figureNear = () =>
    best.context ? startOfBlock(best, ranked).find(statesFigure) : (paragraphOf(best, ranked).find(statesFigure) ?? sectionOf(best, ranked).find((s) => statesFigure(s) && s.holds.size > 0));
  const figure = wantsFigure && !(completes && holdsQuantity(completes.text)) ? figureNear() : undefined;
  // A best sentence that points back ("It is affectionately known as…") is quoted after the one it points at.
  const antecedent = antecedentOf(best, ranked);
  // What the best introduces with a colon reads as its end, so it does not take a quote's place.
  const introduced = introducedBy(best, ranked);
  const lead = [antecedent, best, introduced, completes, figure].filter((s, i, all): s is T => s !== undefined && all.findIndex((o) => o && sameSentence(o, s)) === i);
  // Right after the sentence it completes, also when it was chosen anyway.
  return [...lead, ...chosen.filter((s) => !lead.some((l) => sameSentence(s, l)))].slice(0, Math.max(max + (introduced ? 1 : 0), lead.length));
}

const sameSentence = (a: AnswerSentence, b: AnswerSentence) => a.passage === b.passage && a.start === b.start;

/**
 * {@link completedInBlock} for a question that asks for a quantity: when the best sentence's completion
 * states no figure, the completion led by the first of the other `chosen` (all close enough to quote)
 * whose completion does. "How many concurrent connections does PostgreSQL allow by default?" is answered
 * by "Determines the maximum number of concurrent connections…" with "The default is typically 100
 * connections…" from its block, not by a sentence about processes per connection that states no number.
 */
export function completedWithFigure<T extends RankedSentence>(question: string, chosen: readonly T[], ranked: readonly T[], max: number): T[] {
  const first = completedInBlock(question, chosen, ranked, max);
  if (!asksForQuantity(question) || first.some((s) => holdsQuantity(s.text))) return first;
  for (const lead of chosen.slice(1)) {
    const led = completedInBlock(question, [lead, ...chosen.filter((s) => s !== lead)], ranked, max);
    if (led.some((s) => holdsQuantity(s.text))) return led;
  }
  return first;
}

/**
 * What a sentence ending in a colon introduces: the piece right after it in its passage ("…run the venv
 * module as a script with the directory path:" then "python3 -m venv /path/to/new/virtual/environment").
 * Quoted alone, such a sentence stops where the answer starts.
 */
function introducedBy<T extends AnswerSentence>(s: AnswerSentence, sentences: readonly T[]): T | undefined {
  if (!s.text.trimEnd().endsWith(':')) return undefined;
  let next: T | undefined;
  for (const o of sentences) if (o.passage === s.passage && o.start >= s.end && (!next || o.start < next.start)) next = o;
  return next;
}

/**
 * A label (heading, field name, caption) states nothing: an answer needs a sentence, a row or a line of
 * code that clears the relevance rule, and "--word-diff[=<mode>]" alone does not answer a question about
 * Word's dark mode.
 */
export const statesSomething = (s: AnswerSentence) => s.kind !== 'label';

/** `ranked` without the labels ranked above `best`: a label may follow the sentence that answers, never lead it. */
export function afterTheStatement<T extends AnswerSentence>(ranked: readonly T[], best: T, figure: (s: T) => number): T[] {
  return ranked.filter((s) => statesSomething(s) || figure(s) <= figure(best));
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
