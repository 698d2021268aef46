import { asChunkId, type ChunkId } from '../core/ids.ts';
import type { ChunkFilter, Hit, IndexEntry, SearchIndex, SearchQuery } from './search-index.ts';
import { processTerm, termsOf, tokenize } from '../text/tokenize.ts';
import { TopK } from './top-k.ts';
import { LexicalSegment, type ScoreBoard } from './lexical-segment.ts';
import { segmentOf } from './segment-builder.ts';
import { SegmentMerge } from './segment-merge.ts';
import { decodeLexicalSnapshot, encodeLexicalSnapshot } from './lexical-snapshot.ts';
import { LivePart, withHeader, type IndexedChunk } from './live-part.ts';

export { LEXICAL_SNAPSHOT_VERSION } from './lexical-snapshot.ts';

export interface LexicalOptions {
  /** BM25 term-saturation k1. Default 1.2 (Lucene); range 0.5–2. */
  k1: number;
  /** BM25 length normalisation b. Default 0.5; range 0–1. */
  b: number;
}

/** The title is indexed as the first line of every chunk of its document (a chunk header), not as a field of its own. */
export const DEFAULT_LEXICAL_OPTIONS: LexicalOptions = { k1: 1.2, b: 0.5 };

/**
 * Best score first; scores equal to 1e-9 (sums in another order after adds and removes) rank by chunk
 * id, so results never depend on the order documents were added in.
 */
function byScoreThenId(x: Hit, y: Hit): number {
  const diff = y.score - x.score;
  if (Math.abs(diff) > 1e-9 * Math.max(1, Math.abs(x.score))) return diff;
  return x.chunkId < y.chunkId ? -1 : x.chunkId > y.chunkId ? 1 : 0;
}

/** A chunk as the lexical index takes it: its text, headed by its title (`ChunkOwners.titleOf`). */
export type LexicalEntry = Pick<IndexEntry, 'chunkId' | 'text' | 'title'>;

/** A segment and the chunks deleted from it since it was written. */
interface Part {
  segment: LexicalSegment;
  /** 1 at the ordinal of each deleted chunk. */
  deleted: Uint8Array;
  deletedCount: number;
  deletedLength: number;
  /**
   * Chunk id → ordinal, for the chunks not deleted: made on the first add or removal that needs it
   * ({@link ordinalsOf}), not when a snapshot loads (100k map entries are ~50 ms of a cold start).
   */
  ordinals?: Map<string, number>;
}

function ordinalsOf(part: Part): Map<string, number> {
  if (part.ordinals) return part.ordinals;
  const ordinals = new Map<string, number>();
  part.segment.ids.forEach((id, ordinal) => {
    if (!part.deleted[ordinal]) ordinals.set(id, ordinal);
  });
  part.ordinals = ordinals;
  return ordinals;
}

/**
 * Chunks the live MiniSearch holds before they are written into a segment; a batch of at least this
 * many new chunks (a rebuild, a big document) goes straight into a segment of its own.
 */
const LIVE_LIMIT = 1000;
/** The newest two segments are merged while the older holds at most this many times the newer's chunks. */
const MERGE_RATIO = 2;
/** A segment is rewritten once more than this share of its chunks are deleted. */
const PURGE_SHARE = 0.5;

function newPart(segment: LexicalSegment, deleted: Uint8Array = new Uint8Array(segment.size)): Part {
  const part: Part = { segment, deleted, deletedCount: 0, deletedLength: 0 };
  for (let ordinal = 0; ordinal < segment.size; ordinal++) {
    if (!deleted[ordinal]) continue;
    part.deletedCount++;
    part.deletedLength += segment.lengths[ordinal]!;
  }
  return part;
}

/**
 * BM25 over chunk text headed by its document's title, with MiniSearch's ranking as the definition (its
 * BM25 with k1 and b from the options and no bonus for matching several query terms, the app's tokenizer
 * and stemmer): the chunks added lately sit in a MiniSearch (the live part), the bulk in immutable
 * segments of typed arrays (`lexical-segment.ts`) with deletions as a bitmap until the segment is
 * rewritten. Scores are computed here over all parts at once with the statistics of the whole (chunk
 * count, average length, each term's document frequency), so they equal one MiniSearch's over the same
 * chunks. Holds chunks only; which documents own them is `ChunkOwners`'s business, which also says which
 * title a shared chunk is indexed under.
 */
