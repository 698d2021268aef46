/**
 * A flat vector index: every vector in one contiguous typed array, a query scores each allowed row
 * (dot product = cosine for L2-normalised vectors) and keeps the k best. Three storage forms: `f32` (exact
 * dot products over every row); `int8` (codes with one scale per vector and a 4-bit residual: an integer
 * scan with a quantised query picks a shortlist, re-scored at 12 bits: 2.6× fewer bytes than f32); `binary`
 * (f32 plus 1-bit sign codes: the float query scored against every sign code picks a shortlist, re-scored
 * exactly); `binary-int8` (the int8 codes plus the sign codes, no floats: the sign scan picks the
 * shortlist, re-scored at 12 bits: 2.5× fewer bytes than `binary`). See docs/decisions/0012-vector-index.md.
 * Pure core: no DOM, no worker; persisted as binary by {@link VectorIndex.serialize}.
 */
import { DocQaError } from '../core/errors.ts';
import type { ChunkId } from '../core/ids.ts';
import type { Hit } from './search-index.ts';
import { topK } from './top-k.ts';
import { decodeVectorIndex, encodeVectorIndex } from './vector-codec.ts';
import { codeStride, dotF32, dotI8, dotI8Fine, quantiseQuery, quantiseRow, residualBytes, ScoreHeap, signDot, signRow, signTable, signTableSize, signWords } from './vector-kernels.ts';

export type VectorStorage = 'f32' | 'int8' | 'binary' | 'binary-int8';
const STORAGES: readonly VectorStorage[] = ['f32', 'int8', 'binary', 'binary-int8'];

export interface VectorEntry {
  chunkId: ChunkId;
  /** L2-normalised (scores are dot products), `dimensions` long, finite. */
  vector: Float32Array;
}

/** Allowed chunks: a set of ids, or a predicate. Excluded rows are skipped before scoring. */
export type VectorFilter = ReadonlySet<ChunkId> | ((chunkId: ChunkId) => boolean);

export interface VectorIndexOptions {
  /** Length of every vector (e.g. 384 for bge-small / e5-small). Required, 1–65,536. */
  dimensions: number;
  /**
   * `f32` (default): exact scores, 4 bytes per dimension. `int8`: 1.5 bytes per dimension + 4 per vector,
   * scores within about 1e-4 of exact. `binary`: 4 bytes per dimension + 1 bit, exact scores of a shortlist.
   * `binary-int8`: int8's bytes + 1 bit per dimension, int8's scores of a shortlist the sign codes pick.
   */
  storage?: VectorStorage;
  /**
   * `int8` and `binary`: the cheap scan keeps the best `k × oversample` rows (and any tied with the last)
   * for re-scoring. Default 10 for `int8`, 50 for `binary` and `binary-int8` (1-bit codes rank coarsely);
   * 1–10,000. Not persisted.
   */
  oversample?: number;
}

const MAX_DIMENSIONS = 65_536;
const INITIAL_CAPACITY = 64;
const DEFAULT_OVERSAMPLE = { f32: 1, int8: 10, binary: 50, 'binary-int8': 50 } as const;
const MAX_OVERSAMPLE = 10_000;

/** Best first; equal scores by chunk id, so results never depend on insertion order. */
export function byScoreThenChunkId(x: Hit, y: Hit): number {
  if (x.score !== y.score) return y.score - x.score;
  return x.chunkId < y.chunkId ? -1 : x.chunkId > y.chunkId ? 1 : 0;
}

export class VectorIndex {
  readonly dimensions: number;
  readonly storage: VectorStorage;
  readonly oversample: number;
  /** Row → chunk id; rows are dense (0 … size − 1). */
  private ids: ChunkId[] = [];
  private rowOf = new Map<ChunkId, number>();
  private capacity = 0;
  /** Whether rows are kept as int8 codes (`int8`, `binary-int8`), else as floats (`f32`, `binary`). */
  private readonly quantised: boolean;
  /** Whether rows also have sign codes, scanned first (`binary`, `binary-int8`). */
  private readonly signed: boolean;
  /** f32 and binary: `capacity × dimensions` floats. */
  private f32 = new Float32Array(0);
  /** int8 and binary-int8: `capacity × codeStride(dimensions)` codes (and a 32-bit view of them), 4-bit residuals (two a byte), one step per row. */
  private codes = new Int8Array(0);
  private codeWords = new Int32Array(0);
  private residuals = new Uint8Array(0);
  private scales = new Float32Array(0);
  /** binary and binary-int8: `capacity × signWords(dimensions)` sign codes. */
  private bits = new Int32Array(0);
  /** Scores of one search's candidates, reused between searches. */
  private scratch = new Float64Array(0);
  /** The quantised query (int8), reused between searches. */
  private queryCode: Int32Array;
  /** binary: the query's sign table ({@link signTable}), reused between searches. */
  private signTable: Float64Array;

