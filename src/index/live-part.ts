/**
 * The lexical index's live part: the chunks added lately, in a MiniSearch (with the app's tokenizer and
 * stemmer) until they are written into a segment of their own (`LexicalIndex`). Chunks added since the
 * last search wait outside MiniSearch until a search needs them, so ingesting a folder with no question
 * asked meanwhile never pays for MiniSearch's term tree (about half the cost of adding, decision 0036).
 */
import MiniSearch, { type Options } from 'minisearch';
import { headedText } from '../core/doc-title.ts';
import { termsOf } from '../text/tokenize.ts';
import type { LexicalSegment } from './lexical-segment.ts';
import { addPostings, SegmentBuilder, writeTerms } from './segment-builder.ts';

/** A chunk as the live part holds it: its text, headed by its title. */
export interface IndexedChunk {
  id: string;
  text: string;
  title: string;
}

/** Indexed text of a chunk: its document's title as a header line, then the chunk. */
export const withHeader = (chunk: IndexedChunk): string => headedText(chunk.title, chunk.text);

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

function termAt(position: string): string {
  return fieldTerms[position as unknown as number]!;
}

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

/** What scoring reads of MiniSearch's private state (7.x): postings per term and field, ids and lengths by short id. */
interface MiniSearchInternals {
  _index: Iterable<[string, Map<number, Map<number, number>>]> & { get(term: string): Map<number, Map<number, number>> | undefined };
  _documentIds: Map<number, string>;
  _fieldLength: Map<number, number[]>;
}

interface TermMap {
  fetch(term: string, initial: () => unknown): unknown;
}

/** The one field indexed ('text', headed by the title). */
const FIELD = 0;

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

/** The live part: a MiniSearch and the chunks waiting to enter it. */
export class LivePart {
  private ms = new MiniSearch<IndexedChunk>(MINISEARCH_OPTIONS);
  private memo = new TermMemo(this.ms);
  /** Chunks added since the last search, not yet in MiniSearch ({@link materialize} puts them there). */
  private pending = new Map<string, IndexedChunk>();

  /** Chunks held, waiting ones included. */
  get size(): number {
    return this.ms.documentCount + this.pending.size;
  }

  has(id: string): boolean {
    return this.pending.has(id) || this.ms.has(id);
  }

  /** Holds a chunk (not already held: the index drops an old one first). */
  add(chunk: IndexedChunk): void {
    this.pending.set(chunk.id, chunk);
  }

  /**
   * Lets a chunk go: a waiting one is forgotten, one in MiniSearch discarded (its postings stay there,
   * unread, until the part is written into a segment). False when the part does not hold it.
   */
  drop(id: string): boolean {
    if (this.pending.delete(id)) return true;
    if (!this.ms.has(id)) return false;
    this.ms.discard(id);
    return true;
  }

  /** Puts the chunks waiting into MiniSearch (before anything reads its postings). */
  private materialize(): void {
    if (!this.pending.size) return;
    const chunks = [...this.pending.values()];
    this.pending.clear();
    this.memo.adding(() => this.ms.addAll(chunks));
  }

  private get internals(): MiniSearchInternals {
    this.materialize();
    return this.ms as unknown as MiniSearchInternals;
  }

  /** Sum of the lengths (indexed terms) of the chunks held. */
  totalLength(): number {
    const ms = this.internals;
    let total = 0;
    for (const shortId of ms._documentIds.keys()) total += ms._fieldLength.get(shortId)![FIELD]!;
    return total;
  }

  /** Chunks held that contain the processed term. */
  frequency(term: string): number {
    const ms = this.internals;
    let df = 0;
    for (const shortId of ms._index.get(term)?.get(FIELD)?.keys() ?? []) if (ms._documentIds.has(shortId)) df++;
    return df;
  }

  /** Calls `each` with the id, term frequency and length of every chunk held that contains the term. */
  forPostings(term: string, each: (id: string, tf: number, length: number) => void): void {
    const ms = this.internals;
    for (const [shortId, tf] of ms._index.get(term)?.get(FIELD) ?? []) {
      const id = ms._documentIds.get(shortId);
      if (id !== undefined) each(id, tf, ms._fieldLength.get(shortId)![FIELD]!);
    }
  }

  /**
   * Writes every chunk held into one segment (MiniSearch's postings read straight, waiting chunks
   * without going through MiniSearch) and empties the part; undefined when it holds none.
   */
  toSegment(): LexicalSegment | undefined {
    if (!this.size) return undefined;
    const ms = this.ms as unknown as MiniSearchInternals;
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
      addPostings(byTerm, builder.chunk(chunk.id, terms.length), terms);
    }
    writeTerms(builder, byTerm);
    this.pending.clear();
    this.ms = new MiniSearch(MINISEARCH_OPTIONS);
    this.memo = new TermMemo(this.ms);
    return builder.done();
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
