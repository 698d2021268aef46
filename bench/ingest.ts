/**
 * Ingest throughput without models: the app's pipeline (prepareDocument + LexicalIndex.add) against
 * MiniSearch's own `addAll` on the same texts, measured in the same run, on SciFact and on a generated
 * corpus of about 100k chunks. Standalone: `npx tsx bench/ingest.ts`.
 */
import { miniSearchBuild, warmUp, type BenchContext, type SetName } from './context.ts';
import { isMain, MB, progress, round } from './util.ts';

/** Figure prefixes: SciFact keeps its name, the generated corpus is `gen100k`. */
const PREFIX: Partial<Record<SetName, string>> = { scifact: 'scifact', '100k': 'gen100k' };

export async function benchIngest(ctx: BenchContext, sets: SetName[] = ['scifact', '100k']): Promise<void> {
  progress('ingest: JIT warm-up');
  await warmUp();
  for (const set of sets) {
    const prefix = PREFIX[set] ?? set;
    const corpus = await ctx.corpus(set);
    progress(`ingest: MiniSearch addAll baseline on ${set}`);
    const baseline = miniSearchBuild(corpus.docs);
    const build = await ctx.build(set);
    const seconds = build.ms / 1000;
    ctx.record({
      [`${prefix}_docs`]: corpus.docs.length,
      [`${prefix}_mb`]: round(build.bytes / MB, 2),
      [`${prefix}_chunks`]: build.chunks,
      [`${prefix}_chunks_indexed`]: build.indexed,
      [`${prefix}_pipeline_ms`]: Math.round(build.ms),
      [`${prefix}_prepare_ms`]: Math.round(build.prepareMs),
      [`${prefix}_index_add_ms`]: Math.round(build.addMs),
      [`${prefix}_minisearch_addall_ms`]: Math.round(baseline.ms),
      [`${prefix}_ratio`]: round(build.ms / baseline.ms, 2),
      [`${prefix}_mb_per_s`]: round(build.bytes / MB / seconds, 2),
      [`${prefix}_chunks_per_s`]: Math.round(build.chunks / seconds),
      [`${prefix}_minisearch_mb_per_s`]: round(build.bytes / MB / (baseline.ms / 1000), 2),
      [`heap_mb_minisearch_${set}`]: round(baseline.heapBytes / MB, 1),
    });
    if (baseline.documents !== corpus.docs.length) ctx.note(`MiniSearch indexed ${baseline.documents} of ${corpus.docs.length} ${set} documents`);
  }
}

if (isMain(import.meta.url)) {
  const { runOne } = await import('./report.ts');
  await runOne('ingest', (ctx) => benchIngest(ctx));
}
