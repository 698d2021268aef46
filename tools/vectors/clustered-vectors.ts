/**
 * Seeded, L2-normalised test vectors with the structure real embeddings have (for unit tests and the
 * vector bench; never used by the app). Uniform random vectors in 384 dimensions are all nearly
 * orthogonal, so every query's similarities are near-identical and "top 10" means nothing; sentence
 * embeddings instead sit in clusters (topics) around a shared mean direction. Each vector here is
 * `normalise(mean·m + centroid_c + noise)`: a common direction, one of `clusters` random centroids, and
 * isotropic Gaussian noise, which gives same-cluster cosines around 0.6–0.7 and others around 0.1–0.2.
 */
import { mulberry32 } from '../random.ts';

export interface ClusteredOptions {
  count: number;
  dimensions: number;
  seed: number;
  /** Number of centroids; default `max(1, count / 50)`. */
  clusters?: number;
  /** Norm of the noise relative to a centroid's (1); default 0.8. */
  noise?: number;
  /** Weight of the shared mean direction; default 0.3. */
  mean?: number;
}

/** mulberry32 (uniform in [0, 1)) and Box–Muller (standard normal), from a 32-bit seed. */
export function seededRandom(seed: number): { uniform: () => number; normal: () => number } {
  const uniform = mulberry32(seed);
  let spare: number | null = null;
  const normal = () => {
    if (spare !== null) {
      const s = spare;
      spare = null;
      return s;
    }
    const r = Math.sqrt(-2 * Math.log(1 - uniform()));
    const theta = 2 * Math.PI * uniform();
    spare = r * Math.sin(theta);
    return r * Math.cos(theta);
  };
  return { uniform, normal };
}

function normaliseInPlace(a: Float32Array, start: number, dims: number): void {
  let sum = 0;
  for (let d = 0; d < dims; d++) sum += a[start + d]! * a[start + d]!;
  const inv = sum > 0 ? 1 / Math.sqrt(sum) : 0;
  for (let d = 0; d < dims; d++) a[start + d]! *= inv;
}

/** `count` vectors, one after another in a single Float32Array of `count × dimensions` (no per-vector objects). */
export function clusteredVectors(options: ClusteredOptions): Float32Array {
  const { count, dimensions: dims, seed, noise = 0.8, mean = 0.3 } = options;
  const clusters = options.clusters ?? Math.max(1, Math.round(count / 50));
  // Queries come from the same call (the last rows), so they share the data's centroids.
  const { uniform, normal: g } = seededRandom(seed);
  const centroids = new Float32Array(clusters * dims);
  for (let i = 0; i < centroids.length; i++) centroids[i] = g();
  for (let c = 0; c < clusters; c++) normaliseInPlace(centroids, c * dims, dims);
  const common = new Float32Array(dims);
  for (let d = 0; d < dims; d++) common[d] = g();
  normaliseInPlace(common, 0, dims);
  const out = new Float32Array(count * dims);
  const sigma = noise / Math.sqrt(dims);
  for (let i = 0; i < count; i++) {
    const c = Math.min(clusters - 1, Math.floor(uniform() * clusters));
    const base = i * dims;
    for (let d = 0; d < dims; d++) out[base + d] = mean * common[d]! + centroids[c * dims + d]! + sigma * g();
    normaliseInPlace(out, base, dims);
  }
  return out;
}

/** Row `i` of a block made by {@link clusteredVectors} (a view, not a copy). */
export function rowOf(block: Float32Array, dims: number, i: number): Float32Array {
  return block.subarray(i * dims, (i + 1) * dims);
}
