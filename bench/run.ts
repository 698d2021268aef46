/**
 * `npm run bench`: ingest throughput, query latency, memory and snapshot size, cold start in Chromium.
 * Prints a table, writes bench/results/latest.json, and prints one JSON object of all figures last.
 *
 *   npm run bench                          everything but lexical and cold-start-100k, which run when named
 *   npm run bench -- --only ingest,query   some operations (ingest, query, memory, cold-start)
 *   npm run bench -- --skip cold-start     all but some
 *   npm run bench -- vector                operations named as arguments: same as --only vector
 *   npm run bench -- embed                 embedding chunks/s (tiny and MiniLM-shaped models, Node and Chromium WASM)
 *   npm run bench -- embed --model <dir>   the same, and a real model folder (q8, or --dtype fp32, or --dtype both for q8 against fp32; Chromium at its default threads, 1 and 2)
 *   npm run bench -- vector --real <dir> the vector index on real embeddings by that model folder (SciFact + Debian manuals)
 *   npm run bench -- rerank                reranking pairs/s (tiny and MiniLM-shaped cross-encoders, Node)
 *   npm run bench -- answer                time before the first token: rewrite, retrieval, rerank, prompt build (Node)
 *   npm run bench -- answer --generator <file.gguf>   and a real GGUF model in Chromium: first piece and tokens/s by step, load, memory
 *   npm run bench -- engines --gguf <file.gguf> --onnx <folder> [--dtype q4|q8|fp32]   llama.cpp vs transformers.js on the same model in Chromium
 *   npm run bench -- ui                    the Library list in Chromium: render and scroll at 1,000 and 5,000 documents, against 100
 *   npm run bench -- ocr                   scanned pages read by OCR: pages/s and peak memory in Node and in Chromium (1 and 2 parse workers)
 *   npm run bench -- library               library files of 1,000 and 10,000 documents imported and exported, and opening each against a reload, in Chromium (MB/s, peak memory, ms)
 *   npm run bench -- library-file          export and import of library files of 1,000 and 10,000 documents: MB/s and peak memory (Node)
 *   npm run bench -- cold-start-100k      cold start to the first answer at ~100k chunks in Chromium (the library brought in as a file)
 *   npm run bench -- lexical [--chunks N]  the lexical index (segments) against one MiniSearch at ~100k chunks: add, memory, queries, snapshot write and load
 */
import { parseArgs } from 'node:util';
import { BenchContext } from './context.ts';
import { benchColdStart, benchColdStartLarge } from './cold-start.ts';
import { benchIngest } from './ingest.ts';
import { benchMemory } from './memory.ts';
import { benchQuery } from './query.ts';
import { benchVector } from './vector.ts';
import { benchEmbed } from './embed.ts';
import { benchRerank } from './rerank.ts';
import { benchAnswer } from './answer.ts';
import { benchAnswerGenerator } from './answer-generator.ts';
import { benchUi } from './ui.ts';
import { benchOcr } from './ocr.ts';
import { benchLibrary } from './library.ts';
import { benchLibraryFile } from './library-file.ts';
import { benchEngines } from './engines.ts';
import { benchLexical } from './lexical.ts';
import { report } from './report.ts';
import { isMain, progress } from './util.ts';

export const OPERATIONS = ['ingest', 'query', 'memory', 'cold-start', 'vector', 'embed', 'rerank', 'answer', 'engines', 'ui', 'ocr', 'library', 'library-file', 'lexical', 'cold-start-100k'] as const;
export type Operation = (typeof OPERATIONS)[number];
/** Run only when named: each takes several minutes of its own (the 100k baseline side, a 100k library in Chromium). */
const ON_REQUEST: ReadonlySet<Operation> = new Set(['lexical', 'cold-start-100k']);

