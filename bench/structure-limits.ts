/**
 * Measures parsing nested files: time and peak heap (the largest heap V8's `--trace-gc` reports before a
 * collection), one fresh Node process a case. The figures of docs/decisions/0001-structure-limits.md.
 *
 *   npx tsx bench/structure-limits.ts                 this checkout, the default cases
 *   npx tsx bench/structure-limits.ts --root DIR      another checkout (e.g. `git archive` of an older commit)
 *   npx tsx bench/structure-limits.ts md:bomb:3000    given cases: format:shape:size[:maxDepth]
 *
 * Cases: `md:bomb:N` (N lines, each one quote deeper), `md:<nesting>:N:D` (N lines cycling depth 0..D, see
 * `MARKDOWN_NESTINGS`), `html:<nesting>:N` (N nested elements, closed; `html:<nesting>-open:N` unclosed),
 * `docx:<nesting>:N`. Each case may use 4 GB of heap and 180 s.
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { DOCX_NESTINGS, HTML_NESTINGS, MARKDOWN_NESTINGS, nestedDocx, nestedHtml, nestedMarkdown, quoteBombMarkdown } from '../tests/support/hostile-fixtures.ts';

const DEFAULT_CASES = [
  'md:bomb:1000', 'md:bomb:1500', 'md:bomb:3000', 'md:bullets:3300:3000', 'md:quotes:400000:16',
  'html:div:100000', 'html:table:100000', 'html:span-open:200000', 'docx:tables:300', 'docx:tables:3000', 'docx:hyperlinks:3000',
];

async function fixture(format: string, shape: string, size: number, depth?: number): Promise<{ name: string; bytes: Uint8Array }> {
  const enc = (s: string) => new TextEncoder().encode(s);
  if (format === 'md') {
    const text = shape === 'bomb' ? quoteBombMarkdown(size) : nestedMarkdown(shape as keyof typeof MARKDOWN_NESTINGS, size, depth ?? size);
    return { name: 'nested.md', bytes: enc(text) };
  }
  if (format === 'html') {
    const nesting = shape.replace(/-open$/, '') as keyof typeof HTML_NESTINGS;
    return { name: 'nested.html', bytes: enc(nestedHtml(nesting, size, 'The nest ends here.', !shape.endsWith('-open'))) };
  }
  return { name: 'nested.docx', bytes: await nestedDocx(shape as keyof typeof DOCX_NESTINGS, size) };
}

/** In the child process: parse one case with the checkout at `root`, print one JSON line. */
async function runCase(root: string, spec: string): Promise<void> {
  const [format = '', shape = '', size = '0', depth] = spec.split(':');
  const { parseFile } = (await import(pathToFileURL(resolve(root, 'src/ingest/parse.ts')).href)) as typeof import('../src/ingest/parse.ts');
  const { name, bytes } = await fixture(format, shape, Number(size), depth ? Number(depth) : undefined);
  const start = performance.now();
  let outcome: string;
  try {
    const { parsed } = await parseFile(bytes, name);
    outcome = `read, ${parsed.blocks.reduce((n, b) => n + b.text.length, 0).toLocaleString('en')} characters`;
  } catch (error) {
    outcome = `refused: ${(error as Error).message.replace(/^[^:]+: /, '').slice(0, 90)}`;
  }
  console.log(JSON.stringify({ mb: +(bytes.length / 2 ** 20).toFixed(2), ms: Math.round(performance.now() - start), outcome }));
}

/** Runs one case in a fresh process with `--trace-gc`; returns its table row. */
function measure(root: string, spec: string): string {
  const self = fileURLToPath(import.meta.url);
  const child = spawnSync(process.execPath, ['--trace-gc', '--max-old-space-size=4096', '--import', 'tsx', self, '--case', spec, '--root', root], {
    encoding: 'utf8',
    timeout: 180_000,
    maxBuffer: 2 ** 28,
  });
  const peak = Math.max(0, ...[...child.stdout.matchAll(/ (\d+(?:\.\d+)?) \(\d+(?:\.\d+)?\) -> /g)].map((m) => Number(m[1])));
  const line = child.stdout.split('\n').find((l) => l.startsWith('{'));
  if (!line) return `| ${spec} | | ${child.signal === 'SIGTERM' ? 'over 180 s' : 'crashed (out of memory?)'} | ${Math.round(peak)} MB at least | |`;
  const { mb, ms, outcome } = JSON.parse(line) as { mb: number; ms: number; outcome: string };
  return `| ${spec} | ${mb} MB | ${(ms / 1000).toFixed(1)} s | ${Math.round(peak)} MB | ${outcome} |`;
}

const { values, positionals } = parseArgs({ allowPositionals: true, options: { root: { type: 'string' }, case: { type: 'string' } } });
const root = resolve(values.root ?? '.');
if (values.case) await runCase(root, values.case);
else {
  console.log(`${root}\n| case | size | time | peak heap | outcome |\n| --- | --- | --- | --- | --- |`);
  for (const spec of positionals.length ? positionals : DEFAULT_CASES) console.log(measure(root, spec));
}
