/**
 * Calibration of the answer's relevance rule: for each question of a group (answerable or not, over an
 * indexed library), the figure the rule compares with its threshold, the best quotable sentence's: its
 * word coverage (the extractive answer's `minCoverage`) and, with a model, its similarity to the question
 * (`MIN_SIMILARITY`). A sweep then says, for each threshold, how many answerable questions would be
 * answered and how many unanswerable ones would be "Not found". `tools/calibrate-answer.ts` runs it.
 */
import type { SentenceEncoder } from '../generate/encoder-answer.ts';
import { encodeSentences } from '../generate/encoder-answer.ts';
import { rankSentences } from '../generate/extractive-answer.ts';
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
  /** Word coverage of the best quotable sentence (0 when none holds a content term). */
  coverage: number[];
  /** Similarity (less the kind's penalty) of the best sentence, with a model; −1 when none was read. */
  similarity: number[];
  /** The best coverage at other context shares (`contextShare` → one figure per question). */
  coverageAt: Map<number, number[]>;
}

/**
 * Each question's best figures, asked as the eval asks (5 passages), with `encoder` when given;
 * `coverageAt` holds the best coverage for each context share asked for (`contextShares`).
 */
export async function groupFigures(group: CalibrationGroup, encoder?: SentenceEncoder, contextShares: readonly number[] = []): Promise<GroupFigures> {
  const { indexed } = group;
  const coverage: number[] = [];
  const similarity: number[] = [];
  const coverageAt = new Map<number, number[]>(contextShares.map((c) => [c, []]));
  const best = (question: string, passages: Parameters<typeof rankSentences>[1], contextShare?: number) =>
    Math.max(0, ...rankSentences(question, passages, { stats: indexed.lexical, contextShare }).filter((s) => s.answers).map((s) => s.coverage));
  for (const question of group.questions) {
    const passages = await retrievePassages(indexed.search, indexed.source, queryOf(indexed, question), { k: 5, retrievers: indexed.retrievers });
    coverage.push(best(question, passages));
    for (const [share, list] of coverageAt) list.push(best(question, passages, share));
    if (encoder) similarity.push((await encodeSentences(question, passages, indexed.lexical, encoder)).encoded[0]?.relevance ?? -1);
  }
  return { name: group.name, answerable: group.answerable, coverage, similarity, coverageAt };
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
 * question is answered at threshold t when its figure (`key`) is at least t and above 0 for coverage.
 */
export function sweepThresholds(groups: readonly GroupFigures[], key: 'coverage' | 'similarity', grid: readonly number[], contextShare?: number): SweepRow[] {
  return grid
    .map((threshold): SweepRow => {
      const rates: Record<string, number> = {};
      for (const g of groups) {
        const figures = contextShare === undefined ? g[key] : (g.coverageAt.get(contextShare) ?? []);
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
