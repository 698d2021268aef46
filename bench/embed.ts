/**
 * Embedding throughput through the app's own code on generated random-weight models: the tiny test
 * encoder (hidden 32, 2 layers) and one of MiniLM's / bge-small's shape (hidden 384, 6 layers, 12 heads).
 * Two sides: Node (onnxruntime-node, CPU; `src/models/encoder/embedder.ts` from a local folder) and Chromium (WASM,
 * ONNX Runtime's default threads; the embed worker through its client on the test-only harness page,
 * the model downloaded from a local hub-layout mirror into the model cache first). Passages: the first 64
 * SciFact abstracts cut to at most 96 of the model's tokens, the same texts on both sides. Chunks/s at
 * batch 1, 8 and 32; with a real model also texts of mixed lengths at batch 32, batched by length (the
 * embedder's order) and in input order. The sides alternate over ROUNDS rounds (which goes first alternates too); a
 * figure is the median of the rounds, with min and max. Standalone: `npx tsx bench/embed.ts`; in the
 * suite: `npm run bench -- embed`.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { loadEmbedder, type Embedder } from '../src/models/encoder/embedder.ts';
import { localModel, type EmbeddingModel } from '../src/models/catalogue.ts';
import { embeddingModelOfFolder } from '../tools/model-folder.ts';
import type { HarnessModel } from '../tests/harness/embed-harness.ts';
import { generateTinyModel, MINILM_SHAPE, TINY_SPEC } from '../tools/models/tiny-models.ts';
import { buildHarness, openHarness, type OpenHarness } from '../tests/support/harness.ts';
import { startHubServer, type HubServer } from '../tests/support/hub-server.ts';
import type { BenchContext } from './context.ts';
import { isMain, median, progress, round } from './util.ts';

const ROUNDS = 3;
const PASSAGES = 64;
const MAX_TOKENS = 96;
/** `name`: the Node figures' key (kept from the Node-only bench); `short`: the Chromium figures' key. */
const MODELS = [
  { name: 'tiny', short: 'tiny', shape: TINY_SPEC },
  { name: 'minilm_shape', short: 'minilm', shape: MINILM_SHAPE },
] as const;

/** A model the bench runs on both sides: its Node entry and folder, and the harness's view of it. */
interface BenchModel {
  name: string;
  short: string;
  node: EmbeddingModel;
  root: string;
  harness: HarnessModel;
  /** Chromium thread counts to measure: the default (0) and, for a real model, one, two and four threads too. */
  threads: number[];
}

/** The files of a model folder, by path, as the mirror serves them. */
async function folderFiles(folder: string, model: EmbeddingModel): Promise<Map<string, Uint8Array>> {
  const files = new Map<string, Uint8Array>();
  for (const f of model.files) files.set(f.path, await readFile(join(folder, f.path)));
  return files;
}
const SIDES = ['b1', 'b8', 'b32'] as const;
const BATCH: Record<Side, number> = { b1: 1, b8: 8, b32: 32 };
type Side = (typeof SIDES)[number];

/** The first words of `text` that fit in `max` of the model's tokens. */
function fitted(embedder: Embedder, text: string, max: number): string {
  const words = text.split(' ');
  let lo = 1;
  let hi = words.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (embedder.countTokens(words.slice(0, mid).join(' '), 'passage') <= max) lo = mid;
    else hi = mid - 1;
  }
  return words.slice(0, lo).join(' ');
}

async function chunksPerSecond(embedder: Embedder, texts: readonly string[], batchSize: number): Promise<number> {
  const t0 = performance.now();
  await embedder.embedPassages(texts, { batchSize });
  return texts.length / ((performance.now() - t0) / 1000);
}

/** The harness's chunks/s for `texts` at `batchSize`, measured in the page around the worker call. */
async function chromiumChunksPerSecond(app: OpenHarness, texts: readonly string[], batchSize: number): Promise<number> {
  const r = (await app.page.evaluate(([t, b]) => window.harness.chunksPerSecond(t, b), [texts as string[], batchSize] as const)) as number | { error: { message: string } };
  if (typeof r !== 'number') throw new Error(`chromium embed failed: ${r.error.message}`);
  return r;
}

