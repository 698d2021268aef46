/**
 * The inner loops of the flat vector index: dot products over one row of a contiguous typed array, and
 * int8 scalar quantisation. Kept apart so the scan stays small enough for the JIT to keep monomorphic
 * (one function per storage type, no per-row allocation, unrolled by 4).
 */

/** Dot product of row `row` of `data` (rows of `dims` floats, back to back) with `query`. */
export function dotF32(data: Float32Array, row: number, query: Float32Array, dims: number): number {
  const base = row * dims;
  const end4 = dims & ~3;
  let a0 = 0;
  let a1 = 0;
  let a2 = 0;
  let a3 = 0;
  let d = 0;
  for (; d < end4; d += 4) {
    const o = base + d;
    a0 += data[o]! * query[d]!;
    a1 += data[o + 1]! * query[d + 1]!;
    a2 += data[o + 2]! * query[d + 2]!;
    a3 += data[o + 3]! * query[d + 3]!;
  }
  for (; d < dims; d++) a0 += data[base + d]! * query[d]!;
  return a0 + a1 + a2 + a3;
}

/**
 * Dot product of int8 codes (row `row` of `codes`) with a float query: the query is not quantised
 * (asymmetric scoring), so only the stored side loses precision. The caller multiplies by the row's scale.
 */
export function dotI8(codes: Int8Array, row: number, query: Float32Array, dims: number): number {
  const base = row * dims;
  const end4 = dims & ~3;
  let a0 = 0;
  let a1 = 0;
  let a2 = 0;
  let a3 = 0;
  let d = 0;
  for (; d < end4; d += 4) {
    const o = base + d;
    a0 += codes[o]! * query[d]!;
    a1 += codes[o + 1]! * query[d + 1]!;
    a2 += codes[o + 2]! * query[d + 2]!;
    a3 += codes[o + 3]! * query[d + 3]!;
  }
  for (; d < dims; d++) a0 += codes[base + d]! * query[d]!;
  return a0 + a1 + a2 + a3;
}

/**
 * Quantises `vector` into `codes` at row `row` with one scale per vector (symmetric, 127 levels each side,
 * `code = round(127 · x / max |x|)`), and returns the row's score factor `1 / ‖codes‖`: a score is then the
 * cosine between the query and the dequantised vector. Re-normalising the rounded vector this way lifted
 * recall@10 on clustered 384-d data from 0.987–0.990 to 0.990–0.992 (per-dimension scales: 0.983–0.987).
 * Per-vector scales keep each row independent of the others, so adding or removing rows never
 * re-quantises the rest (incremental updates equal a rebuild exactly). An all-zero vector gets factor 0.
 */
export function quantiseRow(vector: Float32Array, codes: Int8Array, row: number): number {
  const dims = vector.length;
  let max = 0;
  for (let d = 0; d < dims; d++) {
    const a = Math.abs(vector[d]!);
    if (a > max) max = a;
  }
  const base = row * dims;
  if (max === 0) {
    codes.fill(0, base, base + dims);
    return 0;
  }
  const inv = 127 / max;
  let norm2 = 0;
  for (let d = 0; d < dims; d++) {
    const c = Math.round(vector[d]! * inv);
    codes[base + d] = c;
    norm2 += c * c;
  }
  return 1 / Math.sqrt(norm2);
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
