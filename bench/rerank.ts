/**
 * Reranking throughput through the app's own reranker (`src/models/cross-encoder/reranker.ts`, onnxruntime-node CPU,
 * Node only) on generated random-weight cross-encoders from a local folder: the tiny test cross-encoder
 * (hidden 32, 2 layers) and one of ms-marco-MiniLM-L-6-v2's shape (hidden 384, 6 layers, 12 heads; the
 * same shape as `MINILM_SHAPE`, ~90 MB in float32, where the real model is q8). One call scores what
 * the app reranks for one question: 40 pairs of a SciFact test question and SciFact abstracts cut to 100
 * of the model's tokens, in one batch of 40 (and, for comparison, batches of 8); the MiniLM-shaped model
 * also with passages of 300 tokens, the size of the app's longer chunks (1,500 characters). A measurement repeats
 * the call for at least MIN_MS; the two models alternate over ROUNDS rounds (which goes first
 * alternates too); a figure is the median of the rounds, with min and max. Chromium (WASM) is not
 * measured here: the platform notes put WASM with 2 threads at ~3.5× slower than Node for an encoder.
 * Standalone: `npx tsx bench/rerank.ts`; in the suite: `npm run bench -- rerank`.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { AutoTokenizer } from '@huggingface/transformers';
import { configureSource } from '../src/models/model-source.ts';
import { localReranker } from '../src/models/catalogue.ts';
import { loadReranker, type Reranker } from '../src/models/cross-encoder/reranker.ts';
import { generateTinyModel, MINILM_SHAPE, TINY_SPEC } from '../tools/models/tiny-models.ts';
import type { BenchContext } from './context.ts';
import { isMain, median, progress, round } from './util.ts';

const ROUNDS = 5;
const PAIRS = 40;
const PASSAGE_TOKENS = 100;
/** The longer passages the MiniLM-shaped model is also timed with. */
const LONG_PASSAGE_TOKENS = 300;
/** Each measurement repeats the 40-pair call until this much time has passed. */
const MIN_MS = 1_000;
const MODELS = [
  { name: 'tiny', shape: TINY_SPEC },
  { name: 'minilm', shape: MINILM_SHAPE },
] as const;
const BATCHES = [40, 8] as const;

/** Pairs per second scoring `passages` against `query` at `batchSize`, over at least MIN_MS. */
async function pairsPerSecond(reranker: Reranker, query: string, passages: readonly string[], batchSize: number): Promise<{ perS: number; msPerCall: number }> {
  let calls = 0;
  const t0 = performance.now();
  do {
    await reranker.score(query, passages, { batchSize });
    calls++;
  } while (performance.now() - t0 < MIN_MS);
  const ms = performance.now() - t0;
  return { perS: (calls * passages.length) / (ms / 1000), msPerCall: ms / calls };
}

function record(ctx: BenchContext, key: string, values: number[]): void {
  ctx.record({ [key]: round(median(values), 1), [`${key}_min`]: round(Math.min(...values), 1), [`${key}_max`]: round(Math.max(...values), 1) });
}

const fmt = (v: number[]) => `${round(median(v), 1)} (${round(Math.min(...v), 1)}–${round(Math.max(...v), 1)})`;

export async function benchRerank(ctx: BenchContext): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'bench-rerank-'));
  const rerankers = new Map<string, Reranker>();
  try {
    for (const model of MODELS) {
      progress(`rerank ${model.name}: generating the cross-encoder`);
      for (const [path, bytes] of generateTinyModel('tiny-cross-encoder', model.shape)) {
        const file = join(root, model.name, path);
        await mkdir(dirname(file), { recursive: true });
        await writeFile(file, bytes);
      }
      rerankers.set(model.name, await loadReranker(localReranker({ folder: model.name }), { source: { kind: 'folder', root } }));
    }
    // Both models share the generated tokenizer: cut each abstract to its first PASSAGE_TOKENS tokens.
    configureSource({ kind: 'folder', root });
    const tokenizer = await AutoTokenizer.from_pretrained('tiny');
    const scifact = await ctx.corpus('scifact');
    const query = scifact.queries.queries[0]!;
    const cutTo = (tokens: number) =>
      scifact.docs
        .map((d) => tokenizer.encode(d.text, { add_special_tokens: false }))
        .filter((ids) => ids.length >= tokens)
        .slice(0, PAIRS)
        .map((ids) => tokenizer.decode(ids.slice(0, tokens)));
    const passages = cutTo(PASSAGE_TOKENS);
    const longPassages = cutTo(LONG_PASSAGE_TOKENS);
    const pairTokens = tokenizer(query, { text_pair: passages[0]!, return_tensor: false }) as unknown as { input_ids: number[] };
    ctx.record({ rerank_pairs_per_call: passages.length, rerank_tokens_per_pair: pairTokens.input_ids.length });

    const perS: Record<string, number[]> = {};
    const msPerCall: Record<string, number[]> = {};
    for (const model of MODELS) await rerankers.get(model.name)!.score(query, passages.slice(0, 8), { batchSize: 8 }); // warm-up
    for (let r = 0; r < ROUNDS; r++) {
      // Alternating which model (and which batch size) goes first, so neither always runs on a warmer machine.
      const models = r % 2 ? [...MODELS].reverse() : [...MODELS];
      const batches = r % 2 ? [...BATCHES].reverse() : [...BATCHES];
      for (const model of models) {
        for (const batch of batches) {
          const key = `${model.name}_b${batch}`;
          const m = await pairsPerSecond(rerankers.get(model.name)!, query, passages, batch);
          (perS[key] ??= []).push(m.perS);
          (msPerCall[key] ??= []).push(m.msPerCall);
        }
        if (model.name === 'minilm') {
          const m = await pairsPerSecond(rerankers.get(model.name)!, query, longPassages, PAIRS);
          (perS.minilm_long ??= []).push(m.perS);
          (msPerCall.minilm_long ??= []).push(m.msPerCall);
        }
      }
      progress(`rerank round ${r + 1}/${ROUNDS} done`);
    }
    for (const model of MODELS) {
      record(ctx, `rerank_pairs_per_s_${model.name}`, perS[`${model.name}_b40`]!);
      record(ctx, `rerank_pairs_per_s_${model.name}_b8`, perS[`${model.name}_b8`]!);
      ctx.record({ [`rerank_ms_per_40_${model.name}`]: round(median(msPerCall[`${model.name}_b40`]!), 1) });
      progress(`rerank ${model.name}: batch 40 ${fmt(perS[`${model.name}_b40`]!)} pairs/s, batch 8 ${fmt(perS[`${model.name}_b8`]!)} pairs/s`);
    }
    record(ctx, `rerank_pairs_per_s_minilm_${LONG_PASSAGE_TOKENS}tok`, perS.minilm_long!);
    ctx.record({ [`rerank_ms_per_40_minilm_${LONG_PASSAGE_TOKENS}tok`]: round(median(msPerCall.minilm_long!), 1) });
    progress(`rerank minilm, ${LONG_PASSAGE_TOKENS}-token passages: batch 40 ${fmt(perS.minilm_long!)} pairs/s`);
  } finally {
    for (const reranker of rerankers.values()) await reranker.dispose();
    await rm(root, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) {
  const { runOne } = await import('./report.ts');
  await runOne('rerank', benchRerank);
}
