/**
 * Embedding throughput through the app's own code on generated random-weight models: the tiny test
 * encoder (hidden 32, 2 layers) and one of MiniLM's / bge-small's shape (hidden 384, 6 layers, 12 heads).
 * Two sides: Node (onnxruntime-node, CPU; `src/models/encoder/embedder.ts` from a local folder) and Chromium (WASM,
 * ONNX Runtime's default threads; the embed worker through its client on the test-only harness page,
 * the model downloaded from a local hub-layout mirror into the model cache first). Passages: the first 64
 * SciFact abstracts cut to at most 96 of the model's tokens, the same texts on both sides. Chunks/s at
 * batch 1 and batch 32; the sides alternate over ROUNDS rounds (which goes first alternates too); a
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
  /** Chromium thread counts to measure: the default (0) and, for a real model, one and two threads too. */
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

function record(ctx: BenchContext, key: string, values: number[]): void {
  ctx.record({ [key]: round(median(values), 1), [`${key}_min`]: round(Math.min(...values), 1), [`${key}_max`]: round(Math.max(...values), 1) });
}

export interface EmbedBenchOptions {
  /** A real model folder (`npm run models:real`): measured too, at the default threads, one and two. */
  model?: string;
  /** The real model's weights: q8 (default, what the app downloads) or fp32. */
  dtype?: 'q8' | 'fp32';
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
      const dtype = options.dtype ?? 'q8';
      const { model, root: realRoot } = embeddingModelOfFolder(options.model, dtype);
      repos.set('bench/real', await folderFiles(options.model, model));
      ctx.note(`embed real: ${model.id} from ${options.model} (${dtype})`);
      ctx.record({ embed_real_dtype: dtype });
      models.push({ name: 'real', short: 'real', node: model, root: realRoot, harness: { repo: 'bench/real', dims: model.dims, pooling: model.pooling, dtype, queryPrefix: model.queryPrefix }, threads: [0, 1, 2] });
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
          ctx.record({ [`chromium_wasm_${tag}_node_over_chromium_b32`]: round(median(node.b32) / median(chromium.b32), 2) });
          const fmt = (v: number[]) => `${round(median(v), 1)} (${round(Math.min(...v), 1)}–${round(Math.max(...v), 1)})`;
          progress(`embed ${model.name}: Node batch 1/8/32 ${fmt(node.b1)}, ${fmt(node.b8)}, ${fmt(node.b32)} chunks/s; Chromium WASM (${loaded.loaded.threads} thread) ${fmt(chromium.b1)}, ${fmt(chromium.b8)}, ${fmt(chromium.b32)} chunks/s`);
        }
      } finally {
        await embedder.dispose();
      }
    }
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
  await benchEmbed(ctx, { model: arg('--model'), dtype: arg('--dtype') === 'fp32' ? 'fp32' : 'q8' });
  console.log(JSON.stringify(ctx.figures));
}
