/**
 * An immutable part of the lexical index, held in typed arrays instead of MiniSearch's maps: a sorted
 * term dictionary (UTF-8, one byte array and offsets), each term's postings as delta-coded chunk
 * ordinals with their term frequencies (variable-length integers, one byte array and offsets), and each
 * chunk's id and length. At 100k chunks MiniSearch holds about 5 KB of heap per chunk in maps and
 * objects; a segment holds the same postings in a few bytes each, and saves and loads as one
 * `Uint8Array` with nothing to parse but the chunk ids. Scoring is `LexicalIndex`'s business (it needs the
 * statistics of every part together); a segment only answers which chunks hold a term, how often, and
 * how long each chunk is.
 */
import { DocQaError } from '../core/errors.ts';

/** Binary format version of one segment; an unknown version is refused (the index is rebuilt). */
export const SEGMENT_VERSION = 1;
/** "DQLS" read as a little-endian 32-bit integer. */
const MAGIC = 0x534c5144;
const HEADER_WORDS = 11;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Bytes compared as unsigned: the order of UTF-8 bytes is the order of code points. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = a[i]! - b[i]!;
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

/** Postings decoded for scoring: chunk ordinals ascending and their term frequencies. */
export interface Postings {
  ordinals: Uint32Array;
  frequencies: Uint32Array;
}

/** A search's running scores over one segment's chunks, by ordinal; zeroed again after each search. */
export interface ScoreBoard {
  scores: Float64Array;
  /** Distinct query terms each chunk matched. */
  matched: Uint16Array;
  /** Ordinals with a score, the first `touchedCount` entries. */
  touched: Int32Array;
  touchedCount: number;
}

export class LexicalSegment {
  /** Sum of every chunk's length (number of terms). */
  readonly totalLength: number;

  constructor(
    /** Ordinal → chunk id. */
    readonly ids: readonly string[],
    /** Ordinal → number of terms in the chunk (BM25's field length). */
    readonly lengths: Uint32Array,
    private readonly termStarts: Uint32Array,
    private readonly termBytes: Uint8Array,
    private readonly postingStarts: Uint32Array,
    /** Term → number of chunks holding it. */
    private readonly dfs: Uint32Array,
    private readonly postings: Uint8Array,
  ) {
    let total = 0;
    for (const n of lengths) total += n;
    this.totalLength = total;
  }

  get size(): number {
    return this.ids.length;
  }

  get termCount(): number {
    return this.dfs.length;
  }

  /** The term's bytes (a view, not a copy). */
  termAt(t: number): Uint8Array {
    return this.termBytes.subarray(this.termStarts[t]!, this.termStarts[t + 1]!);
  }

  /** The term at `t`, as a string. */
  termText(t: number): string {
    return decoder.decode(this.termAt(t));
  }

