import type { Answer, AnswerSegment, Citation, Passage } from '../core/types.ts';
import { termsOf } from '../index/tokenize.ts';
import { splitSentences } from '../ingest/split-sentences.ts';

interface Sentence {
  start: number;
  end: number;
  score: number;
}

/** Scores sentences by the share of distinct question terms they contain (favouring the hit range). */
function scoreSentences(passage: Passage, queryTerms: Set<string>): Sentence[] {
  return splitSentences(passage.window).map(({ start, end }) => {
    const terms = new Set(termsOf(passage.window.slice(start, end)));
    let matched = 0;
    for (const t of queryTerms) if (terms.has(t)) matched++;
    const inHit = end > passage.hitStart && start < passage.hitEnd ? 0.25 : 0;
    return { start, end, score: queryTerms.size ? matched / queryTerms.size + (matched ? inHit : 0) : 0 };
  });
}

export interface ExtractiveOptions {
  /** Sentences marked per passage. Default 2; range 1–5. */
  marksPerPassage?: number;
}

/**
 * The answer used until the LLM stage exists: for each retrieved passage (best first), the sentence
 * that best matches the question, cited as [n]; the best sentences are marked in each passage.
 */
export function buildExtractiveAnswer(question: string, passages: readonly Passage[], options: ExtractiveOptions = {}): Answer {
  const queryTerms = new Set(termsOf(question));
  const citations: Citation[] = [];
  const segments: AnswerSegment[] = [];
  passages.forEach((passage, i) => {
    const n = i + 1;
    const ranked = scoreSentences(passage, queryTerms)
      .filter((s) => s.score > 0)
      .sort((a, b) => b.score - a.score || a.start - b.start);
    const fallback = { start: passage.hitStart, end: Math.min(passage.hitEnd, passage.hitStart + 300), score: 0 };
    const best = ranked.length ? ranked.slice(0, options.marksPerPassage ?? 2) : [fallback];
    const marks = best.map(({ start, end }) => ({ start, end })).sort((a, b) => a.start - b.start);
    citations.push({ n, passage, marks });
    const top = best[0]!;
    segments.push({ text: passage.window.slice(top.start, top.end), cite: n });
  });
  return { question, segments, citations };
}
