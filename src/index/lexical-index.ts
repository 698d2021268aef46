import MiniSearch, { type Options } from 'minisearch';
import { headedText } from '../core/doc-title.ts';
import { asChunkId, type ChunkId } from '../core/ids.ts';
import type { ChunkFilter, Hit, IndexEntry, SearchIndex, SearchQuery } from './search-index.ts';
import { processTerm, termsOf, tokenize } from '../text/tokenize.ts';
import { TopK } from './top-k.ts';
import { addPostings, LexicalSegment, SegmentBuilder, writeTerms, type ScoreBoard } from './lexical-segment.ts';
import { SegmentMerge } from './segment-merge.ts';
import { decodeLexicalSnapshot, encodeLexicalSnapshot } from './lexical-snapshot.ts';

export { LEXICAL_SNAPSHOT_VERSION } from './lexical-snapshot.ts';


export interface LexicalOptions {
  /** BM25 term-saturation k1. Default 1.2 (Lucene); range 0.5–2. */
  k1: number;
  /** BM25 length normalisation b. Default 0.5; range 0–1. */
  b: number;
}

/** The title is indexed as the first line of every chunk of its document (a chunk header), not as a field of its own. */
export const DEFAULT_LEXICAL_OPTIONS: LexicalOptions = { k1: 1.2, b: 0.5 };

interface IndexedChunk {
  id: string;
  text: string;
  title: string;
}

/**
 * Best score first; scores equal to 1e-9 (sums in another order after adds and removes) rank by chunk
 * id, so results never depend on the order documents were added in.
 */
function byScoreThenId(x: Hit, y: Hit): number {
  const diff = y.score - x.score;
  if (Math.abs(diff) > 1e-9 * Math.max(1, Math.abs(x.score))) return diff;
  return x.chunkId < y.chunkId ? -1 : x.chunkId > y.chunkId ? 1 : 0;
}

/** Processed terms of the field MiniSearch is indexing right now; read back by position in {@link termAt}. */
let fieldTerms: string[] = [];

/**
 * MiniSearch takes a field's length to be its number of distinct tokens; BM25 wants the number of
 * indexed terms. So the index tokenizer returns positions (all distinct) and {@link termAt} turns each
 * back into its term: lengths count every term (stop words excluded), frequencies are unchanged, and no
 * string is built per token. MiniSearch calls `tokenize` and then `processTerm` for each of its tokens
 * synchronously, field by field, when adding and removing; searches use the plain tokenizer.
 */
function indexTokenize(text: string): string[] {
  fieldTerms = termsOf(text);
  return Array.from(fieldTerms, (_, i) => i) as unknown as string[];
}

interface TermMap {
  fetch(term: string, initial: () => unknown): unknown;
}

/**
 * While a batch of chunks is added, MiniSearch's lookups of a term's postings are remembered, so a term
 * the batch has already met is not looked up again. MiniSearch looks a term up once per occurrence, by
 * walking its radix tree (`SearchableMap.fetch`: each node's children scanned one by one, ~0.8 µs per
 * walk on SciFact, about half of MiniSearch's cost of adding); a chunk repeats a third of its terms, and
 * every chunk of a document starts with its title. The index is the same: a walk to a term already in
 * the tree changes nothing, and a term's postings stay the same object while it is in the tree. Adding
 * never removes a term from the tree, so nothing remembered can go stale, and all is forgotten when the
 * batch ends. The term map is MiniSearch's private `_index`: where it is missing (a later MiniSearch),
 * nothing is remembered and adding works as before.
 */
class TermMemo {
  /** Term → its postings, while a batch is added. */
  private postings: Map<string, unknown> | undefined;

  constructor(ms: MiniSearch<IndexedChunk>) {
    const map = (ms as unknown as { _index?: Partial<TermMap> })._index;
    const fetch = map?.fetch;
    if (!map || typeof fetch !== 'function') return;
    map.fetch = (term: string, initial: () => unknown) => {
      const known = this.postings;
      if (!known) return fetch.call(map, term, initial);
      let postings = known.get(term);
      if (postings === undefined) {
        postings = fetch.call(map, term, initial);
        known.set(term, postings);
      }
      return postings;
    };
  }

