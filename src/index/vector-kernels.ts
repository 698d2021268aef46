/**
 * The inner loops of the flat vector index: dot products over one row of a contiguous typed array, int8
 * scalar quantisation (with a 4-bit residual for re-scoring) and 1-bit sign codes scored against the float query.
 * Kept apart so each scan stays small enough for the JIT to keep monomorphic (one function per storage
 * type, no per-row allocation, unrolled, accumulators in locals).
 */

/*
 * An unrolled loop does its remainder (dims mod 4) first, in a loop with its own counter. With the
 * remainder after the main loop, sharing one counter, V8 ran the same kernel 2.2× slower (the byte-per-code
 * int8 kernel, 100k × 384, standalone: 54 ms against 21–24 ms; presumably bounds checks it could not drop).
 */

/** Dot product of row `row` of `data` (rows of `dims` floats, back to back) with `query`. */
export function dotF32(data: Float32Array, row: number, query: Float32Array, dims: number): number {
  const base = row * dims;
  const rest = dims & 3;
  let a0 = 0;
  let a1 = 0;
  let a2 = 0;
  let a3 = 0;
  for (let d = 0; d < rest; d++) a0 += data[base + d]! * query[d]!;
  for (let d = rest; d < dims; d += 4) {
    const o = base + d;
    a0 += data[o]! * query[d]!;
    a1 += data[o + 1]! * query[d + 1]!;
    a2 += data[o + 2]! * query[d + 2]!;
    a3 += data[o + 3]! * query[d + 3]!;
  }
  return a0 + a1 + a2 + a3;
}

/** Bytes per row of int8 codes: dimensions rounded up to whole 32-bit words (the padding codes are 0). */
export const codeStride = (dims: number) => (dims + 3) & ~3;

/**
 * Integer dot product of one row of int8 codes, read four at a time as 32-bit words (`words`, a view of the
 * codes, `stride / 4` words a row; little-endian, so byte i of a word is dimension 4w + i), with a quantised
 * query (`query`, integers in −127…127, zero in the padding). All in int32 (`| 0`). Both halves measured
 * at 100k × 384 in one process, alternating: one byte load per code 40 ms, one word load per 4 codes
 * 21 ms; and int8 × float query multiplies ~2× slower than int × int. Cannot overflow:
 * |sum| ≤ 127² × 65,536 < 2³¹.
 */
export function dotI8(words: Int32Array, row: number, query: Int32Array, wordsPerRow: number): number {
  const base = row * wordsPerRow;
  let a0 = 0;
  let a1 = 0;
  for (let w = 0; w < wordsPerRow; w++) {
    const x = words[base + w]!;
    const d = w << 2;
    a0 = (a0 + ((x << 24) >> 24) * query[d]! + ((x << 16) >> 24) * query[d + 1]!) | 0;
    a1 = (a1 + ((x << 8) >> 24) * query[d + 2]! + (x >> 24) * query[d + 3]!) | 0;
  }
  return (a0 + a1) | 0;
}

/** Quantises a query to integers in −127…127 (one scale: rankings do not depend on it) into `out`. */
export function quantiseQuery(query: Float32Array, out: Int32Array): void {
  let max = 0;
  for (let d = 0; d < query.length; d++) max = Math.max(max, Math.abs(query[d]!));
  const inv = max === 0 ? 0 : 127 / max;
  for (let d = 0; d < query.length; d++) out[d] = Math.round(query[d]! * inv);
}

/** Bytes of 4-bit residuals per row: two dimensions a byte. */
export const residualBytes = (dims: number) => (dims + 1) >> 1;

/**
 * Quantises `vector` into `codes` at row `row` (`codeStride(dims)` bytes a row) with one scale per vector (symmetric, 127 levels each side,
 * `code = round(x / step)`, `step = max |x| / 127`), and the rounding error into `residuals` (4 bits per
 * dimension, in sixteenths of a step, two a byte), so `x ≈ step · (code + residual / 16)`: 12 bits in all.
 * Returns `step` (0 for an all-zero vector). Per-vector scales keep each row independent of the others,
 * so adding or removing rows never re-quantises the rest (incremental updates equal a rebuild exactly).
 */
export function quantiseRow(vector: Float32Array, codes: Int8Array, residuals: Uint8Array, row: number): number {
  const dims = vector.length;
  let max = 0;
  for (let d = 0; d < dims; d++) max = Math.max(max, Math.abs(vector[d]!));
  const base = row * codeStride(dims);
  const rBase = row * residualBytes(dims);
  residuals.fill(0, rBase, rBase + residualBytes(dims));
  codes.fill(0, base, base + codeStride(dims));
  if (max === 0) return 0;
  const inv = 127 / max;
  for (let d = 0; d < dims; d++) {
    const x = vector[d]! * inv;
    const c = Math.round(x);
    codes[base + d] = c;
    // The error is within ±0.5 step: ±8 sixteenths, clamped to the nibble's −8…7.
    const r = Math.min(7, Math.round((x - c) * 16));
    const at = rBase + (d >> 1);
    residuals[at] = residuals[at]! | ((r & 15) << ((d & 1) << 2));
  }
  return max / 127;
}