/** Options some operations read. */
export interface BenchOptions {
  /** `--model <folder>`: a real model folder the embed operation measures too (`npm run models:real`). */
  model?: string;
  /** `--dtype q8|fp32|both`: the real model's weights for the embed operation (default q8; both: q8, then q8 against fp32). */
  dtype?: 'q8' | 'fp32' | 'both';
  /** `--real <folder>`: the vector operation measures real embeddings by this model folder. */
  real?: string;
  /** `--generator <file.gguf>`: the answer operation times this real model in Chromium too. */
  generator?: string;
  /** `--gguf <file>` and `--onnx <folder>`: the engines operation runs the same model on both (`--dtype q4|q8|fp32`, default q4). */
  gguf?: string;
  onnx?: string;
  onnxDtype?: 'q4' | 'q8' | 'fp32';
  /** `--chunks N`: the lexical operation's corpus size (default about 100,000). */
  chunks?: number;
}

async function runOperation(ctx: BenchContext, op: Operation, options: BenchOptions): Promise<void> {
  const t0 = performance.now();
  try {
    switch (op) {
      case 'ingest':
        await benchIngest(ctx);
        break;
      case 'query':
        await benchQuery(ctx);
        break;
      case 'memory':
        await benchMemory(ctx);
        break;
      case 'cold-start':
        // Frees the 100k index first: Chromium needs the memory more than we need the index now.
        ctx.release('100k');
        await benchColdStart(ctx);
        break;
      case 'vector':
        await benchVector(ctx, { real: options.real });
        break;
      case 'embed':
        await benchEmbed(ctx, { model: options.model, dtype: options.dtype });
        break;
      case 'rerank':
        await benchRerank(ctx);
        break;
      case 'answer':
        await benchAnswer(ctx);
        if (options.generator) await benchAnswerGenerator(ctx, options.generator);
        break;
      case 'engines':
        if (options.gguf && options.onnx) await benchEngines(ctx, { gguf: options.gguf, onnx: options.onnx, dtype: options.onnxDtype });
        else progress('engines: skipped (needs --gguf <file.gguf> --onnx <folder>)');
        break;
      case 'ui':
        await benchUi(ctx);
        break;
      case 'ocr':
        await benchOcr(ctx);
        break;
      case 'library':
        await benchLibrary(ctx);
        break;
      case 'library-file':
        await benchLibraryFile(ctx);
        break;
      case 'cold-start-100k':
        ctx.release('100k');
        await benchColdStartLarge(ctx);
        break;
      case 'lexical':
        await benchLexical(ctx, { chunks: options.chunks });
        break;
    }
  } catch (err) {
    ctx.note(`${op} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exitCode = 1;
  }
  progress(`${op}: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

/** Runs the operations in order, then reports (table, bench/results/latest.json, JSON line). */
export async function runBench(ops: readonly Operation[], options: BenchOptions = {}): Promise<void> {
  const started = Date.now();
  const ctx = new BenchContext();
  for (const op of ops) await runOperation(ctx, op, options);
  await report(ctx, ops, started);
}

if (isMain(import.meta.url)) {
  const { values, positionals } = parseArgs({ options: { only: { type: 'string' }, skip: { type: 'string' }, model: { type: 'string' }, real: { type: 'string' }, dtype: { type: 'string' }, generator: { type: 'string' }, gguf: { type: 'string' }, onnx: { type: 'string' }, chunks: { type: 'string' } }, allowPositionals: true });
  const list = (s: string | undefined) => (s ? s.split(',').map((x) => x.trim()).filter(Boolean) : []);
  const only = [...list(values.only), ...positionals.flatMap((p) => list(p))];
  const unknown = [...only, ...list(values.skip)].filter((x) => !(OPERATIONS as readonly string[]).includes(x));
  if (unknown.length) {
    console.error(`unknown operation ${unknown.join(', ')}; known: ${OPERATIONS.join(', ')}`);
    process.exit(2);
  }
  const skip = new Set(list(values.skip));
  await runBench(OPERATIONS.filter((op) => (only.length === 0 ? !ON_REQUEST.has(op) : only.includes(op)) && !skip.has(op)), { model: values.model, real: values.real, generator: values.generator, gguf: values.gguf, onnx: values.onnx, chunks: values.chunks ? Number(values.chunks) : undefined, onnxDtype: values.dtype === 'q8' || values.dtype === 'fp32' ? values.dtype : undefined, dtype: values.dtype === 'fp32' || values.dtype === 'both' ? values.dtype : 'q8' });
  // Playwright or vite may keep handles open; the figures are out, so end here.
  process.exit();
}
