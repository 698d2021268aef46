import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DOCX_NESTINGS, HTML_NESTINGS, MARKDOWN_NESTINGS, nestedDocx, nestedHtml, nestedMarkdown } from '../support/hostile-fixtures.ts';

/**
 * Nested files of up to ~10 MB in every format, parsed through the real ingest path (`prepareDocument`)
 * in a worker thread whose heap V8 caps at {@link HEAP_BOUND_MB}: a parse that needs more kills the worker
 * (ERR_WORKER_OUT_OF_MEMORY) and the property fails. Unguarded, marked needed 1.1 GB for 1,500 lines of
 * ever deeper quotes (1 MB), and this test failed on it. Figures: docs/decisions/0001-structure-limits.md.
 */
const HEAP_BOUND_MB = 512;

/** tsx's ESM entry (`tsx/esm/api`, import condition): a data: URL worker cannot resolve a package name. */
const TSX_API = (() => {
  const manifest = createRequire(import.meta.url).resolve('tsx/package.json');
  const exports = (JSON.parse(readFileSync(manifest, 'utf8')) as { exports: Record<string, { import: { default: string } }> }).exports;
  return pathToFileURL(join(dirname(manifest), exports['./esm/api']!.import.default)).href;
})();
const PREPARE = new URL('../../src/ingest/prepare-document.ts', import.meta.url).href;

/** Runs in the capped worker: registers TypeScript, prepares the file, reports the outcome and the text. */
const WORKER = `
import { parentPort, workerData } from 'node:worker_threads';
const { register } = await import(workerData.tsx);
register();
const { prepareDocument } = await import(workerData.prepare);
try {
  const prepared = await prepareDocument({ name: workerData.name, folder: '', bytes: new Uint8Array(workerData.bytes), addedAt: 0 });
  parentPort.postMessage({ ok: true, text: prepared.blocks.map((b) => b.text).join('\\n').replace(/\\s+/g, ' ') });
} catch (error) {
  parentPort.postMessage({ ok: false, code: error.code, message: String(error.message) });
}
`;

type Outcome = { ok: true; text: string } | { ok: false; code?: string; message: string } | { outOfMemory: true };

/** Prepares `bytes` as file `name` in a fresh worker whose old generation is capped at {@link HEAP_BOUND_MB}. */
function prepareCapped(name: string, bytes: Uint8Array): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const buffer = bytes.slice().buffer;
    const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(WORKER)}`), {
      workerData: { tsx: TSX_API, prepare: PREPARE, name, bytes: buffer },
      transferList: [buffer],
      resourceLimits: { maxOldGenerationSizeMb: HEAP_BOUND_MB },
    });
    worker.once('message', (outcome: Outcome) => {
      resolve(outcome);
      void worker.terminate();
    });
    worker.once('error', (error: NodeJS.ErrnoException) => (error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? resolve({ outOfMemory: true }) : reject(error)));
    worker.once('exit', (code) => reject(new Error(`worker exited (${code}) without a result`)));
  });
}

const CLEAR_MESSAGE = /^[^:]+: too deeply nested to read here \(/;

/** The file read within the bound, and either with `needles` in its text or refused with the clear message. */
function expectBoundedOutcome(outcome: Outcome, needles: RegExp[], mayRefuse: boolean): void {
  expect('outOfMemory' in outcome, `the parse needed more than ${HEAP_BOUND_MB} MB of heap`).toBe(false);
  if ('outOfMemory' in outcome) return;
  if (!outcome.ok) {
    expect(mayRefuse, outcome.message).toBe(true);
    expect(outcome).toMatchObject({ code: 'read-limit', message: expect.stringMatching(CLEAR_MESSAGE) });
    return;
  }
  for (const needle of needles) expect(outcome.text).toMatch(needle);
}

const MB = 2 ** 20;
const enc = (s: string) => new TextEncoder().encode(s);
/** How many units of `unitLength` characters make about `mb` MB, at most `max`. */
const countFor = (mb: number, unitLength: number, max: number) => Math.max(1, Math.min(max, Math.floor((mb * MB) / unitLength)));

// Few runs with large inputs: each is a fresh worker and up to 10 MB, and the runtime stays under a minute.
// A failure is reported as found, not shrunk: shrinking re-parses large inputs many times.
const RUNS = { numRuns: 3, endOnFailure: true };

describe(`nested files stay under ${HEAP_BOUND_MB} MB of heap and read, or fail saying they are too deeply nested`, () => {
  it('Markdown: quotes and lists nested up to thousands deep', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...(Object.keys(MARKDOWN_NESTINGS) as Array<keyof typeof MARKDOWN_NESTINGS>)),
        fc.integer({ min: 16, max: 4000 }),
        fc.double({ min: 1, max: 10, noNaN: true }),
        async (nesting, maxDepth, mb) => {
          // Line i is nested i mod (maxDepth + 1) deep; shallow files are capped at 20k lines (marked's lists are slow, not super-linear).
          const prefix = MARKDOWN_NESTINGS[nesting](maxDepth).length / 2;
          const lines = countFor(mb, prefix + 10, 20_000);
          const deepest = Math.min(lines - 1, maxDepth);
          const outcome = await prepareCapped('nested.md', enc(nestedMarkdown(nesting, lines, maxDepth)));
          expectBoundedOutcome(outcome, [new RegExp(`\\bline ${deepest}\\b`), new RegExp(`\\bline ${lines - 1}\\b`)], true);
        },
      ),
      // The bomb that took the tab down: ~3,000 lines, each one quote deeper, 4.5 MB.
      { ...RUNS, examples: [['quotes', 4000, 4.5]] },
    );
  }, 180_000);

  it('HTML: containers, lists, tables and inline elements nested up to hundreds of thousands deep, closed or not', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...(Object.keys(HTML_NESTINGS) as Array<keyof typeof HTML_NESTINGS>)),
        fc.double({ min: 0.5, max: 10, noNaN: true }),
        fc.boolean(),
        async (nesting, mb, closed) => {
          const depth = countFor(mb, HTML_NESTINGS[nesting][0].length + HTML_NESTINGS[nesting][1].length + 10, 1_000_000);
          const outcome = await prepareCapped('nested.html', enc(nestedHtml(nesting, depth, 'The nest ends here.', closed)));
          expectBoundedOutcome(outcome, [new RegExp(`\\blevel ${depth - 1}\\b`), /The nest ends here\./], true);
        },
      ),
      RUNS,
    );
  }, 180_000);

  it('Word: tables, content controls, hyperlinks and smart tags nested a few to hundreds of thousands deep', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...(Object.keys(DOCX_NESTINGS) as Array<keyof typeof DOCX_NESTINGS>)),
        fc.oneof(fc.integer({ min: 1, max: 60 }), fc.integer({ min: 60, max: 200_000 })),
        async (nesting, depth) => {
          const outcome = await prepareCapped('nested.docx', await nestedDocx(nesting, depth, 'The nest ends here.'));
          expectBoundedOutcome(outcome, [/The nest ends here\./], true);
        },
      ),
      // Tables nested 3,000 deep: mammoth ran out of stack, and the file read as "may be damaged".
      { ...RUNS, examples: [['tables', 3000]] },
    );
  }, 180_000);
});