export class LexicalIndex implements SearchIndex<LexicalEntry> {
  readonly name = 'BM25';
  private parts: Part[] = [];
  /** The chunks added lately, until they are written into a segment (`live-part.ts`). */
  private live = new LivePart();
  /** Per segment, for searches: running scores, and each chunk's length part of BM25 at the last average. */
  private boards = new WeakMap<LexicalSegment, ScoreBoard>();
  private norms = new WeakMap<LexicalSegment, { avg: number; norms: Float64Array }>();
  /** The merge under way (its inputs are still parts, searched as before, until it is done). */
  private merging: { job: SegmentMerge; inputs: Part[] } | undefined;
  /**
   * Milliseconds of merging an add or removal does before it returns; what is left waits for the next
   * change or {@link maintainFor} (the library's worker runs it in slices between questions). Default: no
   * limit (merges end inside the add, as tools and tests expect).
   */
  mergeSliceMs = Infinity;

  constructor(
    readonly options: LexicalOptions = DEFAULT_LEXICAL_OPTIONS,
    /** Chunks the live part holds before they are written into a segment; default {@link LIVE_LIMIT} (tests make it small). */
    private readonly liveLimit = LIVE_LIMIT,
    /** Terms a merge slice merges between two looks at the clock (tests make it small, so merges span many changes). */
    private readonly mergeTermsPerLook = 256,
  ) {}

  get size(): number {
    let n = this.live.size;
    for (const p of this.parts) n += p.segment.size - p.deletedCount;
    return n;
  }

  /** Segments (for the benchmark and tests: how the index is laid out). */
  get segmentCount(): number {
    return this.parts.length;
  }

  has(chunkId: ChunkId): boolean {
    return this.live.has(chunkId) || this.parts.some((p) => ordinalsOf(p).has(chunkId));
  }

  /** Adds chunks; one already indexed is replaced (its old terms stop counting at once). */
  add(entries: readonly LexicalEntry[]): void {
    const fresh: IndexedChunk[] = [];
    const seen = new Set<string>();
    for (const e of entries) {
      if (seen.has(e.chunkId)) continue;
      seen.add(e.chunkId);
      this.drop(e.chunkId);
      fresh.push({ id: e.chunkId, text: e.text, title: e.title });
    }
    if (!fresh.length) return;
    if (fresh.length >= this.liveLimit) {
      this.parts.push(newPart(segmentOf(fresh.map((c) => ({ id: c.id, terms: termsOf(withHeader(c)) })))));
    } else {
      for (const c of fresh) this.live.add(c);
      if (this.live.size >= this.liveLimit) this.flushLive();
    }
    this.maintain();
  }

  /** Removes chunks by id; searches see exactly the rest at once. */
  remove(chunkIds: readonly ChunkId[]): Promise<void> {
    for (const id of chunkIds) this.drop(id);
    this.maintain();
    return Promise.resolve();
  }

  /** Indexes chunks again under another title (their owner with the smallest id changed). */
  retitle(chunks: readonly LexicalEntry[]): Promise<void> {
    this.add(chunks);
    return Promise.resolve();
  }

  /** Takes a chunk out wherever it is: let go by the live part, or marked deleted in its segment. */
  private drop(id: string): void {
    if (this.live.drop(id)) return;
    for (const p of this.parts) {
      const ordinals = ordinalsOf(p);
      const ordinal = ordinals.get(id);
      if (ordinal === undefined) continue;
      ordinals.delete(id);
      p.deleted[ordinal] = 1;
      p.deletedCount++;
      p.deletedLength += p.segment.lengths[ordinal]!;
      return;
    }
  }

  /** Writes the live part into a segment of its own. */
  private flushLive(): void {
    const segment = this.live.toSegment();
    if (segment) this.parts.push(newPart(segment));
  }

  /** Whether merging is under way or due (see {@link maintainFor}). */
  get needsMerging(): boolean {
    return this.merging !== undefined || this.nextMerge() !== undefined;
  }

  /**
   * Merges for about `ms` milliseconds (a merge is made of slices of terms: each slice ends at the first
   * look at the clock past the time); true when no merge is left to do.
   */
  maintainFor(ms: number): boolean {
    return this.maintain(ms);
  }

