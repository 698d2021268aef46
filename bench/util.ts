/** Small helpers shared by the benchmarks: garbage collection, heap, timing, percentiles, output. */
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Every figure is a flat key: a number, or null when it could not be measured (see the notes). */
/** A run's figures by name: numbers, and a few names (the app's default encoding). */
export type Figures = Record<string, number | string | null>;

let collect: (() => void) | undefined;

/**
 * A full garbage collection. Uses `global.gc` when node runs with `--expose-gc`; otherwise turns the
 * flag on at run time and takes `gc` from a fresh V8 context (works the same, without node flags).
 */
export function gc(): void {
  if (!collect) {
    const exposed = (globalThis as { gc?: () => void }).gc;
    if (exposed) collect = exposed;
    else {
      setFlagsFromString('--expose-gc');
      collect = runInNewContext('gc') as () => void;
    }
  }
  // Twice: the first pass can leave objects that only the second finds unreachable (weak maps, finalizers).
  collect();
  collect();
}

/** `heapUsed` after a full collection, in bytes. */
export function heapUsed(): number {
  gc();
  return process.memoryUsage().heapUsed;
}

/** Nearest-rank percentile (p in 0–100). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/** A figure's median as `key`, its range as `key_min` and `key_max`. */
export function stats(key: string, values: readonly number[], digits = 0): Record<string, number> {
  return { [key]: round(median(values), digits), [`${key}_min`]: round(Math.min(...values), digits), [`${key}_max`]: round(Math.max(...values), digits) };
}

export function round(x: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

export const MB = 1_000_000;

/** Progress goes to stderr, so stdout holds only the table and the final JSON line. */
export function progress(message: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

export async function timed<T>(fn: () => Promise<T> | T): Promise<{ value: T; ms: number }> {
  const t0 = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - t0 };
}

/** The repository root (the folder above bench/). */
export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** True when the module with this `import.meta.url` is the script node was started with. */
export function isMain(moduleUrl: string): boolean {
  const script = process.argv[1];
  return !!script && pathToFileURL(resolve(script)).href === moduleUrl;
}

export { scifactDir } from '../tools/real-models/dirs.ts';
