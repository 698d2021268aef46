/**
 * `npm run bench -- engines --gguf <file.gguf> --onnx <folder> [--dtype q4|q8|fp32]`: the two engines the
 * app runs a model on without WebGPU, on the same model and the same prompts, in Chromium through the app's
 * generate worker (`tools/browser-generator.ts`): llama.cpp in WebAssembly on the GGUF file, and
 * transformers.js on ONNX Runtime's WebAssembly on the ONNX export of that file (`tools/gguf-to-onnx.py`;
 * default dtype q4, the nearest to GGUF Q4_1).
 *
 * The prompts are the app's answer prompt (`buildMessages`: the rules, the passages, the question) over
 * SciFact abstracts: for each of the first PROMPTS test claims, the abstracts it cites, cut to whole
 * sentences (about 400–600 tokens in all). Greedy, at most MAX_NEW_TOKENS written. Each round loads
 * each engine in a fresh Chromium (the order alternating between rounds) and runs every prompt once:
 *
 * - tokens written per second after the first piece: (tokens − the first piece's) ÷ (the run's time
 *   less the first piece's); tokens: the reply counted by the model's tokenizer, since transformers.js
 *   hands over text a word at a time (llama.cpp a token at a time);
 * - the time to the first token (the prompt read, then one token): the first piece's time, less the
 *   time its other tokens took at that rate (nothing for llama.cpp, whose first piece is one token);
 * - prompt tokens/s: the prompt's tokens through the chat template ÷ the time to the first token.
 *
 * Per engine: load time (the worker's load from a local mirror: download, engine start), memory added to
 * Chromium (resident bytes of that browser's processes after the load, less before it, and after the
 * runs), time to first token, prompt tokens/s and written tokens/s (median and range over prompts ×
 * rounds). The replies of the first round are kept, to compare what the two engines write.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Passage } from '../src/core/types.ts';
import { asChunkId, asDocId } from '../src/core/ids.ts';
import type { ContextPassage } from '../src/generate/context.ts';
import { buildMessages } from '../src/generate/prompt.ts';
import type { OnnxGeneratorEntry } from '../src/models/generator-catalogue.ts';
import type { ChatMessage } from '../src/models/generator/generator.ts';
import { openBrowserGenerator, type BrowserGenerator } from '../tools/browser-generator.ts';
import { buildHarness } from '../tests/support/harness.ts';
import type { BenchContext } from './context.ts';
import { median, progress, round, scifactDir } from './util.ts';

const PROMPTS = 3;
const ROUNDS = 2;
const MAX_NEW_TOKENS = 48;
/** Characters of abstract text a prompt quotes (whole sentences): about 350 tokens, with the rules ~550. */
const PASSAGE_CHARS = 1500;
/** Tokens SmolLM2's ChatML template adds: `<|im_start|>role\n` … `<|im_end|>\n` per message, `<|im_start|>assistant\n` after. */
const TEMPLATE_TOKENS_PER_MESSAGE = 5;
const GENERATION_PROMPT_TOKENS = 3;

export interface EnginesOptions {
  gguf: string;
  onnx: string;
  /** The ONNX weights. Default q4. */
  dtype?: Extract<OnnxGeneratorEntry['dtype'], 'q4' | 'q8' | 'fp32'>;
}

interface Engine {
  key: string;
  path: string;
  dtype?: OnnxGeneratorEntry['dtype'];
}

interface Run {
  firstTokenMs: number;
  firstPieceMs: number;
  promptTokens: number;
  newTokens: number;
  writeTokensPerS: number;
  text: string;
}

interface EngineRound {
  loadMs: number;
  memoryMb: number;
  memoryAfterRunsMb: number;
  threads: number;
  notice: string;
  runs: Run[];
}

/** Whole sentences of `text` up to `chars` characters (at least the first). */
function sentencesUpTo(text: string, chars: number): string {
  let out = '';
  for (const { segment } of new Intl.Segmenter('en', { granularity: 'sentence' }).segment(text)) {
    if (out && out.length + segment.length > chars) break;
    out += segment;
  }
  return out.trim();
}