  /** Runs `add` (MiniSearch adding documents, nothing else) with the memo on. */
  adding(add: () => void): void {
    this.postings = new Map();
    try {
      add();
    } finally {
      this.postings = undefined;
    }
  }
}

function termAt(position: string): string {
  return fieldTerms[position as unknown as number]!;
}

/** Indexed text of a chunk: its document's title as a header line, then the chunk. */
const withHeader = (chunk: IndexedChunk): string => headedText(chunk.title, chunk.text);

const MINISEARCH_OPTIONS: Options<IndexedChunk> = {
  idField: 'id',
  fields: ['text'],
  storeFields: [],
  // MiniSearch reads the id through this too.
  extractField: (chunk, field) => (field === 'text' ? withHeader(chunk) : chunk[field as keyof IndexedChunk]),
  tokenize: indexTokenize,
  processTerm: termAt,
  // Never vacuumed: a discarded chunk's postings are skipped when read, and dropped when the live part
  // is written into a segment (MiniSearch's vacuum walks the whole term tree).
  autoVacuum: false,
};

/** A chunk as the lexical index takes it: its text, headed by its title (`ChunkOwners.titleOf`). */
export type LexicalEntry = Pick<IndexEntry, 'chunkId' | 'text' | 'title'>;

/** What scoring reads of MiniSearch's private state (7.x): postings per term and field, ids and lengths by short id. */
interface MiniSearchInternals {
  _index: Iterable<[string, Map<number, Map<number, number>>]> & { get(term: string): Map<number, Map<number, number>> | undefined };
  _documentIds: Map<number, string>;
  _fieldLength: Map<number, number[]>;
}

