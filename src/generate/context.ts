import type { Passage, TextRange } from '../core/types.ts';
import { termsOf } from '../text/tokenize.ts';
import { splitSentences } from '../text/split-sentences.ts';
import { contentTermsOf } from './question-units.ts';

/**
 * Context building: which text of the retrieved passages a model reads. Passages a
 * cross-encoder judged irrelevant are dropped, neighbours from one section are merged into one passage,
 * and when the model's context budget is tight only whole sentences that matter to the question are kept.
 * Every kept piece is an exact range of its passage's window, so a citation maps back to the document.
 */

/**
 * Default relevance threshold on a cross-encoder's logit (ms-marco MiniLM family). Those models were
 * trained with a binary cross-entropy loss on the logit, so sigmoid(logit) reads as the chance the passage
 * answers the question: −2 is about 0.12. The card's example gives 8.6 for an answer and −4.3 for an
 * on-topic passage that does not answer; unrelated passages score near −10. −2 drops those clearly
 * judged irrelevant and keeps anything the model is unsure about (a dropped passage cannot be cited; a
 * kept irrelevant one is only read and ignored). Scores of other rerankers are on other scales.
 */
export const DEFAULT_MIN_RERANK_SCORE = -2;

/** What joins two kept pieces of one passage that are not next to each other. */
export const OMISSION = ' … ';

/** A passage as the model reads it, numbered as the prompt numbers it. */
export interface ContextPassage {
  /** 1-based, in the order given to the model (retrieval order). */
  n: number;
  /**
   * The passage: a retrieved one, or several neighbours of one block merged (their windows joined, the
   * best-ranked one's scores and chunk).
   */
  passage: Passage;
  /**
   * The ranges of `passage.window` the model reads: whole sentences, sorted, not overlapping, not touching
   * (adjacent sentences are one range).
   */
  kept: TextRange[];
  /** The kept ranges' text, joined with {@link OMISSION}: what the prompt quotes. */
  text: string;
  /** How many retrieved passages it is made of (1 unless merged). */
  merged: number;
}

export interface BuiltContext {
  passages: ContextPassage[];
  /** Tokens of the passages as rendered (the sum of `countTokens(render(…))`), at most the budget. */
  tokens: number;
  /** Passages dropped under the relevance threshold. */
  belowThreshold: number;
  /** Whether some sentences were left out to fit the budget. */
  trimmed: boolean;
}

export interface ContextOptions {
  /** Tokens the passages may take in the prompt, as `render` writes them. Range ≥ 0. */
  budget: number;
  /** The model's own token count (`Generator.countTokens`). */
  countTokens: (text: string) => Promise<number>;
  /** How the prompt writes passage n (its cost is what counts). Default: the text alone. */
  render?: (n: number, passage: Passage, text: string) => string;
  /**
   * Passages whose cross-encoder score (`passage.rerank.score`, a logit) is below this are dropped.
   * Default {@link DEFAULT_MIN_RERANK_SCORE}; any number; `-Infinity` keeps all. Passages without a
   * rerank score are always kept: a fused RRF score depends only on ranks, so it says how a passage
   * compares with the others, never whether it answers the question.
   */
  minRerankScore?: number;
  /**
   * Other searches that found these passages (the model's phrasings, multi-hop queries). When the budget
   * is tight, a sentence sharing their content terms is kept with those sharing the question's: a passage
   * a hop found for what was missing may share no word with the question. Default none.
   */
  searches?: readonly string[];
}

interface Group {
  passage: Passage;
  merged: number;
  /** Hit chunks of every member, in window offsets. */
  hits: TextRange[];
  sentences: TextRange[];
  chosen: Set<number>;
  cost: number;
}

const end = (p: Passage) => p.windowStart + p.window.length;

/** Two windows of one block that overlap or touch, joined (null when their shared text differs). */
function joinWindows(a: Passage, b: Passage): { windowStart: number; window: string } | null {
  if (a.docId !== b.docId || a.block !== b.block) return null;
  const [first, second] = a.windowStart <= b.windowStart ? [a, b] : [b, a];
  if (end(first) < second.windowStart) return null;
  const overlap = Math.min(end(first), end(second)) - second.windowStart;
  if (first.window.slice(second.windowStart - first.windowStart, second.windowStart - first.windowStart + overlap) !== second.window.slice(0, overlap)) return null;
  const window = end(second) > end(first) ? first.window + second.window.slice(end(first) - second.windowStart) : first.window;
  return { windowStart: first.windowStart, window };
}

/** Adds passage `p` to group `g` if their windows overlap or touch. */
function absorb(g: Group, p: Passage, hits: readonly TextRange[]): boolean {
  const joined = joinWindows(g.passage, p);
  if (!joined) return false;
  const shift = (from: number) => from - joined.windowStart;
  const best = g.passage; // the earlier passage ranks better: it stays the representative
  g.hits = [...g.hits.map((h) => ({ start: h.start + shift(best.windowStart), end: h.end + shift(best.windowStart) })), ...hits.map((h) => ({ start: h.start + shift(p.windowStart), end: h.end + shift(p.windowStart) }))];
  g.passage = { ...best, ...joined, hitStart: best.hitStart + shift(best.windowStart), hitEnd: best.hitEnd + shift(best.windowStart) };
  g.merged += 1;
  return true;
}

