import MiniSearch, { type Options, type SearchOptions } from 'minisearch';
import { DocQaError } from '../core/errors.ts';
import { asChunkId, type ChunkId, type DocId } from '../core/ids.ts';
import type { Hit, IndexEntry, IndexFilter, SearchIndex } from './search-index.ts';
import { processTerm, termsOf, tokenize } from '../core/tokenize.ts';
import { topK } from './top-k.ts';

/** Snapshot format version; unknown versions are refused and the index is rebuilt from the store. */
export const LEXICAL_SNAPSHOT_VERSION = 2;

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
  /** chunk id → [owner doc id, owner title][] */
  owners: Array<[string, Array<[string, string]>]>;
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
function withHeader(chunk: IndexedChunk): string {
  return chunk.title ? `${chunk.title}\n\n${chunk.text}` : chunk.text;
}

function miniSearchOptions(options: LexicalOptions): Options<IndexedChunk> {
  return {
    idField: 'id',
    fields: options.titleBoost > 0 ? ['title', 'text'] : ['text'],
    storeFields: [],
    extractField: (chunk, field) => (field === 'text' ? withHeader(chunk) : chunk[field as keyof IndexedChunk]),
    tokenize: indexTokenize,
    processTerm: termAt,
    searchOptions: { tokenize, processTerm },
  };
}

/**
 * BM25 over chunk text headed by its document's title (MiniSearch, with plain BM25 scores: MiniSearch's
 * bonus for matching more distinct query terms is taken out). Chunks shared by several documents are indexed once and
 * remember their owners; the indexed title is the title of the owner with the smallest id, so the index
 * is the same whatever order documents were added and removed in.
 */
export class LexicalIndex implements SearchIndex {
  private ms: MiniSearch<IndexedChunk>;
  private memo: TermMemo;
  private owners = new Map<ChunkId, Map<DocId, string>>();
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
    return this.owners.size;
  }

  private titleOf(owners: Map<DocId, string>): string {
    let best: DocId | undefined;
    for (const id of owners.keys()) if (best === undefined || id < best) best = id;
    return best === undefined ? '' : (owners.get(best) ?? '');
  }

  add(entries: readonly IndexEntry[]): void {
    const fresh: IndexedChunk[] = [];
    for (const e of entries) {
      const owners = this.owners.get(e.chunkId);
      if (!owners) {
        this.owners.set(e.chunkId, new Map([[e.docId, e.title]]));
        fresh.push({ id: e.chunkId, text: e.text, title: e.title });
        continue;
      }
      const before = this.titleOf(owners);
      owners.set(e.docId, e.title);
      this.retitle(e, before, owners);
    }
    // addAll of fresh chunks only; a chunk repeated inside one batch was caught by the owners map.
    this.memo.adding(() => this.ms.addAll(fresh));
  }

  remove(entries: readonly IndexEntry[]): void {
    for (const e of entries) {
      const owners = this.owners.get(e.chunkId);
      if (!owners?.has(e.docId)) continue;
      const before = this.titleOf(owners);
      owners.delete(e.docId);
      if (owners.size === 0) {
        this.ms.remove({ id: e.chunkId, text: e.text, title: before });
        this.owners.delete(e.chunkId);
      } else this.retitle(e, before, owners);
    }
  }

  /**
   * Removes documents whose chunk texts may already be gone (deleted by another tab): chunks only they
   * owned are discarded by id, then the index is vacuumed, which leaves it as a rebuild would be. A chunk
   * that other documents still own keeps them; `textOf` (the store) gives its text when its title must
   * change.
   */
  async discardDocuments(docIds: ReadonlySet<DocId>, textOf: (chunkId: ChunkId) => Promise<string | undefined>): Promise<void> {
    let discarded = false;
    for (const [chunkId, owners] of [...this.owners]) {
      const gone = [...owners.keys()].filter((d) => docIds.has(d));
      if (!gone.length) continue;
      if (gone.length === owners.size) {
        this.ms.discard(chunkId);
        this.owners.delete(chunkId);
        discarded = true;
        continue;
      }
      const before = this.titleOf(owners);
      for (const d of gone) owners.delete(d);
      if (this.titleOf(owners) !== before) {
        const text = await textOf(chunkId);
        if (text === undefined) throw new DocQaError('internal', `lexical index: chunk ${chunkId} is owned by a document but missing from the store`);
        this.retitle({ chunkId, docId: gone[0]!, text, title: before }, before, owners);
      }
    }
    if (discarded) await this.ms.vacuum();
  }

  /** MiniSearch removes exactly only with the original fields; every entry carries its chunk's text. */
  private retitle(e: IndexEntry, before: string, owners: Map<DocId, string>): void {
    const after = this.titleOf(owners);
    if (after === before) return;
    this.ms.remove({ id: e.chunkId, text: e.text, title: before });
    this.ms.add({ id: e.chunkId, text: e.text, title: after });
  }

  search(query: string, k: number, filter?: IndexFilter): Hit[] {
    const allowed = filter?.docIds;
    const options: SearchOptions = allowed
      ? { ...this.searchOptions, filter: (r) => [...(this.owners.get(r.id as ChunkId)?.keys() ?? [])].some((d) => allowed.has(d)) }
      : this.searchOptions;
    // MiniSearch multiplies each score by the number of distinct query terms matched; plain BM25 ranks better.
    const hits = this.ms.search(query, options).map((r) => ({ chunkId: asChunkId(String(r.id)), score: r.score / Math.max(1, r.queryTerms.length) }));
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
   * every such chunk.
   */
  documentFrequency(term: string): number {
    const internals = this.ms as unknown as { _index: { get(term: string): Map<number, Map<number, number>> | undefined }; _fieldIds: Record<string, number> };
    return internals._index.get(term)?.get(internals._fieldIds['text']!)?.size ?? 0;
  }

  docIds(): Set<DocId> {
    return new Set(this.chunkCounts().keys());
  }

  chunkCounts(): Map<DocId, number> {
    const out = new Map<DocId, number>();
    for (const owners of this.owners.values()) for (const d of owners.keys()) out.set(d, (out.get(d) ?? 0) + 1);
    return out;
  }

  /** Owners of a chunk (for tests and diagnostics). */
  ownersOf(chunkId: ChunkId): DocId[] {
    return [...(this.owners.get(chunkId)?.keys() ?? [])].sort();
  }

  serialize(): string {
    const snapshot: Snapshot = {
      version: LEXICAL_SNAPSHOT_VERSION,
      options: this.options,
      minisearch: this.ms.toJSON(),
      owners: [...this.owners].map(([c, o]) => [c, [...o]]),
    };
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
    index.owners = new Map(snapshot.owners.map(([c, o]) => [asChunkId(c), new Map(o as Array<[DocId, string]>)]));
    return index;
  }
}