  /**
   * Keeps segments few and clean: one mostly deleted is rewritten without its deleted chunks, and the
   * newest two are merged while the older is at most {@link MERGE_RATIO} times the newer (so sizes fall
   * geometrically: about log₂(chunks / 1,000) segments, each chunk rewritten about as many times). A
   * merge runs until `budgetMs` is spent and goes on at the next call; searches meanwhile read its
   * inputs, and a chunk deleted from them meanwhile is deleted in the merged segment too.
   */
  private maintain(budgetMs = this.mergeSliceMs): boolean {
    const deadline = performance.now() + budgetMs;
    try {
      for (;;) {
        if (!this.merging) {
          const inputs = this.nextMerge();
          if (!inputs) return true;
          this.merging = { job: new SegmentMerge(inputs), inputs };
        }
        if (!this.merging.job.run(deadline, this.mergeTermsPerLook)) return false;
        this.finishMerge(this.merging);
        this.merging = undefined;
      }
    } catch (err) {
      // The merged part is built before it replaces its inputs, so a merge that fails (out of memory)
      // leaves the index as it was: whole, in more segments than it needs (tried again at the next change).
      this.merging = undefined;
      console.warn('lexical index: segments not merged', err);
      return true;
    }
  }

  /** The parts to merge next: a mostly deleted one alone, else the newest two when the older is not much larger. */
  private nextMerge(): Part[] | undefined {
    const live = (p: Part) => p.segment.size - p.deletedCount;
    const purge = this.parts.find((p) => p.deletedCount > p.segment.size * PURGE_SHARE);
    if (purge) return [purge];
    const n = this.parts.length;
    if (n >= 2 && live(this.parts[n - 2]!) <= MERGE_RATIO * live(this.parts[n - 1]!)) return [this.parts[n - 2]!, this.parts[n - 1]!];
    return undefined;
  }

  /** Puts a finished merge's segment in its inputs' place, with the chunks deleted from them since it began. */
  private finishMerge({ job, inputs }: { job: SegmentMerge; inputs: Part[] }): void {
    const segment = job.result();
    const deleted = new Uint8Array(segment.size);
    inputs.forEach((p, i) => {
      const remap = job.remaps[i]!;
      for (let ordinal = 0; ordinal < remap.length; ordinal++) if (p.deleted[ordinal] && remap[ordinal]! >= 0) deleted[remap[ordinal]!] = 1;
    });
    // Inputs are neighbours and stay so: parts are only appended, or replaced by the one merge at a time.
    const at = this.parts.indexOf(inputs[0]!);
    this.parts.splice(at, inputs.length, ...(segment.size ? [newPart(segment, deleted)] : []));
  }

  /** Sum of the lengths of every chunk indexed. */
  private totalLength(): number {
    let total = this.live.totalLength();
    for (const p of this.parts) total += p.segment.totalLength - p.deletedLength;
    return total;
  }

  /** Chunks holding the term in every part, deleted ones left out; and where it sits in each segment's dictionary. */
  private frequencyOf(term: string): { df: number; at: number[] } {
    let df = this.live.frequency(term);
    const at = this.parts.map((p) => {
      const t = p.segment.find(term);
      if (t >= 0) df += p.deletedCount ? p.segment.liveFrequency(t, p.deleted) : p.segment.frequency(t);
      return t;
    });
    return { df, at };
  }

  search(query: SearchQuery, k: number, filter?: ChunkFilter): Promise<Hit[]> {
    return Promise.resolve(this.searchNow(query.text, k, filter));
  }