/** Neighbours from one section (same document and block, windows overlapping or touching) as one passage, in rank order. */
function mergeNeighbours(passages: readonly Passage[]): Group[] {
  const groups: Group[] = [];
  for (const p of passages) {
    const hits = [{ start: p.hitStart, end: p.hitEnd }];
    const touching = groups.filter((g) => joinWindows(g.passage, p));
    const [into, ...others] = touching;
    if (!into) {
      groups.push({ passage: p, merged: 1, hits, sentences: [], chosen: new Set(), cost: 0 });
      continue;
    }
    // The best-ranked group it touches takes it, and any other group it bridges to.
    absorb(into, p, hits);
    for (const g of others) {
      absorb(into, g.passage, g.hits);
      into.merged += g.merged - 1;
      groups.splice(groups.indexOf(g), 1);
    }
  }
  for (const g of groups) g.sentences = splitSentences(g.passage.window);
  return groups;
}

/** Ranges of the chosen sentences, adjacent ones joined. */
function keptRanges(g: Group): TextRange[] {
  const out: TextRange[] = [];
  let last = -2;
  [...g.chosen].sort((a, b) => a - b).forEach((i) => {
    const s = g.sentences[i]!;
    if (i === last + 1 && out.length) out.at(-1)!.end = s.end;
    else out.push({ start: s.start, end: s.end });
    last = i;
  });
  return out;
}

const textOf = (window: string, kept: readonly TextRange[]) => kept.map((r) => window.slice(r.start, r.end)).join(OMISSION);

interface Candidate {
  group: number;
  sentence: number;
  /** 0: shares content terms with the question (or another search); 1: inside a hit chunk; 2: the rest. */
  tier: number;
  /** Share of the question's content terms the sentence holds. */
  share: number;
}

/** Sentences in the order they are kept when the budget is tight: those that matter first. */
function candidatesOf(question: string, groups: readonly Group[], searches: readonly string[]): Candidate[] {
  const terms = contentTermsOf(question);
  const searched = new Set(searches.flatMap((q) => contentTermsOf(q)));
  const out: Candidate[] = [];
  groups.forEach((g, group) => {
    g.sentences.forEach((s, sentence) => {
      const own = new Set(termsOf(g.passage.window.slice(s.start, s.end)));
      const share = terms.length ? terms.filter((t) => own.has(t)).length / terms.length : 0;
      const matches = share > 0 || [...searched].some((t) => own.has(t));
      const inHit = g.hits.some((h) => s.end > h.start && s.start < h.end);
      out.push({ group, sentence, tier: matches ? 0 : inHit ? 1 : 2, share });
    });
  });
  // Ties: the better-ranked passage, then the earlier sentence.
  return out.sort((a, b) => a.tier - b.tier || b.share - a.share || a.group - b.group || a.sentence - b.sentence);
}

/**
 * The passages a model reads, numbered 1..n: those a reranker scored under `minRerankScore` dropped,
 * neighbours from one section merged, and the whole within `budget` tokens (counted as `render` writes
 * them, in the model's tokenizer). When everything fits, every passage is kept whole. When not, sentences
 * are kept in this order while they fit: those sharing content terms with the question (most shared
 * first), then the other sentences of the retrieved chunks, then the rest; a sentence is never cut, and a
 * passage with nothing kept is left out.
 *
 * @example
 * const ctx = await buildContext('When is the rent due?', passages, { budget: 1500, countTokens: (t) => generator.countTokens(t) });
 * ctx.passages[0].kept; // ranges of ctx.passages[0].passage.window
 */
export async function buildContext(question: string, passages: readonly Passage[], options: ContextOptions): Promise<BuiltContext> {
  const min = options.minRerankScore ?? DEFAULT_MIN_RERANK_SCORE;
  const relevant = passages.filter((p) => !p.rerank || p.rerank.score >= min);
  const groups = mergeNeighbours(relevant);
  const render = options.render ?? ((_n: number, _p: Passage, text: string) => text);
  const costOf = async (g: Group, n: number) => (g.chosen.size ? options.countTokens(render(n, g.passage, textOf(g.passage.window, keptRanges(g)))) : 0);

  for (const g of groups) g.sentences.forEach((_, i) => g.chosen.add(i));
  let total = 0;
  for (const [i, g] of groups.entries()) total += g.cost = await costOf(g, i + 1);
  const trimmed = total > options.budget;
  if (trimmed) {
    total = 0;
    for (const g of groups) {
      g.chosen.clear();
      g.cost = 0;
    }
    for (const c of candidatesOf(question, groups, options.searches ?? [])) {
      if (total >= options.budget) break;
      const g = groups[c.group]!;
      g.chosen.add(c.sentence);
      const cost = await costOf(g, c.group + 1);
      if (total - g.cost + cost <= options.budget) {
        total += cost - g.cost;
        g.cost = cost;
      } else {
        g.chosen.delete(c.sentence);
      }
    }
  }
  const kept = groups.filter((g) => g.chosen.size > 0);
  const out: ContextPassage[] = [];
  let tokens = 0;
  for (const [i, g] of kept.entries()) {
    const ranges = keptRanges(g);
    out.push({ n: i + 1, passage: g.passage, kept: ranges, text: textOf(g.passage.window, ranges), merged: g.merged });
    tokens += await costOf(g, i + 1);
  }
  return { passages: out, tokens, belowThreshold: passages.length - relevant.length, trimmed };
}
