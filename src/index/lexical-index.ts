import MiniSearch, { type Options, type SearchOptions } from 'minisearch';
import { headedText } from '../core/doc-title.ts';
import { DocQaError } from '../core/errors.ts';
import { asChunkId, type ChunkId } from '../core/ids.ts';
import type { ChunkFilter, Hit, IndexEntry, SearchIndex, SearchQuery } from './search-index.ts';
import { processTerm, termsOf, tokenize } from '../text/tokenize.ts';
import { topK } from './top-k.ts';

/** Snapshot format version; unknown versions are refused and the index is rebuilt from the store. */
export const LEXICAL_SNAPSHOT_VERSION = 3;

export interface LexicalOptions {
  /** BM25 term-saturation k1. Default 1.2 (Lucene); range 0.5–2. */
  k1: number;
  /** BM25 length normalisation b. Default 0.5; range 0–1. */
  b: number;
  /**
   * Extra weight of a separate title field. The title is always indexed as the first line of every chunk
   * of its document (a chunk header), so 0, the default, scores title and text as one passage; range 0–5.
   */
  titleBoost: number;
}

export const DEFAULT_LEXICAL_OPTIONS: LexicalOptions = { k1: 1.2, b: 0.5, titleBoost: 0 };

interface IndexedChunk {
  id: string;
  text: string;
  title: string;
}

interface Snapshot {
  version: number;
  options: LexicalOptions;
  minisearch: unknown;
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

function miniSearchOptions(options: LexicalOptions): Options<IndexedChunk> {
  return {
    idField: 'id',
    fields: options.titleBoost > 0 ? ['title', 'text'] : ['text'],
    storeFields: [],
    extractField: (chunk, field) => (field === 'text' ? withHeader(chunk) : chunk[field as keyof IndexedChunk]),
    tokenize: indexTokenize,
    processTerm: termAt,
    searchOptions: { tokenize, processTerm },
    // Vacuuming is done by `remove` and `retitle`, whole and at once (see VACUUM_AT_ONCE).
    autoVacuum: false,
  };
}

/**
 * Vacuum in one go, never yielding: MiniSearch's batched vacuum walks its term tree across timer
 * waits, and a document added meanwhile (the library adds big ones a slice at a time) restructures
 * the tree under the walk, which then fails. A whole vacuum walks every term once (tens of ms at
 * SciFact's size); only deleting or replacing a document needs one.
 */
const VACUUM_AT_ONCE = { batchSize: Number.MAX_SAFE_INTEGER, batchWait: 0 };

/** A chunk as the lexical index takes it: its text, headed by its title (`ChunkOwners.titleOf`). */
export type LexicalEntry = Pick<IndexEntry, 'chunkId' | 'text' | 'title'>;

/**
 * BM25 over chunk text headed by its document's title (MiniSearch, with plain BM25 scores: MiniSearch's
 * bonus for matching more distinct query terms is taken out). Holds chunks only; which documents own
 * them is `ChunkOwners`'s business, which also says which title a shared chunk is indexed under.
 */
export class LexicalIndex implements SearchIndex<LexicalEntry> {
  readonly name = 'BM25';
  private ms: MiniSearch<IndexedChunk>;
  private memo: TermMemo;
  private searchOptions: SearchOptions;

  constructor(readonly options: LexicalOptions = DEFAULT_LEXICAL_OPTIONS) {
    this.ms = new MiniSearch(miniSearchOptions(options));
    this.memo = new TermMemo(this.ms);
    this.searchOptions = {
      combineWith: 'OR',
      prefix: false,
      fuzzy: false,
      fields: options.titleBoost > 0 ? ['title', 'text'] : ['text'],
      boost: { title: options.titleBoost, text: 1 },
      bm25: { k: options.k1, b: options.b, d: 0 },
    };
  }

  get size(): number {
    return this.ms.documentCount;
  }

  has(chunkId: ChunkId): boolean {
    return this.ms.has(chunkId);
  }

