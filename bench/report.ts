/** Reporting a run: the table on stdout, the figures as JSON in bench/results/, the JSON line last. */
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join } from 'node:path';
import type { BenchContext } from './context.ts';
import { printTable } from './table.ts';
import { REPO_ROOT } from './util.ts';

/** Writes `bench/results/<file>` and prints the table, then the one-line JSON of all figures. */
export async function report(ctx: BenchContext, operations: readonly string[], started: number, file = 'latest.json'): Promise<void> {
  ctx.record({ bench_total_s: Math.round((Date.now() - started) / 100) / 10 });
  const meta = {
    date: new Date(started).toISOString(),
    node: process.version,
    cpus: `${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}`,
    operations,
    notes: ctx.notes,
  };
  const dir = join(REPO_ROOT, 'bench/results');
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, file), `${JSON.stringify({ ...ctx.figures, meta }, null, 2)}\n`);
  printTable(ctx.figures, ctx.notes);
  console.log(JSON.stringify(ctx.figures));
}

/** Entry point of one operation's own file (`npx tsx bench/<op>.ts`): writes bench/results/<op>.json. */
export async function runOne(name: string, op: (ctx: BenchContext) => Promise<void>): Promise<void> {
  const { BenchContext } = await import('./context.ts');
  const started = Date.now();
  const ctx = new BenchContext();
  await op(ctx);
  await report(ctx, [name], started, `${name}.json`);
  process.exit();
}