  /** Index of a term in the dictionary, or -1 (binary search over UTF-8 bytes). */
  find(term: string | Uint8Array): number {
    const key = typeof term === 'string' ? encoder.encode(term) : term;
    let lo = 0;
    let hi = this.termCount - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const c = compareBytes(this.termAt(mid), key);
      if (c === 0) return mid;
      if (c < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /** Number of chunks holding term `t` (deleted ones included: the index knows which are). */
  frequency(t: number): number {
    return this.dfs[t]!;
  }

  /**
   * Decodes term `t`'s postings into `ordinals` and `frequencies` from index `at`, each ordinal mapped
   * through `remap` when given (a negative one is left out); returns the index after the last written.
   */
  decodeInto(t: number, remap: Int32Array | undefined, ordinals: Uint32Array, frequencies: Uint32Array, at: number): number {
    const bytes = this.postings;
    const end = this.postingStarts[t + 1]!;
    let i = this.postingStarts[t]!;
    let ordinal = -1;
    while (i < end) {
      let gap = 0;
      let shift = 0;
      let b: number;
      do {
        b = bytes[i++]!;
        gap |= (b & 0x7f) << shift;
        shift += 7;
      } while (b & 0x80);
      let tf = 0;
      shift = 0;
      do {
        b = bytes[i++]!;
        tf |= (b & 0x7f) << shift;
        shift += 7;
      } while (b & 0x80);
      ordinal += (gap >>> 0) + 1;
      const to = remap ? remap[ordinal]! : ordinal;
      if (to < 0) continue;
      ordinals[at] = to;
      frequencies[at++] = tf >>> 0;
    }
    return at;
  }

  /** Chunks holding term `t` that are not deleted (`deleted[ordinal]` 1). */
  liveFrequency(t: number, deleted: Uint8Array): number {
    const bytes = this.postings;
    const end = this.postingStarts[t + 1]!;
    let at = this.postingStarts[t]!;
    let ordinal = -1;
    let n = 0;
    while (at < end) {
      let gap = 0;
      let shift = 0;
      let b: number;
      do {
        b = bytes[at++]!;
        gap |= (b & 0x7f) << shift;
        shift += 7;
      } while (b & 0x80);
      while (bytes[at++]! & 0x80); // The frequency.
      ordinal += (gap >>> 0) + 1;
      if (!deleted[ordinal]) n++;
    }
    return n;
  }

  /**
   * Adds term `t`'s BM25 part to the score of each chunk holding it, deleted ones skipped:
   * `idf × (tf × (k1 + 1) / (tf + norms[ordinal]))`, MiniSearch's `calcBM25Score` with d = 0 and its length
   * part `k1 × (1 − b + b × length / average)` computed once per chunk. With `first` (the term's first
   * time in the query) the term is counted in `matched`, and chunks met for the first time are listed in
   * `touched`. The postings are decoded here, in the loop, not into arrays.
   */
  addScores(t: number, idf: number, k1: number, norms: Float64Array, deleted: Uint8Array, into: ScoreBoard, first: boolean): void {
    const bytes = this.postings;
    const end = this.postingStarts[t + 1]!;
    const { scores, matched, touched } = into;
    let at = this.postingStarts[t]!;
    let ordinal = -1;
    while (at < end) {
      let gap = 0;
      let shift = 0;
      let b: number;
      do {
        b = bytes[at++]!;
        gap |= (b & 0x7f) << shift;
        shift += 7;
      } while (b & 0x80);
      let tf = 0;
      shift = 0;
      do {
        b = bytes[at++]!;
        tf |= (b & 0x7f) << shift;
        shift += 7;
      } while (b & 0x80);
      ordinal += (gap >>> 0) + 1;
      if (deleted[ordinal]) continue;
      if (first) {
        if (matched[ordinal] === 0) touched[into.touchedCount++] = ordinal;
        matched[ordinal]!++;
      }
      scores[ordinal]! += idf * ((tf * (k1 + 1)) / (tf + norms[ordinal]!));
    }
  }

  /** Term `t`'s postings, decoded (deleted chunks included). */
  postingsOf(t: number): Postings {
    const n = this.dfs[t]!;
    const ordinals = new Uint32Array(n);
    const frequencies = new Uint32Array(n);
    this.decodeInto(t, undefined, ordinals, frequencies, 0);
    return { ordinals, frequencies };
  }


  /** Bytes held by the segment's arrays (the chunk id strings not counted). */
  get byteLength(): number {
    return this.lengths.byteLength + this.termStarts.byteLength + this.termBytes.byteLength + this.postingStarts.byteLength + this.dfs.byteLength + this.postings.byteLength;
  }

  /**
   * The segment as bytes: a header of 32-bit words (magic, version, chunk count, term count, and the
   * byte length of each array), then the arrays, each padded to 4 bytes so that loading makes views of
   * them without copying. Chunk ids travel as one UTF-8 text, a line each.
   */
  toBytes(): Uint8Array {
    const ids = encoder.encode(this.ids.join('\n'));
    const arrays: Uint8Array[] = [
      u8(this.lengths),
      u8(this.termStarts),
      this.termBytes,
      u8(this.postingStarts),
      u8(this.dfs),
      this.postings,
      ids,
    ];
    const header = new Uint32Array(HEADER_WORDS);
    header.set([MAGIC, SEGMENT_VERSION, this.size, this.termCount]);
    arrays.forEach((a, i) => (header[4 + i] = a.byteLength));
    const padded = (n: number) => (n + 3) & ~3;
    const out = new Uint8Array(header.byteLength + arrays.reduce((n, a) => n + padded(a.byteLength), 0));
    out.set(u8(header));
    let at = header.byteLength;
    for (const a of arrays) {
      out.set(a, at);
      at += padded(a.byteLength);
    }
    return out;
  }

  /** Reads {@link toBytes}'s output (views of `bytes`, not copies); throws on a damaged or unknown one. */
  static fromBytes(bytes: Uint8Array): LexicalSegment {
    if (bytes.byteLength < HEADER_WORDS * 4) throw damaged('it is shorter than its header');
    const aligned = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
    const header = new Uint32Array(aligned.buffer, aligned.byteOffset, HEADER_WORDS);
    if (header[0] !== MAGIC) throw damaged('it does not start as one');
    if (header[1] !== SEGMENT_VERSION) throw new DocQaError('schema-version', `lexical index segment version ${header[1]} is not supported (expected ${SEGMENT_VERSION}); the index will be rebuilt`);
    const [chunks, terms] = [header[2]!, header[3]!];
    let at = aligned.byteOffset + HEADER_WORDS * 4;
    const end = aligned.byteOffset + aligned.byteLength;
    const take = (i: number): Uint8Array => {
      const n = header[4 + i]!;
      if (at + n > end) throw damaged('it is cut short');
      const view = new Uint8Array(aligned.buffer, at, n);
      at += (n + 3) & ~3;
      return view;
    };
    const words = (i: number, count: number): Uint32Array => {
      const view = take(i);
      if (view.byteLength !== count * 4) throw damaged('its arrays do not agree with its counts');
      return new Uint32Array(view.buffer, view.byteOffset, count);
    };
    const lengths = words(0, chunks);
    const termStarts = words(1, terms + 1);
    const termBytes = take(2);
    const postingStarts = words(3, terms + 1);
    const dfs = words(4, terms);
    const postings = take(5);
    const idText = decoder.decode(take(6));
    const ids = chunks ? idText.split('\n') : [];
    if (ids.length !== chunks || termStarts[terms] !== termBytes.byteLength || postingStarts[terms] !== postings.byteLength) throw damaged('its arrays do not agree with its counts');
    return new LexicalSegment(ids, lengths, termStarts, termBytes, postingStarts, dfs, postings);
  }
}

function u8(a: Uint32Array): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

function damaged(why: string): DocQaError {
  return new DocQaError('schema-version', `lexical index segment is damaged (${why}); the index will be rebuilt`);
}