  constructor(options: VectorIndexOptions) {
    const { dimensions, storage = 'f32' } = options;
    if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > MAX_DIMENSIONS) {
      throw new DocQaError('invalid-vector', `vector index: dimensions must be an integer from 1 to ${MAX_DIMENSIONS}, got ${dimensions}`);
    }
    if (!STORAGES.includes(storage)) throw new DocQaError('invalid-vector', `vector index: unknown storage "${String(storage)}" (${STORAGES.join(', ')})`);
    const oversample = options.oversample ?? DEFAULT_OVERSAMPLE[storage];
    if (!Number.isInteger(oversample) || oversample < 1 || oversample > MAX_OVERSAMPLE) {
      throw new DocQaError('invalid-vector', `vector index: oversample must be an integer from 1 to ${MAX_OVERSAMPLE}, got ${oversample}`);
    }
    this.dimensions = dimensions;
    this.storage = storage;
    this.oversample = oversample;
    this.quantised = storage === 'int8' || storage === 'binary-int8';
    this.signed = storage === 'binary' || storage === 'binary-int8';
    this.queryCode = new Int32Array(storage === 'int8' ? codeStride(dimensions) : 0);
    this.signTable = new Float64Array(this.signed ? signTableSize(dimensions) : 0);
  }

  /** Number of vectors indexed. */
  get size(): number {
    return this.ids.length;
  }

  /** Bytes of storage per vector (ids and map entries not counted). */
  get bytesPerVector(): number {
    const dims = this.dimensions;
    return (this.quantised ? codeStride(dims) + residualBytes(dims) + 4 : 4 * dims) + (this.signed ? 4 * signWords(dims) : 0);
  }

  has(chunkId: ChunkId): boolean {
    return this.rowOf.has(chunkId);
  }

  /** Indexed chunk ids, in row order (not sorted). */
  chunkIds(): ChunkId[] {
    return [...this.ids];
  }

  /**
   * Adds vectors; a chunk already present has its vector replaced. All entries are checked first
   * (`invalid-vector` for a wrong length or a NaN/Infinity), so a refused batch changes nothing.
   */
  add(entries: readonly VectorEntry[]): void {
    for (const e of entries) this.check(e.vector, `chunk ${e.chunkId}`);
    this.reserve(this.size + entries.length);
    for (const { chunkId, vector } of entries) {
      let row = this.rowOf.get(chunkId);
      if (row === undefined) {
        row = this.ids.length;
        this.ids.push(chunkId);
        this.rowOf.set(chunkId, row);
      }
      this.writeRow(row, vector);
    }
  }

  /** Removes vectors by chunk id (absent ids are ignored): the last row moves into the gap, O(dimensions) each. */
  remove(chunkIds: Iterable<ChunkId>): void {
    for (const id of chunkIds) {
      const row = this.rowOf.get(id);
      if (row === undefined) continue;
      const last = this.ids.length - 1;
      if (row !== last) {
        const moved = this.ids[last]!;
        this.ids[row] = moved;
        this.rowOf.set(moved, row);
        this.moveRow(last, row);
      }
      this.ids.pop();
      this.rowOf.delete(id);
    }
  }

  /**
   * The `k` chunks whose vectors have the highest dot product with `query`, best first (ties by chunk
   * id). With a filter, only allowed chunks are scored. `f32`: exact scores over every row. `int8` and
   * `binary`: a cheap scan keeps the best `k × oversample` rows, which are re-scored (12-bit, or exact).
   */
  search(query: Float32Array, k: number, filter?: VectorFilter): Hit[] {
    this.check(query, 'query');
    if (k <= 0 || this.size === 0) return [];
    const rows = this.candidateRows(filter);
    const n = rows ? rows.length : this.size;
    if (n === 0) return [];
    if (this.scratch.length < n) this.scratch = new Float64Array(Math.max(n, this.capacity));
    if (this.storage === 'f32') {
      const data = this.f32;
      const scores = this.scratch;
      const dims = this.dimensions;
      for (let j = 0; j < n; j++) scores[j] = dotF32(data, rows ? rows[j]! : j, query, dims);
      return this.rank(rows, n, k);
    }
    const wanted = k * this.oversample;
    const shortlist = n <= wanted ? rows ?? rowRange(n) : this.signed ? this.scanBinary(query, rows, n, wanted) : this.scanInt8(query, rows, n, wanted);
    this.rescore(query, shortlist);
    return this.rank(shortlist, shortlist.length, k);
  }

  /** int8: integer dot products with the quantised query, times each row's step; the best `wanted` rows (with ties). */
  private scanInt8(query: Float32Array, rows: Int32Array | null, n: number, wanted: number): Int32Array {
    const q = this.queryCode;
    quantiseQuery(query, q);
    const words = this.codeWords;
    const scales = this.scales;
    const scores = this.scratch;
    const wordsPerRow = codeStride(this.dimensions) >> 2;
    const heap = new ScoreHeap(wanted);
    for (let j = 0; j < n; j++) {
      const row = rows ? rows[j]! : j;
      const s = dotI8(words, row, q, wordsPerRow) * scales[row]!;
      scores[j] = s;
      if (s > heap.threshold) heap.push(s);
    }
    return pickRows(rows, n, scores, heap.threshold);
  }

  /**
   * binary: each row's sign code scored against the float query (one table lookup per code byte,
   * {@link signDot}); the best `wanted` rows (with ties).
   */
  private scanBinary(query: Float32Array, rows: Int32Array | null, n: number, wanted: number): Int32Array {
    const table = this.signTable;
    signTable(query, table);
    const bits = this.bits;
    const scores = this.scratch;
    const words = signWords(this.dimensions);
    const heap = new ScoreHeap(wanted);
    for (let j = 0; j < n; j++) {
      const s = signDot(bits, rows ? rows[j]! : j, table, words);
      scores[j] = s;
      if (s > heap.threshold) heap.push(s);
    }
    return pickRows(rows, n, scores, heap.threshold);
  }

  /** Scores the shortlisted rows finely into the scratch array: exact (binary) or 12-bit (int8, binary-int8). */
  private rescore(query: Float32Array, shortlist: Int32Array): void {
    const scores = this.scratch;
    const dims = this.dimensions;
    for (let j = 0; j < shortlist.length; j++) {
      const row = shortlist[j]!;
      scores[j] = this.quantised ? dotI8Fine(this.codes, this.residuals, row, query, dims) * this.scales[row]! : dotF32(this.f32, row, query, dims);
    }
  }

  /** The k best of the first `n` scores in the scratch array (row j is `rows[j]`, or j), ranked with ties by chunk id. */
  private rank(rows: Int32Array | null, n: number, k: number): Hit[] {
    const scores = this.scratch;
    const heap = new ScoreHeap(k);
    for (let j = 0; j < n; j++) if (scores[j]! > heap.threshold) heap.push(scores[j]!);
    // Everything at or above the k-th best score (k hits, plus any tied with the k-th), ranked with ties by id.
    const cut = heap.threshold;
    const hits: Hit[] = [];
    for (let j = 0; j < n; j++) {
      if (scores[j]! >= cut) hits.push({ chunkId: this.ids[rows ? rows[j]! : j]!, score: scores[j]! });
    }
    return topK(hits, k, byScoreThenChunkId);
  }

  /** Binary snapshot (little-endian; header: magic, version, storage, dimensions, count). */
  serialize(): Uint8Array {
    const n = this.size;
    const dims = this.dimensions;
    const int8 = this.quantised;
    return encodeVectorIndex({
      storage: this.storage,
      dimensions: dims,
      ids: this.ids,
      f32: int8 ? undefined : this.f32.subarray(0, n * dims),
      codes: int8 ? this.codes.subarray(0, n * codeStride(dims)) : undefined,
      residuals: int8 ? this.residuals.subarray(0, n * residualBytes(dims)) : undefined,
      scales: int8 ? this.scales.subarray(0, n) : undefined,
      // Kept for binary-int8 (its floats are gone); binary's are made again from its floats.
      bits: this.storage === 'binary-int8' ? this.bits.subarray(0, n * signWords(dims)) : undefined,
    });
  }

  /**
   * Rebuilds an index from {@link serialize}'s bytes; `schema-version` for an unknown version, `corrupt-file`
   * for damage. `binary` sign codes are not stored: they are recomputed from the vectors.
   */
  static load(bytes: Uint8Array, options: Pick<VectorIndexOptions, 'oversample'> = {}): VectorIndex {
    const s = decodeVectorIndex(bytes);
    const index = new VectorIndex({ dimensions: s.dimensions, storage: s.storage, ...options });
    const n = s.ids.length;
    index.reserve(n);
    if (s.f32) index.f32.set(s.f32);
    if (s.codes) index.codes.set(s.codes);
    if (s.residuals) index.residuals.set(s.residuals);
    if (s.scales) index.scales.set(s.scales);
    if (s.bits) index.bits.set(s.bits);
    if (s.storage === 'binary') for (let row = 0; row < n; row++) signRow(index.f32.subarray(row * s.dimensions, (row + 1) * s.dimensions), index.bits, row);
    for (let row = 0; row < n; row++) {
      const id = s.ids[row]!;
      if (index.rowOf.has(id)) throw new DocQaError('corrupt-file', `vector index snapshot: chunk ${id} appears twice; the index will be rebuilt`);
      index.rowOf.set(id, row);
    }
    index.ids = s.ids;
    return index;
  }

  /** Rows allowed by the filter, ascending (memory order), or null when every row is. */
  private candidateRows(filter: VectorFilter | undefined): Int32Array | null {
    if (!filter) return null;
    if (typeof filter === 'function') {
      const out = new Int32Array(this.size);
      let m = 0;
      for (let row = 0; row < this.ids.length; row++) if (filter(this.ids[row]!)) out[m++] = row;
      return out.subarray(0, m);
    }
    const out = new Int32Array(Math.min(filter.size, this.size));
    let m = 0;
    for (const id of filter) {
      const row = this.rowOf.get(id);
      if (row !== undefined && m < out.length) out[m++] = row;
    }
    return out.subarray(0, m).sort();
  }

  private check(vector: Float32Array, what: string): void {
    if (!(vector instanceof Float32Array)) throw new DocQaError('invalid-vector', `vector index: ${what} is not a Float32Array`);
    if (vector.length !== this.dimensions) {
      throw new DocQaError('invalid-vector', `vector index: ${what} has ${vector.length} dimensions, expected ${this.dimensions}: the embedding model does not match this index; re-embed with the index's model`);
    }
    for (let d = 0; d < vector.length; d++) {
      if (!Number.isFinite(vector[d]!)) {
        throw new DocQaError('invalid-vector', `vector index: ${what} has ${vector[d]} at dimension ${d}: the embedding model produced a broken vector; it was not stored`);
      }
    }
  }

  private writeRow(row: number, vector: Float32Array): void {
    if (this.quantised) this.scales[row] = quantiseRow(vector, this.codes, this.residuals, row);
    else this.f32.set(vector, row * this.dimensions);
    if (this.signed) signRow(vector, this.bits, row);
  }

  /** Copies row `from` over row `to` in every array the storage uses. */
  private moveRow(from: number, to: number): void {
    const dims = this.dimensions;
    if (this.quantised) {
      const c = codeStride(dims);
      this.codes.copyWithin(to * c, from * c, (from + 1) * c);
      const r = residualBytes(dims);
      this.residuals.copyWithin(to * r, from * r, (from + 1) * r);
      this.scales[to] = this.scales[from]!;
    } else this.f32.copyWithin(to * dims, from * dims, (from + 1) * dims);
    if (this.signed) {
      const w = signWords(dims);
      this.bits.copyWithin(to * w, from * w, (from + 1) * w);
    }
  }

  /** Grows the typed arrays (doubling) to hold `rows` vectors. */
  private reserve(rows: number): void {
    if (rows <= this.capacity) return;
    const capacity = Math.max(rows, INITIAL_CAPACITY, this.capacity * 2);
    const size = this.size;
    const dims = this.dimensions;
    if (this.quantised) {
      this.codes = grow(this.codes, new Int8Array(capacity * codeStride(dims)), size * codeStride(dims));
      this.codeWords = new Int32Array(this.codes.buffer);
      this.residuals = grow(this.residuals, new Uint8Array(capacity * residualBytes(dims)), size * residualBytes(dims));
      this.scales = grow(this.scales, new Float32Array(capacity), size);
    } else this.f32 = grow(this.f32, new Float32Array(capacity * dims), size * dims);
    if (this.signed) this.bits = grow(this.bits, new Int32Array(capacity * signWords(dims)), size * signWords(dims));
    this.capacity = capacity;
  }
}

/** `to`, holding the first `used` elements of `from`. */
function grow<T extends Int8Array | Uint8Array | Int32Array | Float32Array>(from: T, to: T, used: number): T {
  to.set(from.subarray(0, used) as ArrayLike<number>);
  return to;
}

/** 0, 1, …, n − 1. */
function rowRange(n: number): Int32Array {
  const rows = new Int32Array(n);
  for (let j = 0; j < n; j++) rows[j] = j;
  return rows;
}

/** The rows (`rows[j]`, or j) whose score `scores[j]` is at least `cut`, in scan order. */
function pickRows(rows: Int32Array | null, n: number, scores: Float64Array, cut: number): Int32Array {
  let m = 0;
  for (let j = 0; j < n; j++) if (scores[j]! >= cut) m++;
  const picked = new Int32Array(m);
  m = 0;
  for (let j = 0; j < n; j++) if (scores[j]! >= cut) picked[m++] = rows ? rows[j]! : j;
  return picked;
}
