/**
 * Vector search, top 10, 384 dimensions, at 10k, 100k and 500k vectors (generated, seeded, clustered,
 * L2-normalised: tools/vectors/clustered-vectors.ts; queries from the same distribution, not in the data):
 *   naive JS   a plain scalar dot-product loop over one Float32Array, then sorting all scores (the baseline)
 *   flat f32   VectorIndex, storage f32 (exact)
 *   flat int8  VectorIndex, storage int8: integer scan, shortlist of k × 10 rows re-scored at 12 bits (recall@10
 *              against exact f32 reported)
 *   binary re-score  VectorIndex, storage binary: Hamming scan over sign codes, shortlist of k × 50 rows re-scored
 *              exactly from the f32 vectors (recall@10 reported)
 *   binary int8  VectorIndex, storage binary-int8: the same sign scan, the shortlist re-scored at 12 bits from
 *              int8 codes, no floats kept (recall@10 reported)
 *   voy        voy-search 0.6.3 (WASM k-d tree), loaded in Node by tools/voy-node.ts
 * Latency: ROUNDS rounds over the same queries; within a round each query runs on every side, the order
 * rotating from one query to the next; a figure is the median of the rounds' p50 (or p95), with the
 * rounds' min and max as `_min`/`_max`. Also bytes per vector, snapshot size, serialise and load time.
 * Standalone: `npx tsx bench/vector.ts`; in the suite: `npm run bench -- vector`.
 *
 * With `--real <model folder>` (`npm run bench -- vector --real ~/.cache/docqa-models/bge-small-en-v1.5`)
 * the vectors are real instead: SciFact's abstracts and sentences and chunks and sentences of Debian's
 * manuals embedded by that model (`vector-real.ts`), at 10k, 100k and every real passage (about 106k),
 * with real questions; recall@10 is measured over every question, latency over the first TIMED_QUERIES.
 * The JSON then also names the app's default encoding and its figures: `default_encoding`,
 * `default_p50_ms_100k`, `default_recall_at_10_100k`, `naive_js_p50_ms_100k`.
 */
import { DEFAULT_VECTOR_STORAGE } from '../src/index/dense-index.ts';
import { VectorIndex, type VectorEntry, type VectorStorage } from '../src/index/vector-index.ts';
import { asChunkId, type ChunkId } from '../src/core/ids.ts';
import { clusteredVectors, rowOf } from '../tools/vectors/clustered-vectors.ts';
import type { BenchContext } from './context.ts';
import { gc, isMain, median, percentile, progress, round } from './util.ts';
import { loadVoy, type VoyIndex } from '../tools/voy-node.ts';
import { realVectors } from './vector-real.ts';

const DIMS = 384;
const K = 10;
const ROUNDS = 3;
const WARMUP = 5;
const SETS = [
  { name: '10k', count: 10_000, queries: 50, voy: true },
  { name: '100k', count: 100_000, queries: 50, voy: true },
  // 500k: fewer queries (the naive side takes ~0.7 s each); voy is not tried (it fails to build at 100k already).
  { name: '500k', count: 500_000, queries: 20, voy: false },
] as const;

/** Real runs: questions timed per set (all of them count for recall). */
const TIMED_QUERIES = 60;

/** One set of vectors to search: `n` rows of `block`, questions to time and questions to measure recall on. */
interface VectorSet {
  name: string;
  block: Float32Array;
  n: number;
  timed: Float32Array[];
  /** Recall@10 is measured over these (the timed questions when absent). */
  recallQueries?: Float32Array[];
  voy: boolean;
}

type Side = 'naive_js' | 'flat_f32' | 'flat_int8' | 'binary_rescore' | 'binary_int8' | 'voy';
const SIDE_OF: Record<VectorStorage, Side> = { f32: 'flat_f32', int8: 'flat_int8', binary: 'binary_rescore', 'binary-int8': 'binary_int8' };
/** Each side's recall figure's prefix (`<prefix>_recall_at_10_<set>`). */
const RECALL_OF: Record<VectorStorage, string> = { f32: 'f32', int8: 'int8', binary: 'binary_rescore', 'binary-int8': 'binary_int8' };
type Search = (q: Float32Array) => string[];

/** A sha-256-like 64-hex-digit chunk id, as the app's are (ids are part of snapshot size). */
const chunkIdOf = (i: number) => asChunkId(i.toString(16).padStart(64, '0'));

