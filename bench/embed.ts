/**
 * Embedding throughput through the app's own code on generated random-weight models: the tiny test
 * encoder (hidden 32, 2 layers) and one of MiniLM's / bge-small's shape (hidden 384, 6 layers, 12 heads).
 * Two sides: Node (onnxruntime-node, CPU; `src/embed/embedder.ts` from a local folder) and Chromium (WASM,
 * ONNX Runtime's default threads; the embed worker through its client on the test-only harness page,
 * the model downloaded from a local hub-layout mirror into the model cache first). Passages: the first 64
 * SciFact abstracts cut to at most 96 of the model's tokens, the same texts on both sides. Chunks/s at
 * batch 1 and batch 32; the sides alternate over ROUNDS rounds (which goes first alternates too); a
 * figure is the median of the rounds, with min and max. Standalone: `npx tsx bench/embed.ts`; in the
 * suite: `npm run bench -- embed`.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { loadEmbedder, type Embedder } from '../src/embed/embedder.ts';
import { localModel } from '../src/models/catalogue.ts';
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
const SIDES = ['b1', 'b32'] as const;
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

export async function benchEmbed(ctx: BenchContext): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'bench-embed-'));
  const repos = new Map<string, Map<string, Uint8Array>>();
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
    }
    progress('embed: building the harness page, starting Chromium');
    hub = await startHubServer(repos);
    await buildHarness(join(root, 'dist-harness'));
    app = await openHarness(join(root, 'dist-harness'));

    for (const model of MODELS) {
      const embedder = await loadEmbedder(localModel({ folder: model.name, dims: model.shape.hidden, pooling: 'mean' }), { source: { kind: 'folder', root } });
      try {
        const harnessModel = { repo: `bench/${model.name}`, dims: model.shape.hidden };
        const loaded = (await app.page.evaluate(([m, s]) => window.harness.load(m, s, 'wasm'), [harnessModel, { kind: 'mirror', baseUrl: hub.url }] as const)) as
          | { loaded: { threads: number; loadMs: number } }
          | { error: { message: string } };
        if ('error' in loaded) throw new Error(`chromium load failed: ${loaded.error.message}`);
        ctx.record({ chromium_wasm_threads: loaded.loaded.threads, [`chromium_wasm_${model.short}_load_ms`]: loaded.loaded.loadMs });

        const texts = abstracts.map((a) => fitted(embedder, a, MAX_TOKENS));
        await chunksPerSecond(embedder, texts.slice(0, 8), 8); // warm-up
        await chromiumChunksPerSecond(app, texts.slice(0, 8), 8);
        const node: Record<Side, number[]> = { b1: [], b32: [] };
        const chromium: Record<Side, number[]> = { b1: [], b32: [] };
        for (let r = 0; r < ROUNDS; r++) {
          // Alternating which side (and which batch size) goes first, so neither always runs on a warmer machine.
          const batches = r % 2 ? ([...SIDES].reverse() as Side[]) : [...SIDES];
          const runNode = async () => {
            for (const side of batches) node[side].push(await chunksPerSecond(embedder, texts, side === 'b1' ? 1 : 32));
          };
          const runChromium = async () => {
            for (const side of batches) chromium[side].push(await chromiumChunksPerSecond(app!, texts, side === 'b1' ? 1 : 32));
          };
          if (r % 2) await runChromium().then(runNode);
          else await runNode().then(runChromium);
        }
        for (const side of SIDES) {
          record(ctx, `embed_${model.name}_${side}_chunks_per_s`, node[side]);
          record(ctx, `chromium_wasm_${model.short}_${side}_chunks_per_s`, chromium[side]);
        }
        ctx.record({ [`embed_${model.name}_batch32_over_batch1`]: round(median(node.b32) / median(node.b1), 2) });
        ctx.record({ [`chromium_wasm_${model.short}_node_over_chromium_b32`]: round(median(node.b32) / median(chromium.b32), 2) });
        const fmt = (v: number[]) => `${round(median(v), 1)} (${round(Math.min(...v), 1)}–${round(Math.max(...v), 1)})`;
        progress(`embed ${model.name}: Node batch 1 ${fmt(node.b1)}, batch 32 ${fmt(node.b32)} chunks/s; Chromium WASM (${loaded.loaded.threads} thread) batch 1 ${fmt(chromium.b1)}, batch 32 ${fmt(chromium.b32)} chunks/s`);
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
  await benchEmbed(ctx);
  console.log(JSON.stringify(ctx.figures));
}
