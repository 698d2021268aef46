/**
 * Embedding throughput in Node (onnxruntime-node, CPU), through the app's own embedder
 * (`src/embed/embedder.ts`) on generated random-weight models loaded from a local folder: the tiny test
 * encoder (hidden 32, 2 layers) and one of MiniLM's / bge-small's shape (hidden 384, 6 layers, 12 heads).
 * Passages: the first 64 SciFact abstracts cut to at most 96 of the model's tokens. Chunks/s at batch 1
 * (the baseline: what embedding one chunk at a time costs) and at batch 32, alternating the two over
 * ROUNDS rounds; a figure is the median of the rounds, with min and max. Chromium (WASM) is not measured
 * here yet. Standalone: `npx tsx bench/embed.ts`; in the suite: `npm run bench -- embed`.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { loadEmbedder, type Embedder } from '../src/embed/embedder.ts';
import { localModel } from '../src/models/catalogue.ts';
import { generateTinyModel, MINILM_SHAPE, TINY_SPEC } from '../tools/models/tiny-models.ts';
import type { BenchContext } from './context.ts';
import { isMain, median, progress, round } from './util.ts';

const ROUNDS = 3;
const PASSAGES = 64;
const MAX_TOKENS = 96;
const MODELS = [
  { name: 'tiny', shape: TINY_SPEC },
  { name: 'minilm_shape', shape: MINILM_SHAPE },
] as const;

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

export async function benchEmbed(ctx: BenchContext): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'bench-embed-'));
  try {
    const abstracts = (await ctx.corpus('scifact')).docs.slice(0, PASSAGES).map((d) => d.text.replace(/\s+/g, ' '));
    for (const model of MODELS) {
      progress(`embed ${model.name}: generating the model`);
      for (const [path, bytes] of generateTinyModel('tiny-encoder', model.shape)) {
        const file = join(root, model.name, path);
        await mkdir(dirname(file), { recursive: true });
        await writeFile(file, bytes);
      }
      const embedder = await loadEmbedder(localModel({ folder: model.name, dims: model.shape.hidden, pooling: 'mean' }), { source: { kind: 'folder', root } });
      try {
        const texts = abstracts.map((a) => fitted(embedder, a, MAX_TOKENS));
        await chunksPerSecond(embedder, texts.slice(0, 8), 8); // warm-up
        const sides: Record<'b1' | 'b32', number[]> = { b1: [], b32: [] };
        for (let r = 0; r < ROUNDS; r++) {
          // Alternating which side goes first, so neither always runs on a warmer machine.
          const order = r % 2 ? (['b32', 'b1'] as const) : (['b1', 'b32'] as const);
          for (const side of order) sides[side].push(await chunksPerSecond(embedder, texts, side === 'b1' ? 1 : 32));
        }
        for (const side of ['b1', 'b32'] as const) {
          const key = `embed_${model.name}_${side}_chunks_per_s`;
          ctx.record({ [key]: round(median(sides[side]), 1), [`${key}_min`]: round(Math.min(...sides[side]), 1), [`${key}_max`]: round(Math.max(...sides[side]), 1) });
        }
        ctx.record({ [`embed_${model.name}_batch32_over_batch1`]: round(median(sides.b32) / median(sides.b1), 2) });
        progress(`embed ${model.name}: batch 1 ${round(median(sides.b1), 1)} chunks/s, batch 32 ${round(median(sides.b32), 1)} chunks/s`);
      } finally {
        await embedder.dispose();
      }
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) {
  const { BenchContext } = await import('./context.ts');
  const ctx = new BenchContext();
  await benchEmbed(ctx);
  console.log(JSON.stringify(ctx.figures));
}
