/**
 * Writing a lexical segment (`lexical-segment.ts`): chunks first, in ordinal order, then terms in byte
 * order with their postings delta-coded in variable-length integers. Used when the live part is written
 * out (`live-part.ts`), when a big batch goes straight into a segment, and by merges (`segment-merge.ts`).
 */
import { compareBytes, LexicalSegment } from './lexical-segment.ts';

const encoder = new TextEncoder();

/** A growing byte array written with variable-length integers (7 bits a byte, low bits first). */
class ByteWriter {
  bytes = new Uint8Array(1024);
  length = 0;

  private reserve(n: number): void {
    if (this.length + n <= this.bytes.length) return;
    let size = this.bytes.length * 2;
    while (size < this.length + n) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }

  varint(value: number): void {
    this.reserve(5);
    let v = value >>> 0;
    while (v >= 0x80) {
      this.bytes[this.length++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.bytes[this.length++] = v;
  }

  raw(bytes: Uint8Array): void {
    this.reserve(bytes.length);
    this.bytes.set(bytes, this.length);
    this.length += bytes.length;
  }

  done(): Uint8Array {
    return this.bytes.slice(0, this.length);
  }
}

/** A growing array of 32-bit offsets. */
class OffsetWriter {
  values = new Uint32Array(1024);
  length = 0;

  push(value: number): void {
    if (this.length === this.values.length) {
      const grown = new Uint32Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.length++] = value;
  }

  done(): Uint32Array {
    return this.values.slice(0, this.length);
  }
}

/**
 * Writes a segment: chunks first (in ordinal order), then terms in byte order, each with its postings
 * in ordinal order.
 */
export class SegmentBuilder {
  private ids: string[] = [];
  private lengths = new OffsetWriter();
  private termBytes = new ByteWriter();
  private termStarts = new OffsetWriter();
  private postings = new ByteWriter();
  private postingStarts = new OffsetWriter();
  private dfs = new OffsetWriter();
  private lastTerm: Uint8Array | undefined;

  /** Adds a chunk; returns its ordinal. */
  chunk(id: string, length: number): number {
    this.ids.push(id);
    this.lengths.push(length);
    return this.ids.length - 1;
  }

  /** Adds a term (after every smaller one) with `count` postings, ordinals ascending. */
  term(term: Uint8Array, ordinals: ArrayLike<number>, frequencies: ArrayLike<number>, count: number): void {
    if (!count) return;
    if (this.lastTerm && compareBytes(this.lastTerm, term) >= 0) throw new Error('lexical segment: terms must be added in byte order, once each');
    this.lastTerm = term;
    this.termStarts.push(this.termBytes.length);
    this.termBytes.raw(term);
    this.postingStarts.push(this.postings.length);
    this.dfs.push(count);
    let previous = -1;
    for (let i = 0; i < count; i++) {
      const ordinal = ordinals[i]!;
      if (ordinal <= previous || ordinal >= this.ids.length) throw new Error('lexical segment: postings must be known chunks in ascending order');
      this.postings.varint(ordinal - previous - 1);
      this.postings.varint(frequencies[i]!);
      previous = ordinal;
    }
  }

  done(): LexicalSegment {
    this.termStarts.push(this.termBytes.length);
    this.postingStarts.push(this.postings.length);
    const lengths = this.lengths.done();
    return new LexicalSegment(this.ids, lengths, this.termStarts.done(), this.termBytes.done(), this.postingStarts.done(), this.dfs.done(), this.postings.done());
  }
}

/** A chunk as a segment is built from it: its id and its processed terms in order (stop words out). */
export interface SegmentChunk {
  id: string;
  terms: readonly string[];
}

/** Builds a segment from chunks (ordinals in the order given). */
export function segmentOf(chunks: readonly SegmentChunk[]): LexicalSegment {
  const builder = new SegmentBuilder();
  const byTerm = new Map<string, number[]>();
  for (const chunk of chunks) addPostings(byTerm, builder.chunk(chunk.id, chunk.terms.length), chunk.terms);
  writeTerms(builder, byTerm);
  return builder.done();
}

/** Adds a chunk's terms (in text order, repeats counted) to flat [ordinal, tf, …] lists by term. */
export function addPostings(byTerm: Map<string, number[]>, ordinal: number, terms: readonly string[]): void {
  const counts = new Map<string, number>();
  for (const t of terms) counts.set(t, (counts.get(t) ?? 0) + 1);
  for (const [t, tf] of counts) {
    let list = byTerm.get(t);
    if (!list) byTerm.set(t, (list = []));
    list.push(ordinal, tf);
  }
}

/** Writes terms and their flat [ordinal, tf, ordinal, tf…] lists in byte order. */
export function writeTerms(builder: SegmentBuilder, byTerm: Map<string, number[]>): void {
  const terms = [...byTerm.keys()].map((t) => ({ t, bytes: encoder.encode(t) }));
  terms.sort((a, b) => compareBytes(a.bytes, b.bytes));
  let ordinals = new Uint32Array(64);
  let frequencies = new Uint32Array(64);
  for (const { t, bytes } of terms) {
    const flat = byTerm.get(t)!;
    const n = flat.length / 2;
    if (n > ordinals.length) {
      ordinals = new Uint32Array(n * 2);
      frequencies = new Uint32Array(n * 2);
    }
    for (let i = 0; i < n; i++) {
      ordinals[i] = flat[2 * i]!;
      frequencies[i] = flat[2 * i + 1]!;
    }
    builder.term(bytes, ordinals, frequencies, n);
  }
}