  add(entries: readonly LexicalEntry[]): void {
    const fresh: IndexedChunk[] = [];
    const seen = new Set<string>();
    for (const e of entries) {
      if (seen.has(e.chunkId)) continue;
      seen.add(e.chunkId);
      const chunk = { id: e.chunkId, text: e.text, title: e.title };
      if (this.ms.has(e.chunkId)) this.ms.replace(chunk);
      else fresh.push(chunk);
    }
    this.memo.adding(() => this.ms.addAll(fresh));
  }

  /**
   * Chunks are discarded by id (MiniSearch needs no text for that), then the index is vacuumed, which
   * leaves it as a rebuild would be: term frequencies of discarded chunks no longer count in BM25's IDF.
   */
  async remove(chunkIds: readonly ChunkId[]): Promise<void> {
    let discarded = false;
    for (const id of chunkIds) {
      if (!this.ms.has(id)) continue;
      this.ms.discard(id);
      discarded = true;
    }
    if (discarded) await this.ms.vacuum(VACUUM_AT_ONCE);
  }

  /**
   * Indexes chunks again under another title (their owner with the smallest id changed), then vacuums
   * so their old postings no longer count in BM25's IDF.
   */
  async retitle(chunks: readonly LexicalEntry[]): Promise<void> {
    if (!chunks.length) return;
    for (const c of chunks) this.ms.replace({ id: c.chunkId, text: c.text, title: c.title });
    await this.ms.vacuum(VACUUM_AT_ONCE);
  }

  search(query: SearchQuery, k: number, filter?: ChunkFilter): Promise<Hit[]> {
    return Promise.resolve(this.searchNow(query.text, k, filter));
  }

  /** {@link search}, synchronously (tools and tests that only have BM25). */
  searchNow(text: string, k: number, filter?: ChunkFilter): Hit[] {
    const options: SearchOptions = filter ? { ...this.searchOptions, filter: (r) => filter(r.id as ChunkId) } : this.searchOptions;
    // MiniSearch multiplies each score by the number of distinct query terms matched; plain BM25 ranks better.
    const hits = this.ms.search(text, options).map((r) => ({ chunkId: asChunkId(String(r.id)), score: r.score / Math.max(1, r.queryTerms.length) }));
    return topK(hits, k, byScoreThenId);
  }

  /** Chunks indexed: the N of BM25's IDF (`TermStatistics`, for the answer's sentence weights). */
  get documentCount(): number {
    return this.ms.documentCount;
  }

  /**
   * Chunks whose indexed text (title header included) holds the processed term (as `termsOf` returns
   * it): the df of BM25's IDF. Read from MiniSearch's term index, which keeps per term and field the
   * chunks holding it; MiniSearch has no public call for it, and counting by searching would score
   * every such chunk. Discarded chunks count until the vacuum that `remove` waits for.
   */
  documentFrequency(term: string): number {
    const internals = this.ms as unknown as { _index: { get(term: string): Map<number, Map<number, number>> | undefined }; _fieldIds: Record<string, number> };
    return internals._index.get(term)?.get(internals._fieldIds['text']!)?.size ?? 0;
  }

  serialize(): string {
    const snapshot: Snapshot = { version: LEXICAL_SNAPSHOT_VERSION, options: this.options, minisearch: this.ms.toJSON() };
    return JSON.stringify(snapshot);
  }

  /** Rebuilds an index from {@link serialize}'s output; throws `schema-version` on an unknown version. */
  static load(json: string): LexicalIndex {
    const snapshot = JSON.parse(json) as Snapshot;
    if (snapshot.version !== LEXICAL_SNAPSHOT_VERSION) {
      throw new DocQaError('schema-version', `lexical index snapshot version ${snapshot.version} is not supported (expected ${LEXICAL_SNAPSHOT_VERSION}); the index will be rebuilt`);
    }
    const index = new LexicalIndex(snapshot.options);
    index.ms = MiniSearch.loadJS(snapshot.minisearch as Parameters<typeof MiniSearch.loadJS>[0], miniSearchOptions(snapshot.options));
    index.memo = new TermMemo(index.ms);
    return index;
  }
}
