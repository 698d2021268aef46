/**
 * Reads every file of a folder through the app's parser, one at a time, each in a process of its own under
 * a time limit (a file that hangs or runs out of memory stops alone), and prints one JSON line per file:
 * its pages, the characters of text read, the pages recognised by OCR, or the error a person would see.
 * For running real and hostile files nobody here wrote through ingest (Debian manuals, OCRmyPDF's and
 * Pillow's test files):
 *
 *   npx tsx tools/read-folder.ts <folder> [--match '\.tiff?$'] [--seconds 120]
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { match: { type: 'string', default: '.' }, seconds: { type: 'string', default: '120' }, one: { type: 'string' } } });
if (!values.one) {
  const folder = positionals[0];
  if (!folder) throw new Error("usage: npx tsx tools/read-folder.ts <folder> [--match '\\.tiff?$'] [--seconds 120]");
  const match = new RegExp(values.match!, 'i');
  const files = readdirSync(folder).filter((f) => match.test(f) && statSync(join(folder, f)).isFile()).sort();
  for (const file of files) {
    const started = performance.now();
    // Its own process: a file that hangs or exhausts memory is stopped without stopping the others.
    const run = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--one', join(folder, file)], { timeout: Number(values.seconds) * 1000, encoding: 'utf8', maxBuffer: 1 << 24 });
    const line = run.stdout.split('\n').find((l) => l.startsWith('{'));
    const result: Record<string, unknown> = line ? JSON.parse(line) : { error: run.error ? `stopped after ${values.seconds} s` : `process ended (${run.signal ?? run.status}): ${run.stderr.slice(-300)}` };
    console.log(JSON.stringify({ file, bytes: statSync(join(folder, file)).size, seconds: +((performance.now() - started) / 1000).toFixed(1), ...result }));
  }
} else {
  const { parseFile } = await import('../src/ingest/parse.ts');
  const { closeKeptOcrEngines } = await import('../src/ingest/ocr/engine-pool.ts');
  const path = values.one;
  try {
    const { type, parsed } = await parseFile(new Uint8Array(readFileSync(path)), path.split('/').pop()!);
    console.log(JSON.stringify({ type, pages: parsed.pages, chars: parsed.blocks.reduce((n, b) => n + b.text.length, 0), recognised: parsed.recognisedPages, low: parsed.lowConfidencePages, start: parsed.blocks[0]?.text.slice(0, 60) }));
  } catch (err) {
    console.log(JSON.stringify({ error: err instanceof Error ? `${(err as { code?: string }).code ?? err.name}: ${err.message}` : String(err) }));
  }
  await closeKeptOcrEngines();
}