/**
 * Chunks/s for texts of mixed lengths at batch `batchSize`: `sorted` is the embedder's own order (one call:
 * it batches texts of like length together), `input` embeds each run of `batchSize` texts in input order
 * with its own call (so a batch pads to its longest text, as without sorting).
 */
async function mixedChunksPerSecond(embed: (texts: readonly string[]) => Promise<number>, texts: readonly string[], batchSize: number, order: 'sorted' | 'input'): Promise<number> {
  if (order === 'sorted') return texts.length / (await embed(texts));
  let seconds = 0;
  for (let at = 0; at < texts.length; at += batchSize) seconds += await embed(texts.slice(at, at + batchSize));
  return texts.length / seconds;
}

/** The seconds one call embedding `texts` at `batchSize` takes, in Node or in the page. */
const nodeSeconds = (embedder: Embedder, batchSize: number) => async (texts: readonly string[]) => {
  const t0 = performance.now();
  await embedder.embedPassages(texts, { batchSize });
  return (performance.now() - t0) / 1000;
};
const chromiumSeconds = (app: OpenHarness, batchSize: number) => async (texts: readonly string[]) => texts.length / (await chromiumChunksPerSecond(app, texts, batchSize));

/** Token lengths the mixed-length texts cycle through (a library's chunks: headings, short paragraphs, full chunks). */
const MIXED_TOKENS = [16, 48, 96, 192, 256, 32, 128, 64] as const;

function record(ctx: BenchContext, key: string, values: number[]): void {
  ctx.record({ [key]: round(median(values), 1), [`${key}_min`]: round(Math.min(...values), 1), [`${key}_max`]: round(Math.max(...values), 1) });
}

/**
 * Texts of mixed lengths (SciFact abstracts cut to MIXED_TOKENS in turn), batch 32, with the embedder's
 * length sorting and in input order, on both sides, alternating over ROUNDS rounds.
 */
async function benchMixed(ctx: BenchContext, embedder: Embedder, app: OpenHarness, abstracts: readonly string[]): Promise<void> {
  const texts = abstracts.map((a, i) => fitted(embedder, a, MIXED_TOKENS[i % MIXED_TOKENS.length]!));
  const runs: Record<string, number[]> = { node_sorted: [], node_input: [], chromium_sorted: [], chromium_input: [] };
  for (let r = 0; r < ROUNDS; r++) {
    const orders = r % 2 ? (['input', 'sorted'] as const) : (['sorted', 'input'] as const);
    for (const order of orders) {
      runs[`node_${order}`]!.push(await mixedChunksPerSecond(nodeSeconds(embedder, 32), texts, 32, order));
      runs[`chromium_${order}`]!.push(await mixedChunksPerSecond(chromiumSeconds(app, 32), texts, 32, order));
    }
  }
  for (const [key, values] of Object.entries(runs)) record(ctx, `embed_real_mixed_${key}_b32_chunks_per_s`, values);
  ctx.record({
    embed_real_mixed_node_sorted_over_input: round(median(runs.node_sorted!) / median(runs.node_input!), 2),
    embed_real_mixed_chromium_sorted_over_input: round(median(runs.chromium_sorted!) / median(runs.chromium_input!), 2),
  });
  progress(`embed real, mixed lengths, batch 32: Node sorted ${round(median(runs.node_sorted!), 1)} / input order ${round(median(runs.node_input!), 1)} chunks/s; Chromium sorted ${round(median(runs.chromium_sorted!), 1)} / input order ${round(median(runs.chromium_input!), 1)}`);
}

