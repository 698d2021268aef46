/**
 * Real vectors for the vector bench (`npm run bench -- vector --real <model folder>`): the passages and
 * questions of `real-texts.ts` embedded by a real model folder (`npm run models:real`) through the app's
 * own embedder in Node, kept in the vector cache (`tools/vector-cache.ts`) so a second run embeds
 * nothing. The passages are put in a seeded random order, so every set size mixes every source; the
 * 10k set is the first 10,000 of that order, the 100k set the first 100,000, and so on.
 */
import { mulberry32 } from '../tools/random.ts';
import { loadFolderEmbedder, weightsOfFolder } from '../tools/model-folder.ts';
import { cachingEmbedder, modelCacheKey } from '../tools/vector-cache.ts';
import type { BenchContext } from './context.ts';
import { realTexts } from './real-texts.ts';
import { progress, round } from './util.ts';

/** Passages per embedding call here (progress and cache appends happen between calls). */
const EMBED_SLICE = 2048;
const SHUFFLE_SEED = 243;

export interface RealVectors {
  dims: number;
  /** Every passage's vector, row by row, in the shuffled order. */
  block: Float32Array;
  count: number;
  /** Every question's vector (SciFact's claims and the Debian FAQ's questions). */
  queries: Float32Array[];
  model: string;
}

/** Fisher–Yates with a fixed seed: the same order every run. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  const random = mulberry32(seed);
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Embeds (or reads from the cache) every real passage and question with the model in `folder`. */
export async function realVectors(ctx: BenchContext, folder: string): Promise<RealVectors> {
  const texts = await realTexts();
  const inner = await loadFolderEmbedder(folder, 32, 'q8');
  const embedder = cachingEmbedder(inner, modelCacheKey(inner.model, weightsOfFolder(folder, 'q8')));
  const dims = inner.model.dims;
  const passages = shuffled(texts.passages, SHUFFLE_SEED);
  const block = new Float32Array(passages.length * dims);
  const t0 = performance.now();
  for (let at = 0; at < passages.length; at += EMBED_SLICE) {
    block.set(await embedder.embedChunks(passages.slice(at, at + EMBED_SLICE)), at * dims);
    progress(`vector --real: ${Math.min(at + EMBED_SLICE, passages.length)} of ${passages.length} passages (${embedder.embedded} embedded, ${embedder.reused} from the cache)`);
  }
  const queries: Float32Array[] = [];
  for (const q of texts.queries) queries.push(await embedder.embedQuery(q));
  ctx.record({
    real_passages: passages.length,
    real_scifact_abstracts: texts.counts.scifact_abstracts,
    real_scifact_sentences: texts.counts.scifact_sentences,
    real_debian_chunks: texts.counts.debian_chunks,
    real_debian_sentences: texts.counts.debian_sentences,
    real_queries: queries.length,
    real_embedded_now: embedder.embedded,
    real_embed_s: round((performance.now() - t0) / 1000, 1),
  });
  return { dims, block, count: passages.length, queries, model: inner.model.id };
}