  /**
   * {@link search}, synchronously (tools and tests that only have BM25). Each chunk's score is the sum,
   * in the query's order, of BM25 for each query term (a repeated term counts again), computed exactly
   * as MiniSearch computes it (`calcBM25Score` with d = 0, with the whole index's chunk count, average
   * length and document frequencies), then times and divided by the number of distinct query terms
   * matched, as MiniSearch's search and ours after it did.
   */
  searchNow(text: string, k: number, filter?: ChunkFilter): Hit[] {
    const terms: string[] = [];
    for (const token of tokenize(text)) {
      const t = processTerm(token);
      if (t) terms.push(t);
    }
    const n = this.size;
    if (!terms.length || !n || k <= 0) return [];
    const avg = this.totalLength() / n;
    const { k1, b } = this.options;
    const byTerm = new Map<string, { idf: number; at: number[] }>();
    for (const term of terms) {
      if (byTerm.has(term)) continue;
      const { df, at } = this.frequencyOf(term);
      byTerm.set(term, { idf: Math.log(1 + (n - df + 0.5) / (df + 0.5)), at });
    }
    const boards = this.parts.map((p) => this.boardOf(p.segment));
    const norms = this.parts.map((p) => this.normsOf(p.segment, avg));
    const liveScores = new Map<string, { score: number; matched: number }>();
    const counted = new Set<string>();
    for (const term of terms) {
      const first = !counted.has(term);
      counted.add(term);
      const { idf, at } = byTerm.get(term)!;
      this.parts.forEach((p, i) => {
        if (at[i]! >= 0) p.segment.addScores(at[i]!, idf, k1, norms[i]!, p.deleted, boards[i]!, first);
      });
      this.live.forPostings(term, (id, tf, len) => {
        const score = idf * ((tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * len) / avg)));
        const known = liveScores.get(id);
        if (known) {
          known.score += score;
          if (first) known.matched++;
        } else liveScores.set(id, { score, matched: 1 });
      });
    }
    const top = new TopK<Hit>(k, byScoreThenId);
    const consider = (id: string, score: number, matched: number) => {
      const final = (score * matched) / matched;
      const worst = top.full ? top.worst!.score : -Infinity;
      // Below the worst kept by more than byScoreThenId's tie margin: cannot get in.
      if (final < worst - 1e-9 * Math.max(1, Math.abs(worst))) return;
      if (!filter || filter(id as ChunkId)) top.offer({ chunkId: asChunkId(id), score: final });
    };
    this.parts.forEach((p, i) => {
      const board = boards[i]!;
      const { scores, matched, touched } = board;
      for (let j = 0; j < board.touchedCount; j++) {
        const ordinal = touched[j]!;
        consider(p.segment.ids[ordinal]!, scores[ordinal]!, matched[ordinal]!);
        scores[ordinal] = 0;
        matched[ordinal] = 0;
      }
      board.touchedCount = 0;
    });
    for (const [id, { score, matched }] of liveScores) consider(id, score, matched);
    return top.sorted();
  }

  private boardOf(segment: LexicalSegment): ScoreBoard {
    let board = this.boards.get(segment);
    if (!board) {
      board = { scores: new Float64Array(segment.size), matched: new Uint16Array(segment.size), touched: new Int32Array(segment.size), touchedCount: 0 };
      this.boards.set(segment, board);
    }
    return board;
  }

  /** Each chunk's length part of BM25, `k1 × (1 − b + b × length / average)`, kept until the average changes. */
  private normsOf(segment: LexicalSegment, avg: number): Float64Array {
    const known = this.norms.get(segment);
    if (known?.avg === avg) return known.norms;
    const { k1, b } = this.options;
    const norms = known?.norms ?? new Float64Array(segment.size);
    const lengths = segment.lengths;
    for (let i = 0; i < norms.length; i++) norms[i] = k1 * (1 - b + (b * lengths[i]!) / avg);
    this.norms.set(segment, { avg, norms });
    return norms;
  }

  /** Chunks indexed: the N of BM25's IDF (`TermStatistics`, for the answer's sentence weights). */
  get documentCount(): number {
    return this.size;
  }

  /** Chunks whose indexed text (title header included) holds the processed term (as `termsOf` returns it): the df of BM25's IDF. */
  documentFrequency(term: string): number {
    return this.frequencyOf(term).df;
  }

  /** The index as bytes ({@link encodeLexicalSnapshot}): the live part is written into a segment first. */
  serialize(): Uint8Array {
    this.flushLive();
    this.maintain();
    return encodeLexicalSnapshot(this.options, this.parts);
  }

  /** Rebuilds an index from {@link serialize}'s output; throws `schema-version` on an unknown or damaged one. */
  static load(data: string | Uint8Array, liveLimit = LIVE_LIMIT, mergeTermsPerLook?: number): LexicalIndex {
    const snapshot = decodeLexicalSnapshot<LexicalOptions>(data);
    const index = new LexicalIndex(snapshot.options, liveLimit, mergeTermsPerLook);
    for (const { segment, deleted } of snapshot.parts) index.parts.push(newPart(segment, deleted));
    return index;
  }
}
