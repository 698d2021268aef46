/**
 * Calibration of the answer's relevance rule: for each question of a group (answerable or not, over an
 * indexed library), the figure the rule compares with its threshold, the best quotable sentence's: its
 * word coverage (the extractive answer's `minCoverage`) and, with a model, its relevance (similarity to
 * the question with `LEXICAL_WEIGHT` × coverage; `MIN_SIMILARITY`). A sweep then says, for each threshold, how many answerable questions would be
 * answered and how many unanswerable ones would be "Not found". `tools/calibrate-answer.ts` runs it.
 */
import type { SentenceEncoder } from '../generate/encoder-answer.ts';
import { encodeSentences, LEXICAL_WEIGHT } from '../generate/encoder-answer.ts';
import { rankSentences } from '../generate/extractive-answer.ts';
import { statesSomething } from '../generate/quote-choice.ts';
import { retrievePassages } from '../retrieve/retrieve.ts';
import { queryOf, type IndexedCollection } from './evaluate.ts';

/** Questions asked of one library, all answerable there or none. */
export interface CalibrationGroup {
  name: string;
  answerable: boolean;
  questions: readonly string[];
  indexed: IndexedCollection;
}

/** The best quotable sentence's figures for each question of a group. */
export interface GroupFigures {
  name: string;
  answerable: boolean;
  /** Word coverage of the best quotable sentence that is not a label (0 when none holds a content term). */
  coverage: number[];
  /** Relevance of the best sentence that is not a label, with a model; −1 when none was read. */
  similarity: number[];
  /** The best coverage at other context shares (`contextShare` → one figure per question). */
  coverageAt: Map<number, number[]>;
  /** The best relevance at other lexical weights (`LEXICAL_WEIGHT` → one figure per question), with a model. */
  similarityAt: Map<number, number[]>;
}

/**
 * Each question's best figures, asked as the eval asks (5 passages), with `encoder` when given;
 * `coverageAt` holds the best coverage for each context share asked for (`contextShares`).
 */
export async function groupFigures(group: CalibrationGroup, encoder?: SentenceEncoder, contextShares: readonly number[] = [], lexicalWeights: readonly number[] = []): Promise<GroupFigures> {
  const { indexed } = group;
  const coverage: number[] = [];
  const similarity: number[] = [];
  const coverageAt = new Map<number, number[]>(contextShares.map((c) => [c, []]));
  const similarityAt = new Map<number, number[]>(lexicalWeights.map((w) => [w, []]));
  const best = (question: string, passages: Parameters<typeof rankSentences>[1], contextShare?: number) =>
    Math.max(0, ...rankSentences(question, passages, { stats: indexed.lexical, contextShare }).filter((s) => s.answers && statesSomething(s)).map((s) => s.coverage));
  for (const question of group.questions) {
    const passages = await retrievePassages(indexed.search, indexed.source, queryOf(indexed, question), { k: 5, retrievers: indexed.retrievers });
    coverage.push(best(question, passages));
    for (const [share, list] of coverageAt) list.push(best(question, passages, share));
    if (!encoder) continue;
    const encoded = (await encodeSentences(question, passages, indexed.lexical, encoder)).encoded.filter(statesSomething);
    similarity.push(encoded[0]?.relevance ?? -1);
    for (const [w, list] of similarityAt) list.push(Math.max(-1, ...encoded.map((s) => s.relevance - LEXICAL_WEIGHT * s.coverage + w * s.coverage)));
  }
  return { name: group.name, answerable: group.answerable, coverage, similarity, coverageAt, similarityAt };
}

/** One threshold's outcome: each group's rate (answered for answerable groups, "Not found" for the others) and their mean. */
export interface SweepRow {
  threshold: number;
  rates: Record<string, number>;
  /** Mean of the groups' rates: every group weighs the same, whatever its size. */
  balanced: number;
}

const round = (x: number) => Math.round(x * 10_000) / 10_000;

/**
 * The groups' rates at each threshold of `grid`, best balanced first (ties: the lower threshold). A
 * question is answered at threshold t when its figure (`key`) is at least t and above 0 for coverage;
 * `other` picks the figures at another context share (coverage) or lexical weight (similarity).
 */
export function sweepThresholds(groups: readonly GroupFigures[], key: 'coverage' | 'similarity', grid: readonly number[], other?: number): SweepRow[] {
  return grid
    .map((threshold): SweepRow => {
      const rates: Record<string, number> = {};
      for (const g of groups) {
        const at = key === 'coverage' ? g.coverageAt : g.similarityAt;
        const figures = other === undefined ? g[key] : (at.get(other) ?? []);
        const answered = figures.filter((x) => x >= threshold && (key === 'similarity' || x > 0)).length;
        rates[g.name] = round((g.answerable ? answered : figures.length - answered) / Math.max(1, figures.length));
      }
      const values = Object.values(rates);
      return { threshold: round(threshold), rates, balanced: round(values.reduce((a, b) => a + b, 0) / Math.max(1, values.length)) };
    })
    .sort((a, b) => b.balanced - a.balanced || a.threshold - b.threshold);
}

/** `from`, `from + step`, … up to `to` (inclusive, rounded to 4 places). */
export function thresholdGrid(from: number, to: number, step: number): number[] {
  const out: number[] = [];
  for (let x = from; x <= to + step / 2; x += step) out.push(round(x));
  return out;
}