/** The real model's two weights, on both sides, alternating which goes first: chunks/s at batch 8 (the app's WASM batch). */
async function benchDtypes(ctx: BenchContext, app: OpenHarness, hubUrl: string, folder: string, abstracts: readonly string[]): Promise<void> {
  const sides = [] as { dtype: 'q8' | 'fp32'; embedder: Embedder; harness: HarnessModel; node: number[]; chromium: number[] }[];
  for (const dtype of ['q8', 'fp32'] as const) {
    const { model, root } = embeddingModelOfFolder(folder, dtype);
    const embedder = await loadEmbedder(model, { source: { kind: 'folder', root } });
    sides.push({ dtype, embedder, harness: { repo: `bench/real-${dtype}`, dims: model.dims, pooling: model.pooling, dtype, queryPrefix: model.queryPrefix }, node: [], chromium: [] });
  }
  try {
    const texts = abstracts.map((a) => fitted(sides[0]!.embedder, a, MAX_TOKENS));
    for (let r = 0; r < ROUNDS; r++) {
      for (const side of r % 2 ? [...sides].reverse() : sides) {
        const loaded = (await app.page.evaluate(([m, s]) => window.harness.load(m, s, 'wasm'), [side.harness, { kind: 'mirror', baseUrl: hubUrl }] as const)) as { loaded: unknown } | { error: { message: string } };
        if ('error' in loaded) throw new Error(`chromium load of ${side.dtype} failed: ${loaded.error.message}`);
        await chromiumChunksPerSecond(app, texts.slice(0, 8), 8); // warm-up
        side.chromium.push(await chromiumChunksPerSecond(app, texts, 8));
        side.node.push(await chunksPerSecond(side.embedder, texts, 8));
      }
    }
    for (const side of sides) {
      record(ctx, `embed_real_${side.dtype}_node_b8_chunks_per_s`, side.node);
      record(ctx, `embed_real_${side.dtype}_chromium_b8_chunks_per_s`, side.chromium);
    }
    const [q8, fp32] = sides as [(typeof sides)[0], (typeof sides)[0]];
    ctx.record({
      embed_real_fp32_over_q8_node_b8: round(median(fp32.node) / median(q8.node), 2),
      embed_real_fp32_over_q8_chromium_b8: round(median(fp32.chromium) / median(q8.chromium), 2),
    });
    progress(`embed real, q8 against fp32, batch 8: Node ${round(median(q8.node), 1)} / ${round(median(fp32.node), 1)} chunks/s; Chromium ${round(median(q8.chromium), 1)} / ${round(median(fp32.chromium), 1)}`);
  } finally {
    for (const side of sides) await side.embedder.dispose();
  }
}

export interface EmbedBenchOptions {
  /** A real model folder (`npm run models:real`): measured too, at the default threads, one, two and four (more than this machine has cores, to show what too many cost). */
  model?: string;
  /**
   * The real model's weights: q8 (default, what the app downloads) or fp32; `both`: q8 measured in full,
   * then q8 against fp32 at batch 8, alternating (the folder must hold both).
   */
  dtype?: 'q8' | 'fp32' | 'both';
}