/** The baseline: every dot product in a scalar loop, then all rows sorted by score. */
function naiveSearch(block: Float32Array, n: number, ids: readonly ChunkId[]): Search {
  return (q) => {
    const scores = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let d = 0; d < DIMS; d++) s += block[i * DIMS + d]! * q[d]!;
      scores[i] = s;
    }
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => scores[b]! - scores[a]!);
    return order.slice(0, K).map((i) => ids[i]!);
  };
}

function recall(truth: string[][], got: string[][]): number {
  let found = 0;
  truth.forEach((t, i) => {
    const s = new Set(t);
    found += got[i]!.filter((x) => s.has(x)).length;
  });
  return found / (K * truth.length);
}

/** Times every side on every query, ROUNDS times, rotating the order; records median p50/p95 and ranges. */
function timeSides(ctx: BenchContext, set: string, sides: Map<Side, Search>, queries: Float32Array[]): Map<Side, string[][]> {
  const names = [...sides.keys()];
  const results = new Map<Side, string[][]>(names.map((s) => [s, []]));
  for (const name of names) for (const q of queries.slice(0, WARMUP)) sides.get(name)!(q);
  const p50s = new Map<Side, number[]>(names.map((s) => [s, []]));
  const p95s = new Map<Side, number[]>(names.map((s) => [s, []]));
  for (let r = 0; r < ROUNDS; r++) {
    const times = new Map<Side, number[]>(names.map((s) => [s, []]));
    queries.forEach((q, qi) => {
      for (let j = 0; j < names.length; j++) {
        const name = names[(r + qi + j) % names.length]!;
        const t0 = performance.now();
        const hits = sides.get(name)!(q);
        times.get(name)!.push(performance.now() - t0);
        if (r === 0) results.get(name)!.push(hits);
      }
    });
    for (const name of names) {
      p50s.get(name)!.push(percentile(times.get(name)!, 50));
      p95s.get(name)!.push(percentile(times.get(name)!, 95));
    }
    progress(`vector ${set}: round ${r + 1}/${ROUNDS}: ${names.map((n) => `${n} ${percentile(times.get(n)!, 50).toFixed(2)} ms`).join(', ')}`);
  }
  for (const name of names) {
    const p50 = p50s.get(name)!;
    ctx.record({
      [`${name}_p50_ms_${set}`]: round(median(p50), 3),
      [`${name}_p50_ms_${set}_min`]: round(Math.min(...p50), 3),
      [`${name}_p50_ms_${set}_max`]: round(Math.max(...p50), 3),
      [`${name}_p95_ms_${set}`]: round(median(p95s.get(name)!), 3),
    });
  }
  return results;
}

/** Serialises and reloads an index: snapshot bytes, serialise ms, load ms (median of 3 loads). */
function measureSnapshot(ctx: BenchContext, set: string, index: VectorIndex): void {
  const s0 = performance.now();
  const bytes = index.serialize();
  const serializeMs = performance.now() - s0;
  const loads: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    VectorIndex.load(bytes);
    loads.push(performance.now() - t0);
    gc();
  }
  const p = index.storage;
  ctx.record({
    [`${p}_snapshot_bytes_${set}`]: bytes.length,
    [`${p}_snapshot_bytes_per_vector_${set}`]: round(bytes.length / index.size, 1),
    [`${p}_serialize_ms_${set}`]: round(serializeMs, 1),
    [`${p}_load_ms_${set}`]: round(median(loads), 1),
  });
}

