/**
 * The answer without a text generator when an embedding model is chosen: the extractive answer's
 * sentences, chosen by how close each is in meaning to the question (cosine of the model's vectors)
 * instead of by shared words, and "Not found in your documents." when none is close enough. A sentence is
 * read with its context (the label line above it, a table row with its column names), so "The default is
 * five minutes (5min)." under "checkpoint_timeout (integer)" answers "What is the default checkpoint
 * timeout?", and the row "timestamp … | 294276 AD" read as "High Value: 294276 AD" answers "What is the
 * highest timestamp?".
 *
 * The thresholds are calibrated (`npx tsx tools/calibrate-answer.ts --model <folder>`, see
 * docs/decisions/0014-extractive-answer-and-not-found.md): on SciFact's train claims and the
 * calibration split of the Debian manuals' questions (answerable), and on Python's FAQ questions asked
 * of SciFact and that split's unanswerable questions; never on the figures reported.
 */
import { headingOf } from '../core/block-label.ts';
import { DocQaError } from '../core/errors.ts';
import type { Answer, Passage } from '../core/types.ts';
import type { Answerer } from './answerer.ts';
import type { AnswerSentence, SentenceKind } from './answer-sentences.ts';
import { answerQuoting, buildExtractiveAnswer, rankSentences, type TermStatistics } from './extractive-answer.ts';
import { afterTheStatement, completedWithFigure, distinctBest, statesSomething, type RankedSentence } from './quote-choice.ts';

/** What the answer needs of an embedding model: the question's vector and passages' vectors (L2-normalised). */
export interface SentenceEncoder {
  /** The question's vector (with the model's query prefix). */
  embedQuery(text: string): Promise<Float32Array>;
  /** One vector per text, `texts.length × dims` floats in input order. */
  embedChunks(texts: readonly string[]): Promise<Float32Array>;
}

/**
 * Most sentences embedded for one question: the nearest to it by words, counting their context (about
 * 165 sentences are in five passages; in the browser a sentence takes ~10 ms on two threads).
 */
export const MAX_ENCODED_SENTENCES = 64;

/**
 * The relevance rule with a model: an answer quotes a sentence only if its relevance (cosine to the
 * question, less its kind's penalty, plus {@link LEXICAL_WEIGHT} × its word coverage) is at least this;
 * when none is, "Not found in your documents.". Calibrated for bge-small-en-v1.5 (see the module comment).
 */
export const MIN_SIMILARITY = 0.75;

/**
 * Taken from a label's or a line of code's similarity: a heading or a field name reads close to a
 * question about its subject, but the sentence under it states the fact.
 */
export const KIND_PENALTY: Readonly<Record<SentenceKind, number>> = { prose: 0, row: 0, code: 0.03, label: 0.05 };

/**
 * What the sentence's word coverage (the extractive answer's relevance figure, 0–1) adds to its
 * similarity: meaning and words together tell a question about something absent from one the documents
 * answer better than either alone ("How do I reset a sequence in Oracle Database?" reads close to
 * PostgreSQL's sequence functions, but "Oracle" is in none of them). Calibrated with MIN_SIMILARITY.
 */
export const LEXICAL_WEIGHT = 0.15;

/** A further sentence is quoted only if its relevance is within this of the best one's. */
export const SIMILARITY_MARGIN = 0.05;

/** Most sentences quoted (as the extractive answer). */
const MAX_QUOTES = 3;

/** A sentence with the model's figure. */
export interface EncodedSentence extends RankedSentence {
  /** Cosine similarity of the question and the sentence read with its context. */
  similarity: number;
  /** The similarity less the kind's penalty, plus {@link LEXICAL_WEIGHT} × the word coverage: what ranks and decides. */
  relevance: number;
}

/**
 * The text a sentence is embedded as: a table row as its cells named by their columns, after the
 * table's caption or the label above it; anything else after its label line or, under none, after its
 * passage's `heading` (`headingOf`). "This word is a contraction of the names of Debra and Ian Murdock,
 * who founded the project." answers "Who started the Debian project?" only when read under "How does one
 * pronounce Debian and what does this word mean?" (on the manuals with bge-small-en-v1.5: fact quoted 30
 * → 31 of 43, "Not found" 18 → 20 of 22).
 */
export function textToEncode(s: AnswerSentence, heading = ''): string {
  if (s.kind === 'row' && s.namedCells) {
    // The context's last line is the header, which the named cells already carry.
    const caption = s.context.split('\n').slice(0, -1).join('\n');
    return caption ? `${caption}\n${s.namedCells}` : s.namedCells;
  }
  const context = s.context || heading;
  return context ? `${context}\n${s.text}` : s.text;
}

