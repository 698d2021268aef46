/**
 * The model steps that serve retrieval, on a real generator's replies: `npm run eval -- --data <BEIR dir>
 * --steps --generator <model> [--limit N]`. Each question (the collection's first N test queries) goes
 * through the four JSON steps as the app builds them (messages, shape, budget), and each reply is read by the app's own parser:
 *
 * - **rewrite** (`question/follow-up.ts`): the question asked as a follow-up of the one before it; unusable
 *   when `readRewrite` takes no question from it (no JSON question, one that repeats itself, or one that
 *   lost the asked question's own words).
 * - **expansion** (`question/query-expansion.ts`): three phrasings; unusable when `parsePhrasings` gives none.
 * - **filters** (`question/read-filters.ts`): the filter reading over the collection's first documents as a
 *   library; unusable when the reply holds no JSON object (`parseJsonObject`).
 * - **judge** (`question/multi-hop.ts`): the verdict on the question's top five passages; unusable when
 *   `parseVerdict` finds none.
 *
 * An unusable reply never fails a question in the app (each step falls back: searched as typed, no
 * phrasing, no filter, sufficient): the rate says how often the model's help is lost. With a GGUF model run
 * in Chromium (`tools/browser-generator.ts`), time to first piece and pieces per second per step, as the
 * page timed them, come too.
 */
import type { DocId } from '../src/core/ids.ts';
import type { Passage } from '../src/core/types.ts';
import type { IndexedCollection } from '../src/eval/evaluate.ts';
import { generateText, type Generator, type JsonShape } from '../src/models/generator/generator.ts';
import { readRewrite, rewriteMessages, STANDALONE_SHAPE } from '../src/question/follow-up.ts';
import { judgeMessages, parseVerdict, VERDICT_SHAPE } from '../src/question/multi-hop.ts';
import { expansionMessages, expansionShape, parseJsonObject, parsePhrasings } from '../src/question/query-expansion.ts';
import { describeLibrary, FILTER_SHAPE, filterMessages } from '../src/question/read-filters.ts';
import { retrievePassages } from '../src/retrieve/retrieve.ts';
import type { BrowserTiming } from './browser-generator.ts';
import { withJsonInstruction } from '../src/models/generator/generation.ts';

export const STEPS = ['rewrite', 'expansion', 'filters', 'judge'] as const;
export type Step = (typeof STEPS)[number];

export interface StepFigures {
  replies: number;
  unusable: number;
  unusable_reply_rate: number;
  /** Median ms to the first piece and pieces per second after it (a browser generator only). */
  first_piece_ms_p50?: number;
  pieces_per_s_p50?: number;
}

export interface StepReport {
  generator: string;
  /** Whether replies were held to JSON of the step's shape (false: `--unconstrained`). */
  constrained: boolean;
  questions: number;
  unusable_reply_rate: number;
  steps: Record<Step, StepFigures>;
  /** A few unusable replies per step, cut to 200 characters, to read what went wrong. */
  examples: Record<Step, string[]>;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)]! : Number.NaN;
};

/** Runs every step over `questions`; `timings` is the browser generator's list (read after each reply). */
export interface StepOptions {
  /** Browser generator timings (read after each reply). */
  timings?: readonly BrowserTiming[];
  /**
   * Ask as a plain request with the JSON instruction (what `json: true` sent before decoding was held to
   * JSON): the baseline the constrained replies are compared with.
   */
  unconstrained?: boolean;
}

export async function evaluateSteps(indexed: IndexedCollection, questions: readonly string[], generator: Generator, options: StepOptions = {}): Promise<StepReport> {
  const { timings, unconstrained = false } = options;
  const results: Record<Step, { usable: boolean; reply: string; timing?: BrowserTiming }[]> = { rewrite: [], expansion: [], filters: [], judge: [] };
  // The collection's first 30 documents, named as the eval indexes them, stand for a library.
  const docs = [...indexed.beirIdOf].slice(0, 30).map(([docId, beirId]) => ({ docId: docId as DocId, name: `${beirId}.md`, folder: '', type: 'markdown' as const, tags: [] }));
  const library = describeLibrary(docs);
  const window = generator.model.contextTokens;
  const ask = async (step: Step, messages: Parameters<typeof generateText>[1]['messages'], shape: JsonShape, maxTokens: number, usable: (reply: string) => boolean) => {
    const request = unconstrained ? { messages: withJsonInstruction(messages, true) } : { messages, json: true, shape };
    const reply = await generateText(generator, { ...request, temperature: 0, maxTokens });
    results[step].push({ usable: usable(reply), reply, ...(timings?.length ? { timing: timings.at(-1)! } : {}) });
  };
  for (const [i, question] of questions.entries()) {
    process.stderr.write(`steps: ${i + 1}/${questions.length}\n`);
    const previous = questions[(i + questions.length - 1) % questions.length]!;
    const turns = [{ question: previous, answer: 'An earlier answer, cited [1].' }];
    await ask('rewrite', await rewriteMessages(question, turns, window - 128, (t) => generator.countTokens(t)), STANDALONE_SHAPE, 128, (r) => readRewrite(r, question) !== undefined);
    await ask('expansion', expansionMessages(question, 3), expansionShape(3), 64 + 3 * 48, (r) => parsePhrasings(r, question, 3).length > 0);
    await ask('filters', filterMessages(question, library, Date.now()), FILTER_SHAPE, 200, (r) => parseJsonObject(r) !== undefined);
    const hits = await indexed.search({ text: question }, 40);
    const passages: Passage[] = await retrievePassages(async () => hits, indexed.source, { text: question }, { k: 5, retrievers: indexed.retrievers });
    await ask('judge', await judgeMessages(question, passages, generator, window - 160), VERDICT_SHAPE, 160, (r) => parseVerdict(r) !== undefined);
  }
  const steps = Object.fromEntries(
    STEPS.map((step): [Step, StepFigures] => {
      const rs = results[step];
      const unusable = rs.filter((r) => !r.usable).length;
      const timed = rs.flatMap((r) => (r.timing ? [r.timing] : []));
      const figures: StepFigures = { replies: rs.length, unusable, unusable_reply_rate: rs.length ? unusable / rs.length : 0 };
      if (timed.length) {
        figures.first_piece_ms_p50 = Math.round(median(timed.map((t) => t.firstPieceMs)));
        figures.pieces_per_s_p50 = Math.round(10 * median(timed.filter((t) => t.pieces > 1 && t.totalMs > t.firstPieceMs).map((t) => ((t.pieces - 1) * 1000) / (t.totalMs - t.firstPieceMs)))) / 10;
      }
      return [step, figures];
    }),
  ) as Record<Step, StepFigures>;
  const examples = Object.fromEntries(STEPS.map((step) => [step, results[step].filter((r) => !r.usable).slice(0, 3).map((r) => r.reply.slice(0, 200))])) as Record<Step, string[]>;
  const all = STEPS.flatMap((s) => results[s]);
  return { generator: generator.model.id, constrained: !unconstrained, questions: questions.length, unusable_reply_rate: all.length ? all.filter((r) => !r.usable).length / all.length : 0, steps, examples };
}