async function buildVoy(ctx: BenchContext, set: string, block: Float32Array, n: number, ids: readonly ChunkId[]): Promise<VoyIndex | null> {
  try {
    const { Voy } = await loadVoy();
    const t0 = performance.now();
    const embeddings = ids.map((id, i) => ({ id, title: '', url: '', embeddings: Array.from(rowOf(block, DIMS, i)) }));
    const voy = new Voy({ embeddings });
    ctx.record({ [`voy_build_ms_${set}`]: Math.round(performance.now() - t0) });
    try {
      const s0 = performance.now();
      const text = voy.serialize();
      const serializeMs = performance.now() - s0;
      const l0 = performance.now();
      Voy.deserialize(text).free();
      ctx.record({ [`voy_snapshot_chars_${set}`]: text.length, [`voy_serialize_ms_${set}`]: Math.round(serializeMs), [`voy_load_ms_${set}`]: Math.round(performance.now() - l0) });
    } catch (err) {
      ctx.note(`voy ${set}: serialize/deserialize failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    return voy;
  } catch (err) {
    // voy 0.6.3 panics (`unwrap_throw` failed) building 100k × 384: its wasm32 build holds the whole
    // resource, deserialised from JS, plus the k-d tree in one linear memory.
    ctx.note(`voy ${set}: could not build: ${err instanceof Error ? err.message : String(err)}`);
    return null;
  }
}

/** A generated set: clustered vectors, queries from the same distribution. */
function generatedSet(set: (typeof SETS)[number]): VectorSet {
  const n = set.count;
  progress(`vector ${set.name}: generating ${n} + ${set.queries} vectors of ${DIMS} dims`);
  const block = clusteredVectors({ count: n + set.queries, dimensions: DIMS, seed: 384_000 + n });
  const timed = Array.from({ length: set.queries }, (_, i) => rowOf(block, DIMS, n + i));
  return { name: set.name, block, n, timed, voy: set.voy };
}

async function benchSet(ctx: BenchContext, set: VectorSet): Promise<void> {
  const { n, block } = set;
  const queries = set.timed;
  const ids = Array.from({ length: n }, (_, i) => chunkIdOf(i));
  const entries: VectorEntry[] = ids.map((chunkId, i) => ({ chunkId, vector: rowOf(block, DIMS, i) }));
  const f32 = new VectorIndex({ dimensions: DIMS, storage: 'f32' });
  const int8 = new VectorIndex({ dimensions: DIMS, storage: 'int8' });
  const binary = new VectorIndex({ dimensions: DIMS, storage: 'binary' });
  const binaryInt8 = new VectorIndex({ dimensions: DIMS, storage: 'binary-int8' });
  const adds: [string, VectorIndex][] = [['flat_f32', f32], ['flat_int8', int8], ['binary_rescore', binary], ['binary_int8', binaryInt8]];
  for (const [name, index] of adds) {
    const t0 = performance.now();
    index.add(entries);
    ctx.record({ [`${name}_add_ms_${set.name}`]: Math.round(performance.now() - t0) });
  }
  entries.length = 0;

  const sides = new Map<Side, Search>([
    ['naive_js', naiveSearch(block, n, ids)],
    ['flat_f32', (q) => f32.search(q, K).map((h) => h.chunkId)],
    ['flat_int8', (q) => int8.search(q, K).map((h) => h.chunkId)],
    ['binary_rescore', (q) => binary.search(q, K).map((h) => h.chunkId)],
    ['binary_int8', (q) => binaryInt8.search(q, K).map((h) => h.chunkId)],
  ]);
  const voy = set.voy ? await buildVoy(ctx, set.name, block, n, ids) : null;
  if (voy) sides.set('voy', (q) => voy.search(q, K).neighbors.map((x) => x.id));
  else ctx.record({ [`voy_p50_ms_${set.name}`]: null });
  if (!set.voy) ctx.note(`voy ${set.name}: not run (its build fails at 100k vectors)`);

  const results = timeSides(ctx, set.name, sides, queries);
  if (set.recallQueries) {
    progress(`vector ${set.name}: recall over ${set.recallQueries.length} questions`);
    for (const name of ['flat_f32', 'flat_int8', 'binary_rescore', 'binary_int8'] as const) results.set(name, set.recallQueries.map((q) => sides.get(name)!(q)));
  }
  const truth = results.get('flat_f32')!;
  ctx.record({
    [`recall_queries_${set.name}`]: truth.length,
    [`int8_recall_at_10_${set.name}`]: round(recall(truth, results.get('flat_int8')!), 4),
    [`binary_rescore_recall_at_10_${set.name}`]: round(recall(truth, results.get('binary_rescore')!), 4),
    [`binary_int8_recall_at_10_${set.name}`]: round(recall(truth, results.get('binary_int8')!), 4),
    [`naive_recall_at_10_${set.name}`]: round(recall(results.get('flat_f32')!.slice(0, queries.length), results.get('naive_js')!), 4),
    [`voy_recall_at_10_${set.name}`]: results.has('voy') ? round(recall(truth.slice(0, queries.length), results.get('voy')!), 4) : null,
  });
  voy?.free();
  measureSnapshot(ctx, set.name, f32);
  measureSnapshot(ctx, set.name, int8);
  measureSnapshot(ctx, set.name, binary);
  measureSnapshot(ctx, set.name, binaryInt8);
  ctx.record({ bytes_per_vector_f32: f32.bytesPerVector, bytes_per_vector_int8: int8.bytesPerVector, bytes_per_vector_binary: binary.bytesPerVector, bytes_per_vector_binary_int8: binaryInt8.bytesPerVector });
}

/** The real sets: the first 10k and 100k passages of the shuffled real ones, then all of them. */
async function realSets(ctx: BenchContext, folder: string): Promise<VectorSet[]> {
  const real = await realVectors(ctx, folder);
  if (real.dims !== DIMS) throw new Error(`vector --real: ${real.model} has ${real.dims} dimensions; the bench measures ${DIMS}`);
  const sizes = [10_000, 100_000].filter((n) => n < real.count);
  const sets: VectorSet[] = sizes.map((n) => ({ name: `${n / 1000}k`, block: real.block, n, timed: real.queries.slice(0, TIMED_QUERIES), recallQueries: real.queries, voy: n <= 10_000 }));
  sets.push({ name: 'all', block: real.block, n: real.count, timed: real.queries.slice(0, TIMED_QUERIES), recallQueries: real.queries, voy: false });
  if (real.count < 500_000) ctx.note(`vector --real: 500k not measured: there are ${real.count} real passages here, and embedding 500k takes about ${Math.round(500_000 / Math.max(1, real.count) * Number(ctx.figures.real_embed_s ?? 0) / 60)} min more of this machine (at this run's rate when it embedded everything)`);
  return sets;
}

export interface VectorBenchOptions {
  /** A real model folder: real vectors instead of generated ones. */
  real?: string;
}

export async function benchVector(ctx: BenchContext, options: VectorBenchOptions = {}): Promise<void> {
  const sets = options.real ? await realSets(ctx, options.real) : SETS.map(generatedSet);
  for (const set of sets) {
    await benchSet(ctx, set);
    gc();
  }
  // The headline figures, last (targets: best flat ≥ 5× naive and ≥ 5× voy at 100k; int8 recall@10 ≥ 0.99;
  // optional: 1-bit codes with an exact re-score, with their recall).
  const all = ctx.figures;
  const f = Object.fromEntries(Object.entries(all).map(([k, v]) => [k, typeof v === 'number' ? v : null])) as Record<string, number | null>;
  const best = Math.min(f.flat_f32_p50_ms_100k ?? Infinity, f.flat_int8_p50_ms_100k ?? Infinity, f.binary_rescore_p50_ms_100k ?? Infinity, f.binary_int8_p50_ms_100k ?? Infinity);
  const ratio = (x: number | null | undefined) => (typeof x === 'number' && Number.isFinite(best) ? round(x / best, 2) : null);
  const headline = {
    speedup_best_flat_vs_naive_100k: ratio(f.naive_js_p50_ms_100k),
    speedup_best_flat_vs_voy_100k: ratio(f.voy_p50_ms_100k),
    naive_js_p50_ms_100k: f.naive_js_p50_ms_100k ?? null,
    flat_f32_p50_ms_100k: f.flat_f32_p50_ms_100k ?? null,
    flat_int8_p50_ms_100k: f.flat_int8_p50_ms_100k ?? null,
    binary_rescore_p50_ms_100k: f.binary_rescore_p50_ms_100k ?? null,
    binary_int8_p50_ms_100k: f.binary_int8_p50_ms_100k ?? null,
    voy_p50_ms_100k: f.voy_p50_ms_100k ?? null,
    int8_recall_at_10: f.int8_recall_at_10_100k ?? null,
    binary_rescore_recall_at_10: f.binary_rescore_recall_at_10_100k ?? null,
    binary_int8_recall_at_10: f.binary_int8_recall_at_10_100k ?? null,
    bytes_per_vector_f32: f.bytes_per_vector_f32 ?? null,
    bytes_per_vector_int8: f.bytes_per_vector_int8 ?? null,
    bytes_per_vector_binary: f.bytes_per_vector_binary ?? null,
    bytes_per_vector_binary_int8: f.bytes_per_vector_binary_int8 ?? null,
    default_encoding: DEFAULT_VECTOR_STORAGE,
    default_p50_ms_100k: f[`${SIDE_OF[DEFAULT_VECTOR_STORAGE]}_p50_ms_100k`] ?? null,
    default_recall_at_10_100k: DEFAULT_VECTOR_STORAGE === 'f32' ? 1 : (f[`${RECALL_OF[DEFAULT_VECTOR_STORAGE]}_recall_at_10_100k`] ?? null),
  };
  for (const k of Object.keys(headline)) delete all[k];
  ctx.record(headline);
  ctx.note(`vector: the app's default encoding is ${DEFAULT_VECTOR_STORAGE} (default_* figures)`);
}

if (isMain(import.meta.url)) {
  const { runOne } = await import('./report.ts');
  const real = process.argv.indexOf('--real');
  await runOne('vector', (ctx) => benchVector(ctx, { real: real > 0 ? process.argv[real + 1] : undefined }));
}