const dot = (a: Float32Array, b: Float32Array, offset: number) => {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[offset + i]!;
  return sum;
};

/**
 * The sentences of `passages` that may answer, the {@link MAX_ENCODED_SENTENCES} nearest to the question
 * by words (their `prior`; then those of the chunks the search hit), each with its similarity to the
 * question, best first; with `ranked`, every sentence's word figures (reused by the not-found answer).
 */
export async function encodeSentences(question: string, passages: readonly Passage[], stats: TermStatistics | undefined, encoder: SentenceEncoder, lexicalWeight = LEXICAL_WEIGHT): Promise<{ encoded: EncodedSentence[]; ranked: RankedSentence[] }> {
  const ranked = rankSentences(question, passages, { stats });
  // Those that share words with the question (or their context does), nearest first; then the rest of
  // the chunks the search hit, which a dense search may find by meaning alone.
  const candidates = ranked
    .filter((s) => s.answers && (s.prior > 0 || s.inHit))
    .sort((a, b) => b.prior - a.prior || Number(b.inHit) - Number(a.inHit) || a.passage - b.passage || a.start - b.start)
    .slice(0, MAX_ENCODED_SENTENCES);
  if (candidates.length === 0) return { encoded: [], ranked };
  const [q, vectors] = await Promise.all([encoder.embedQuery(question), encoder.embedChunks(candidates.map((s) => textToEncode(s, headingOf(passages[s.passage]!.label))))]);
  if (q.length === 0 || vectors.length !== candidates.length * q.length) {
    throw new DocQaError('model-output-invalid', `encoder answer: ${vectors.length} floats for ${candidates.length} sentences of ${q.length} dimensions`);
  }
  const encoded = candidates.map((s, i): EncodedSentence => {
    const similarity = dot(q, vectors, i * q.length);
    if (!Number.isFinite(similarity)) throw new DocQaError('model-output-invalid', `encoder answer: the model gave a similarity of ${similarity}`);
    return { ...s, similarity, relevance: similarity - KIND_PENALTY[s.kind] + lexicalWeight * s.coverage };
  });
  encoded.sort((a, b) => b.relevance - a.relevance || a.passage - b.passage || a.start - b.start);
  return { encoded, ranked };
}

export interface EncoderAnswerOptions {
  /** The relevance rule's threshold. Default {@link MIN_SIMILARITY}; range −1–1. */
  minSimilarity?: number;
  /**
   * Longest wait for the sentences' vectors (the embed worker may be busy indexing) before the answer is
   * the extractive one, by words. Default 10 000 ms, as the question's vector waits; range ≥ 0.
   */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * The quoted answer by meaning ({@link encodeSentences}): the most relevant sentence that is not a label,
 * then up to {@link MAX_QUOTES} in all within {@link SIMILARITY_MARGIN} of it, never the same text twice,
 * the best followed by what completes it in its block (`completedInBlock`, as the answer by words does);
 * "not found" when that best is below `minSimilarity`.
 */
export async function buildEncoderAnswer(question: string, passages: readonly Passage[], stats: TermStatistics | undefined, encoder: SentenceEncoder, options: EncoderAnswerOptions = {}): Promise<Answer> {
  const { encoded, ranked } = await encodeSentences(question, passages, stats, encoder);
  const min = options.minSimilarity ?? MIN_SIMILARITY;
  // A label may follow the sentence that answers, never lead it nor answer alone.
  const best = encoded.find(statesSomething);
  const keep = (s: EncodedSentence) => s.relevance >= min && s.relevance >= best!.relevance - SIMILARITY_MARGIN;
  const chosen = best && best.relevance >= min ? distinctBest(afterTheStatement(encoded, best, (s) => s.relevance), MAX_QUOTES, keep) : [];
  return answerQuoting(question, passages, completedWithFigure<RankedSentence>(question, chosen, ranked, MAX_QUOTES), ranked);
}

/**
 * An {@link Answerer} quoting by meaning with `encoder` ({@link buildEncoderAnswer}); when the encoder
 * fails or takes longer than `options.timeoutMs`, the extractive answer by words.
 */
export function createEncoderAnswerer(encoder: SentenceEncoder, options: EncoderAnswerOptions = {}): Answerer {
  return {
    async answer(question, passages, stats) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
      });
      try {
        const byMeaning = buildEncoderAnswer(question, passages, stats, encoder, options);
        byMeaning.catch(() => undefined);
        const answer = await Promise.race([byMeaning, late]);
        if (answer) return answer;
      } catch (err) {
        console.warn('the answer by meaning failed; answering by words', err);
      } finally {
        clearTimeout(timer);
      }
      return buildExtractiveAnswer(question, passages, { stats });
    },
  };
}
