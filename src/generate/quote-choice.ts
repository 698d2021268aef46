/**
 * Which of the ranked sentences an answer quotes, and what completes the first: shared by the answer by
 * words (`extractive-answer.ts`) and the answer by meaning (`encoder-answer.ts`), which rank sentences
 * differently and choose from them alike.
 */
import { antecedentOf, paragraphOf, restOfBlock, sectionOf, startOfBlock, type AnswerSentence } from './answer-sentences.ts';
import { asksForQuantity, holdsQuantity } from './quantity.ts';

/** A quotable piece of a passage with the figures the answer decides by. */
export interface RankedSentence extends AnswerSentence {
  /**
   * The relevance rule's figure, 0–1: the share of the question's distinct content terms the sentence
   * holds (those only in its context at `CONTEXT_SHARE`, `extractive-answer.ts`), IDF-weighted when the weights come from
   * the collection; 0 when the sentence itself holds none of them.
   */
  coverage: number;
  /**
   * What ranks sentences: the coverage times the kind's weight (`KIND_WEIGHT`), plus the bonus inside
   * the hit chunk and, when the question asks for a quantity, for holding one (`QUANTITY_BONUS`).
   */
  score: number;
  /**
   * The IDF-weighted share of the question's content terms in the sentence and its context (those only in
   * the context at `CONTEXT_SHARE`), also when the sentence itself holds none: how near the
   * question it is at all, which picks the sentences a model reads (`createEncoderAnswerer`).
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