/**
 * Dot product of a float query with row `row` dequantised at 12 bits (`code + residual / 16`), in steps:
 * the caller multiplies by the row's step. For re-scoring a shortlist, not for scanning.
 */
export function dotI8Fine(codes: Int8Array, residuals: Uint8Array, row: number, query: Float32Array, dims: number): number {
  const base = row * codeStride(dims);
  const rBase = row * residualBytes(dims);
  let coarse = 0;
  let fine = 0;
  for (let d = 0; d < dims; d++) {
    const q = query[d]!;
    coarse += codes[base + d]! * q;
    const nibble = (residuals[rBase + (d >> 1)]! >> ((d & 1) << 2)) & 15;
    fine += ((nibble << 28) >> 28) * q;
  }
  return coarse + fine / 16;
}

/** 32-bit words of sign code per row. */
export const signWords = (dims: number) => (dims + 31) >> 5;

/** Writes the sign code of `vector` (bit d set when x_d > 0) at row `row` of `bits`. */
export function signRow(vector: Float32Array, bits: Int32Array, row: number): void {
  const dims = vector.length;
  const base = row * signWords(dims);
  for (let start = 0, w = base; start < dims; start += 32, w++) {
    const end = Math.min(start + 32, dims);
    let word = 0;
    // `(x > 0) | 0` rather than an `if`: signs are random, so a branch would be mispredicted half the time.
    for (let d = start; d < end; d++) word |= ((vector[d]! > 0) as unknown as number) << (d - start);
    bits[w] = word;
  }
}

/** Entries of the query's sign table: 256 sums for every byte of a row's sign code. */
export const signTableSize = (dims: number) => signWords(dims) * 4 * 256;

/**
 * Fills `table` (`signTableSize(dims)` entries) so that entry `256·b + v` is the sum of the query's
 * components whose bits are set in byte value `v` at byte `b` of a sign code (dimensions 8b … 8b + 7).
 * {@link signDot} then scores a row's sign code against the float query in one lookup per byte.
 */
export function signTable(query: Float32Array, table: Float64Array): void {
  const dims = query.length;
  const bytes = signWords(dims) * 4;
  for (let b = 0; b < bytes; b++) {
    const base = b << 8;
    table[base] = 0;
    for (let v = 1; v < 256; v++) {
      // v without its lowest set bit is smaller than v, so its sum is already in the table.
      const low = 31 - Math.clz32(v & -v);
      const d = (b << 3) + low;
      table[base + v] = table[base + (v & (v - 1))]! + (d < dims ? query[d]! : 0);
    }
  }
}

/**
 * Asymmetric score of row `row`'s sign code against the float query whose {@link signTable} is `table`:
 * the sum of the query's components where the row is positive. The dot product of the query with the
 * row's ±1 code is twice this less the sum of the query, so both rank rows alike; unlike a Hamming
 * distance, it keeps the query's magnitudes, so its ranking is much closer to the exact one.
 */
export function signDot(bits: Int32Array, row: number, table: Float64Array, words: number): number {
  const base = row * words;
  let a0 = 0;
  let a1 = 0;
  for (let w = 0, t = 0; w < words; w++, t += 1024) {
    const x = bits[base + w]!;
    a0 += table[t + (x & 255)]! + table[t + 256 + ((x >>> 8) & 255)]!;
    a1 += table[t + 512 + ((x >>> 16) & 255)]! + table[t + 768 + (x >>> 24)]!;
  }
  return a0 + a1;
}

/** A min-heap of the `k` best scores seen so far, in a typed array: the root is the k-th best. */
export class ScoreHeap {
  private readonly heap: Float64Array;
  private count = 0;

  constructor(readonly k: number) {
    this.heap = new Float64Array(Math.max(1, k));
  }

  /** The score a new one must reach to enter (−∞ until k scores are in). */
  get threshold(): number {
    return this.count < this.k ? -Infinity : this.heap[0]!;
  }

  push(score: number): void {
    const h = this.heap;
    if (this.count < this.k) {
      let i = this.count++;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (h[p]! <= score) break;
        h[i] = h[p]!;
        i = p;
      }
      h[i] = score;
      return;
    }
    if (score <= h[0]!) return;
    const n = this.count;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && h[r]! < h[l]! ? r : l;
      if (h[c]! >= score) break;
      h[i] = h[c]!;
      i = c;
    }
    h[i] = score;
  }
}