/** The one field indexed ('text', headed by the title). */
const FIELD = 0;

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
  private live = new MiniSearch<IndexedChunk>(MINISEARCH_OPTIONS);
  private memo = new TermMemo(this.live);
  /**
   * Chunks added since the last search, not yet in the live MiniSearch: the next search (or document
   * frequency) puts them there, or, when they reach the live part's limit first, they are written
   * straight into a segment with it. Ingesting a folder with no question asked meanwhile never pays for
   * MiniSearch's term tree (about half the cost of adding, measured in decision 0036).
   */
  private pending = new Map<string, IndexedChunk>();
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
    let n = this.live.documentCount + this.pending.size;
    for (const p of this.parts) n += p.segment.size - p.deletedCount;
    return n;
  }

  /** Segments (for the benchmark and tests: how the index is laid out). */
  get segmentCount(): number {
    return this.parts.length;
  }

  has(chunkId: ChunkId): boolean {
    return this.pending.has(chunkId) || this.live.has(chunkId) || this.parts.some((p) => ordinalsOf(p).has(chunkId));
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
      this.parts.push(newPart(LexicalSegment.fromChunks(fresh.map((c) => ({ id: c.id, terms: termsOf(withHeader(c)) })))));
    } else {
      for (const c of fresh) this.pending.set(c.id, c);
      if (this.live.documentCount + this.pending.size >= this.liveLimit) this.flushLive();
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

  /**
   * Takes a chunk out wherever it is: discarded from the live MiniSearch (its postings stay there, unread,
   * until the live part is written into a segment) or marked deleted in its segment.
   */
  private drop(id: string): void {
    if (this.pending.delete(id)) return;
    if (this.live.has(id)) {
      this.live.discard(id);
      return;
    }
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

  /** Puts the chunks waiting in {@link pending} into the live MiniSearch. */
  private materialize(): void {
    if (!this.pending.size) return;
    const chunks = [...this.pending.values()];
    this.pending.clear();
    this.memo.adding(() => this.live.addAll(chunks));
  }

  /** Writes the live part and the chunks waiting into a segment of their own, and starts an empty live part. */
  private flushLive(): void {
    if (!this.live.documentCount && !this.pending.size) return;
    const ms = this.live as unknown as MiniSearchInternals;
    const builder = new SegmentBuilder();
    const ordinalOf = new Map<number, number>();
    // Short ids grow as chunks are added, so ordinals in this order keep every posting list ascending.
    for (const [shortId, id] of ms._documentIds) ordinalOf.set(shortId, builder.chunk(id, ms._fieldLength.get(shortId)![FIELD]!));
    const byTerm = new Map<string, number[]>();
    for (const [term, fields] of ms._index) {
      const postings = fields.get(FIELD);
      if (!postings) continue;
      const flat: number[] = [];
      for (const [shortId, tf] of postings) {
        const ordinal = ordinalOf.get(shortId);
        if (ordinal !== undefined) flat.push(ordinal, tf);
      }
      if (flat.length) byTerm.set(term, sortedPairs(flat));
    }
    // The chunks waiting come after, so their ordinals keep the lists ascending.
    for (const chunk of this.pending.values()) {
      const terms = termsOf(withHeader(chunk));
      const ordinal = builder.chunk(chunk.id, terms.length);
      addPostings(byTerm, ordinal, terms);
    }
    writeTerms(builder, byTerm);
    this.parts.push(newPart(builder.done()));
    this.pending.clear();
    this.live = new MiniSearch(MINISEARCH_OPTIONS);
    this.memo = new TermMemo(this.live);
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
    this.materialize();
    const ms = this.live as unknown as MiniSearchInternals;
    let total = 0;
    for (const shortId of ms._documentIds.keys()) total += ms._fieldLength.get(shortId)![FIELD]!;
    for (const p of this.parts) total += p.segment.totalLength - p.deletedLength;
    return total;
  }

  /** Chunks holding the term in every part, deleted ones left out; and where it sits in each segment's dictionary. */
  private frequencyOf(term: string): { df: number; at: number[] } {
    this.materialize();
    let df = 0;
    const at = this.parts.map((p) => {
      const t = p.segment.find(term);
      if (t >= 0) df += p.deletedCount ? p.segment.liveFrequency(t, p.deleted) : p.segment.frequency(t);
      return t;
    });
    const ms = this.live as unknown as MiniSearchInternals;
    for (const shortId of ms._index.get(term)?.get(FIELD)?.keys() ?? []) if (ms._documentIds.has(shortId)) df++;
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
    const ms = this.live as unknown as MiniSearchInternals;
    const liveScores = new Map<number, { score: number; matched: number }>();
    const counted = new Set<string>();
    for (const term of terms) {
      const first = !counted.has(term);
      counted.add(term);
      const { idf, at } = byTerm.get(term)!;
      this.parts.forEach((p, i) => {
        if (at[i]! >= 0) p.segment.addScores(at[i]!, idf, k1, norms[i]!, p.deleted, boards[i]!, first);
      });
      for (const [shortId, tf] of ms._index.get(term)?.get(FIELD) ?? []) {
        if (!ms._documentIds.has(shortId)) continue;
        const len = ms._fieldLength.get(shortId)![FIELD]!;
        const score = idf * ((tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * len) / avg)));
        const known = liveScores.get(shortId);
        if (known) {
          known.score += score;
          if (first) known.matched++;
        } else liveScores.set(shortId, { score, matched: 1 });
      }
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
    for (const [shortId, { score, matched }] of liveScores) consider(ms._documentIds.get(shortId)!, score, matched);
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

/** [ordinal, tf, …] pairs sorted by ordinal (they almost always are already). */
function sortedPairs(flat: number[]): number[] {
  let sorted = true;
  for (let i = 2; i < flat.length && sorted; i += 2) sorted = flat[i - 2]! < flat[i]!;
  if (sorted) return flat;
  const pairs: Array<[number, number]> = [];
  for (let i = 0; i < flat.length; i += 2) pairs.push([flat[i]!, flat[i + 1]!]);
  pairs.sort((x, y) => x[0] - y[0]);
  return pairs.flat();
}
