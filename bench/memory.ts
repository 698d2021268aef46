/**
 * Memory and snapshot size of the app's index: heap retained by building it (heapUsed after minus
 * before, each after a full GC), bytes of LexicalIndex.serialize(), and how long saving and
 * loading that snapshot take (what a cold start pays before the first search).
 * Standalone: `npx tsx bench/memory.ts`.
 */
import { LexicalIndex } from '../src/index/lexical-index.ts';
import type { BenchContext, SetName } from './context.ts';
import { heapUsed, isMain, MB, progress, round } from './util.ts';

export async function benchMemory(ctx: BenchContext, sets: SetName[] = ['5k', 'scifact', '100k']): Promise<void> {
  const snapshots = new Map<SetName, { json: string | Uint8Array; chunks: number }>();
  for (const set of sets) {
    const build = await ctx.build(set);
    progress(`memory: snapshot of ${set}`);
    const s0 = performance.now();
    const json = build.index.serialize();
    const serializeMs = performance.now() - s0;
    const bytes = typeof json === 'string' ? Buffer.byteLength(json, 'utf8') : json.byteLength;
    snapshots.set(set, { json, chunks: build.index.size });
    ctx.record({
      [`heap_mb_${set}`]: round(build.heapBytes / MB, 1),
      [`heap_bytes_per_chunk_${set}`]: Math.round(build.heapBytes / build.index.size),
      [`index_bytes_${set}`]: bytes,
      [`index_bytes_per_chunk_${set}`]: Math.round(bytes / build.index.size),
      [`serialize_ms_${set}`]: Math.round(serializeMs),
    });
  }
  // Reloading is measured with no built index alive (as after a cold start), one snapshot at a time.
  for (const set of sets) ctx.release(set);
  for (const [set, { json, chunks }] of snapshots) {
    const { size, loadMs, heapBytes } = measureLoad(json);
    if (size !== chunks) ctx.note(`snapshot of ${set} reloads ${size} chunks, not ${chunks}`);
    ctx.record({ [`heap_mb_loaded_${set}`]: round(heapBytes / MB, 1), [`load_ms_${set}`]: Math.round(loadMs) });
  }
}

/**
 * Loads a snapshot and returns only numbers: the loaded index lives in this frame alone, so it is
 * garbage before the next measurement (a loop variable can stay reachable into the next iteration).
 */
function measureLoad(json: string | Uint8Array): { size: number; loadMs: number; heapBytes: number } {
  const before = heapUsed();
  const l0 = performance.now();
  const loaded = LexicalIndex.load(json);
  const loadMs = performance.now() - l0;
  const heapBytes = heapUsed() - before;
  return { size: loaded.size, loadMs, heapBytes };
}

if (isMain(import.meta.url)) {
  const { runOne } = await import('./report.ts');
  await runOne('memory', (ctx) => benchMemory(ctx));
}