export async function benchEmbed(ctx: BenchContext, options: EmbedBenchOptions = {}): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'bench-embed-'));
  const repos = new Map<string, Map<string, Uint8Array>>();
  const models: BenchModel[] = [];
  let hub: HubServer | undefined;
  let app: OpenHarness | undefined;
  try {
    const abstracts = (await ctx.corpus('scifact')).docs.slice(0, PASSAGES).map((d) => d.text.replace(/\s+/g, ' '));
    for (const model of MODELS) {
      progress(`embed ${model.name}: generating the model`);
      const files = generateTinyModel('tiny-encoder', model.shape);
      repos.set(`bench/${model.name}`, files);
      for (const [path, bytes] of files) {
        const file = join(root, model.name, path);
        await mkdir(dirname(file), { recursive: true });
        await writeFile(file, bytes);
      }
      const node = localModel({ folder: model.name, dims: model.shape.hidden, pooling: 'mean' });
      models.push({ name: model.name, short: model.short, node, root, harness: { repo: `bench/${model.name}`, dims: model.shape.hidden }, threads: [0] });
    }
    if (options.model) {
      const dtype = options.dtype === 'fp32' ? 'fp32' : 'q8';
      if (options.dtype === 'both') {
        for (const d of ['q8', 'fp32'] as const) repos.set(`bench/real-${d}`, await folderFiles(options.model, embeddingModelOfFolder(options.model, d).model));
      }
      const { model, root: realRoot } = embeddingModelOfFolder(options.model, dtype);
      repos.set('bench/real', await folderFiles(options.model, model));
      ctx.note(`embed real: ${model.id} from ${options.model} (${dtype})`);
      ctx.record({ embed_real_dtype: dtype });
      models.push({ name: 'real', short: 'real', node: model, root: realRoot, harness: { repo: 'bench/real', dims: model.dims, pooling: model.pooling, dtype, queryPrefix: model.queryPrefix }, threads: [0, 1, 2, 4] });
    }
    progress('embed: building the harness page, starting Chromium');
    hub = await startHubServer(repos);
    await buildHarness(join(root, 'dist-harness'));
    app = await openHarness(join(root, 'dist-harness'));

    for (const model of models) {
      const embedder = await loadEmbedder(model.node, { source: { kind: 'folder', root: model.root } });
      try {
        const texts = abstracts.map((a) => fitted(embedder, a, MAX_TOKENS));
        for (const threads of model.threads) {
          // A fresh worker for each: ONNX Runtime keeps the threads its first session started with.
          await app.page.evaluate(() => window.harness.restartEmbedWorker());
          const loaded = (await app.page.evaluate(([m, s, t]) => window.harness.load(m, s, 'wasm', t || undefined), [model.harness, { kind: 'mirror', baseUrl: hub.url }, threads] as const)) as
            | { loaded: { threads: number; loadMs: number } }
            | { error: { message: string } };
          if ('error' in loaded) throw new Error(`chromium load failed: ${loaded.error.message}`);
          const tag = threads ? `${model.short}_t${threads}` : model.short;
          ctx.record({ chromium_wasm_threads: Math.max(loaded.loaded.threads, (ctx.figures.chromium_wasm_threads as number | undefined) ?? 0), [`chromium_wasm_${tag}_load_ms`]: loaded.loaded.loadMs });
          await chunksPerSecond(embedder, texts.slice(0, 8), 8); // warm-up
          await chromiumChunksPerSecond(app, texts.slice(0, 8), 8);
          const node: Record<Side, number[]> = { b1: [], b8: [], b32: [] };
          const chromium: Record<Side, number[]> = { b1: [], b8: [], b32: [] };
          for (let r = 0; r < ROUNDS; r++) {
            // Alternating which side (and which batch size) goes first, so neither always runs on a warmer machine.
            const batches = r % 2 ? ([...SIDES].reverse() as Side[]) : [...SIDES];
            const runNode = async () => {
              for (const side of batches) node[side].push(await chunksPerSecond(embedder, texts, BATCH[side]));
            };
            const runChromium = async () => {
              for (const side of batches) chromium[side].push(await chromiumChunksPerSecond(app!, texts, BATCH[side]));
            };
            if (r % 2) await runChromium().then(runNode);
            else await runNode().then(runChromium);
          }
          for (const side of SIDES) {
            if (!threads) record(ctx, `embed_${model.name}_${side}_chunks_per_s`, node[side]);
            record(ctx, `chromium_wasm_${tag}_${side}_chunks_per_s`, chromium[side]);
          }
          if (!threads) ctx.record({ [`embed_${model.name}_batch32_over_batch1`]: round(median(node.b32) / median(node.b1), 2) });
          if (!threads && model.name === 'real') await benchMixed(ctx, embedder, app, abstracts);
          ctx.record({ [`chromium_wasm_${tag}_node_over_chromium_b32`]: round(median(node.b32) / median(chromium.b32), 2) });
          const fmt = (v: number[]) => `${round(median(v), 1)} (${round(Math.min(...v), 1)}–${round(Math.max(...v), 1)})`;
          progress(`embed ${model.name}: Node batch 1/8/32 ${fmt(node.b1)}, ${fmt(node.b8)}, ${fmt(node.b32)} chunks/s; Chromium WASM (${loaded.loaded.threads} thread) ${fmt(chromium.b1)}, ${fmt(chromium.b8)}, ${fmt(chromium.b32)} chunks/s`);
        }
      } finally {
        await embedder.dispose();
      }
    }
    if (options.model && options.dtype === 'both') await benchDtypes(ctx, app, hub.url, options.model, abstracts);
  } finally {
    await app?.close();
    await hub?.close();
    await rm(root, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) {
  const { BenchContext } = await import('./context.ts');
  const ctx = new BenchContext();
  const arg = (name: string) => (process.argv.indexOf(name) > 0 ? process.argv[process.argv.indexOf(name) + 1] : undefined);
  await benchEmbed(ctx, { model: arg('--model'), dtype: arg('--dtype') === 'fp32' || arg('--dtype') === 'both' ? (arg('--dtype') as 'fp32' | 'both') : 'q8' });
  console.log(JSON.stringify(ctx.figures));
}