/** The fixed prompts: the app's answer messages over each of the first SciFact test claims' cited abstracts. */
export async function fixedPrompts(): Promise<ChatMessage[][]> {
  const dir = scifactDir();
  const lines = async (file: string) => (await readFile(join(dir, file), 'utf8')).split('\n').filter(Boolean);
  const queries = new Map((await lines('queries.jsonl')).map((l) => JSON.parse(l) as { _id: string; text: string }).map((q) => [q._id, q.text]));
  const corpus = new Map((await lines('corpus.jsonl')).map((l) => JSON.parse(l) as { _id: string; title: string; text: string }).map((d) => [d._id, d]));
  const cited = new Map<string, string[]>();
  for (const row of (await lines('qrels/test.tsv')).slice(1)) {
    const [query, doc] = row.split('\t');
    if (query && doc) cited.set(query, [...(cited.get(query) ?? []), doc]);
  }
  const prompts: ChatMessage[][] = [];
  for (const [query, docs] of cited) {
    if (prompts.length === PROMPTS) break;
    const question = queries.get(query);
    if (!question) continue;
    const passages: ContextPassage[] = [];
    let room = PASSAGE_CHARS;
    for (const id of docs) {
      const doc = corpus.get(id);
      if (!doc || room < 200) continue;
      const text = sentencesUpTo(doc.text, room);
      room -= text.length;
      const passage: Passage = { chunkId: asChunkId(`scifact-${id}`), score: 1, ranks: [], why: '', docId: asDocId(id), docName: `${id}.txt`, docPath: '', docType: 'text', block: 0, label: doc.title, window: text, windowStart: 0, hitStart: 0, hitEnd: text.length };
      passages.push({ n: passages.length + 1, passage, kept: [{ start: 0, end: text.length }], text, merged: 1 });
    }
    if (passages.length) prompts.push(buildMessages({ question, passages }));
  }
  return prompts;
}

/** The prompt's tokens as the model reads it: each message's content, plus the chat template's markers. */
async function promptTokens(generator: BrowserGenerator, messages: readonly ChatMessage[]): Promise<number> {
  let n = GENERATION_PROMPT_TOKENS;
  for (const m of messages) n += (await generator.countTokens(m.content)) + TEMPLATE_TOKENS_PER_MESSAGE;
  return n;
}

async function runEngine(engine: Engine, prompts: readonly ChatMessage[][], harnessDir: string): Promise<EngineRound> {
  const generator = await openBrowserGenerator(engine.path, { contextTokens: 2048, ...(engine.dtype ? { dtype: engine.dtype } : {}), harnessDir, prebuilt: true });
  try {
    const memoryMb = ((await generator.residentBytes()) - generator.residentBeforeLoad) / 1024 / 1024;
    progress(`engines: ${engine.key} loaded in ${round(generator.loadMs, 0)} ms, +${round(memoryMb, 0)} MB (${generator.loaded.notice})`);
    const runs: Run[] = [];
    for (const [i, messages] of prompts.entries()) {
      const tokens = await promptTokens(generator, messages);
      const pieces: string[] = [];
      for await (const piece of generator.stream({ messages, maxTokens: MAX_NEW_TOKENS, temperature: 0 })) pieces.push(piece);
      const { firstPieceMs, totalMs } = generator.timings.at(-1)!;
      const text = pieces.join('');
      const newTokens = text ? await generator.countTokens(text) : 0;
      const firstPieceTokens = pieces[0] ? Math.max(1, await generator.countTokens(pieces[0])) : 1;
      const writeTokensPerS = newTokens > firstPieceTokens && totalMs > firstPieceMs ? ((newTokens - firstPieceTokens) * 1000) / (totalMs - firstPieceMs) : Number.NaN;
      const firstTokenMs = Number.isFinite(writeTokensPerS) ? firstPieceMs - ((firstPieceTokens - 1) * 1000) / writeTokensPerS : firstPieceMs;
      runs.push({ firstTokenMs, firstPieceMs, promptTokens: tokens, newTokens, writeTokensPerS, text });
      progress(`engines: ${engine.key} prompt ${i + 1}/${prompts.length}: ${tokens} tokens, first piece ${round(firstPieceMs, 0)} ms (${firstPieceTokens} tokens), first token ${round(firstTokenMs, 0)} ms, ${newTokens} written at ${round(writeTokensPerS, 1)} tokens/s`);
      progress(`engines: ${engine.key} reply ${i + 1}: ${JSON.stringify(text)}`);
    }
    const memoryAfterRunsMb = ((await generator.residentBytes()) - generator.residentBeforeLoad) / 1024 / 1024;
    return { loadMs: generator.loadMs, memoryMb, memoryAfterRunsMb, threads: generator.loaded.threads, notice: generator.loaded.notice, runs };
  } finally {
    await generator.dispose();
  }
}

/** Median, lowest and highest of the finite values, as `key`, `key_min`, `key_max`. */
function spread(ctx: BenchContext, key: string, values: readonly number[], digits: number): void {
  const finite = values.filter(Number.isFinite);
  if (finite.length) ctx.record({ [key]: round(median(finite), digits), [`${key}_min`]: round(Math.min(...finite), digits), [`${key}_max`]: round(Math.max(...finite), digits) });
}

function recordEngine(ctx: BenchContext, engine: Engine, rounds: readonly EngineRound[]): void {
  const p = `engines_${engine.key}`;
  const runs = rounds.flatMap((r) => r.runs);
  ctx.record({ [`${p}_threads`]: rounds[0]?.threads ?? null, [`${p}_device`]: rounds[0]?.notice ?? null });
  spread(ctx, `${p}_load_ms`, rounds.map((r) => r.loadMs), 0);
  spread(ctx, `${p}_memory_mb`, rounds.map((r) => r.memoryMb), 0);
  spread(ctx, `${p}_memory_after_runs_mb`, rounds.map((r) => r.memoryAfterRunsMb), 0);
  spread(ctx, `${p}_first_token_ms`, runs.map((r) => r.firstTokenMs), 0);
  spread(ctx, `${p}_first_piece_ms`, runs.map((r) => r.firstPieceMs), 0);
  spread(ctx, `${p}_prompt_tokens_per_s`, runs.map((r) => (r.promptTokens * 1000) / r.firstTokenMs), 1);
  spread(ctx, `${p}_write_tokens_per_s`, runs.map((r) => r.writeTokensPerS), 1);
  spread(ctx, `${p}_new_tokens`, runs.map((r) => r.newTokens), 0);
  ctx.record({ [`${p}_prompt_tokens`]: rounds[0]?.runs.map((r) => r.promptTokens).join(', ') ?? null });
  for (const [i, run] of (rounds[0]?.runs ?? []).entries()) ctx.record({ [`${p}_reply_${i + 1}`]: run.text.replace(/\s+/g, ' ') });
}

/** A short table of the two engines, printed before the bench's own report. */
function printComparison(ctx: BenchContext, engines: readonly Engine[]): void {
  const rows: Array<[string, string]> = [
    ['load (ms)', 'load_ms'],
    ['memory added after load (MB)', 'memory_mb'],
    ['memory added after the runs (MB)', 'memory_after_runs_mb'],
    ['time to first token (ms)', 'first_token_ms'],
    ['time to first piece (ms)', 'first_piece_ms'],
    ['prompt tokens/s', 'prompt_tokens_per_s'],
    ['written tokens/s', 'write_tokens_per_s'],
  ];
  const cell = (key: string) => {
    const f = ctx.figures;
    return f[key] === undefined ? '—' : `${f[key]} (${f[`${key}_min`]}–${f[`${key}_max`]})`;
  };
  const lines = ['', `## Engines on the same model (median (range); ${PROMPTS} prompts × ${ROUNDS} rounds, ≤ ${MAX_NEW_TOKENS} new tokens, greedy)`, ['figure', ...engines.map((e) => e.key)].join(' | ')];
  for (const [label, key] of rows) lines.push([label, ...engines.map((e) => cell(`engines_${e.key}_${key}`))].join(' | '));
  console.log(lines.join('\n'));
}

export async function benchEngines(ctx: BenchContext, options: EnginesOptions): Promise<void> {
  const dtype = options.dtype ?? 'q4';
  const engines: Engine[] = [
    { key: 'gguf', path: options.gguf },
    { key: `onnx_${dtype}`, path: options.onnx, dtype },
  ];
  const prompts = await fixedPrompts();
  const harnessDir = await mkdtemp(join(tmpdir(), 'docqa-engines-harness-'));
  try {
    await buildHarness(harnessDir);
    const rounds = new Map<string, EngineRound[]>(engines.map((e) => [e.key, []]));
    for (let r = 0; r < ROUNDS; r++) {
      // Alternating the order, so neither engine always runs on a freshly started machine.
      for (const engine of r % 2 === 0 ? engines : [...engines].reverse()) {
        progress(`engines: round ${r + 1}/${ROUNDS}, ${engine.key}`);
        rounds.get(engine.key)!.push(await runEngine(engine, prompts, harnessDir));
      }
    }
    ctx.record({ engines_prompts: prompts.length, engines_rounds: ROUNDS, engines_max_new_tokens: MAX_NEW_TOKENS });
    for (const engine of engines) recordEngine(ctx, engine, rounds.get(engine.key)!);
    const [gguf, onnx] = engines.map((e) => rounds.get(e.key)![0]!.runs);
    ctx.record({ engines_same_replies: gguf!.filter((run, i) => run.text === onnx![i]?.text).length });
    if (gguf!.some((run, i) => run.promptTokens !== onnx![i]?.promptTokens)) ctx.note('engines: the two tokenizers count the prompts differently');
    printComparison(ctx, engines);
  } finally {
    await rm(harnessDir, { recursive: true, force: true });
  }
}
