// The embedder on the generated tiny encoder, through the real transformers.js loading and inference
// code (local folder, remote off, every fetch refused): pooling and normalisation against values
// computed here by hand from last_hidden_state, prefixes, batching, and the refusals.
import { AutoModel, AutoTokenizer, type Tensor } from '@huggingface/transformers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configureSource, loadEmbedder, type LoadProgress } from '../../src/models/encoder/embedder.ts';
import { BGE_SMALL_EN, localModel, type LocalModelConfig } from '../../src/models/catalogue.ts';
import { createTinyModelDir, type TinyModelDir } from '../support/tiny-model-dir.ts';
import { maxDiff, refusal } from '../support/model-assertions.ts';

let tiny: TinyModelDir;
beforeAll(async () => {
  tiny = await createTinyModelDir();
});
afterAll(async () => {
  expect(tiny.fetched).toEqual([]); // only the mirror and hub test fetches (and clears what it fetched)
  await tiny.remove();
});

const TEXTS = ['hello world', 'the rent is due on the first day of every month', 'cells express the protein'];
const load = (config: Partial<LocalModelConfig> = {}, onProgress?: (e: LoadProgress) => void) =>
  loadEmbedder(localModel({ folder: 'tiny-encoder', dims: 32, pooling: 'mean', ...config }), {
    source: { kind: 'folder', root: tiny.dir },
    ...(onProgress ? { onProgress } : {}),
  });

/** Hidden states and masks straight from transformers.js, as plain numbers. */
async function hiddenStates(texts: string[]): Promise<{ states: number[][][]; mask: number[][] }> {
  configureSource({ kind: 'folder', root: tiny.dir });
  const tokenizer = await AutoTokenizer.from_pretrained('tiny-encoder');
  const model = await AutoModel.from_pretrained('tiny-encoder', { dtype: 'fp32' });
  const inputs = tokenizer(texts, { padding: true }) as Record<string, Tensor>;
  const { last_hidden_state } = (await model(inputs)) as { last_hidden_state: Tensor };
  const mask = (inputs.attention_mask!.tolist() as bigint[][]).map((row) => row.map(Number));
  return { states: last_hidden_state.tolist() as number[][][], mask };
}

const l2 = (v: number[]) => {
  const n = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return v.map((x) => x / n);
};
const handMean = (states: number[][], mask: number[]) => {
  const kept = states.filter((_, t) => mask[t] === 1);
  return states[0]!.map((_, h) => kept.reduce((s, tok) => s + tok[h]!, 0) / kept.length);
};

describe('pooling and normalisation equal hand-computed values', () => {
  it('mean pooling over the attention mask, then L2 norm (padding in the batch changes nothing)', async () => {
    const { states, mask } = await hiddenStates(TEXTS);
    expect(mask[0]!.includes(0)).toBe(true); // the short text is padded in this batch
    const { vectors } = await (await load({ pooling: 'mean' })).embedPassages(TEXTS, { batchSize: 3 });
    vectors.forEach((v, i) => expect(maxDiff(v, l2(handMean(states[i]!, mask[i]!)))).toBeLessThan(1e-5));
    // Unnormalised mean too, so the test sees the pooling and the norm apart.
    const raw = await (await load({ pooling: 'mean', normalize: false })).embedPassages(TEXTS);
    raw.vectors.forEach((v, i) => expect(maxDiff(v, handMean(states[i]!, mask[i]!))).toBeLessThan(1e-5));
    expect(Math.hypot(...raw.vectors[1]!)).not.toBeCloseTo(1, 2);
  });

  it('CLS pooling takes the first token state, then L2 norm', async () => {
    const { states } = await hiddenStates(TEXTS);
    const cls = await (await load({ pooling: 'cls' })).embedPassages(TEXTS);
    cls.vectors.forEach((v, i) => expect(maxDiff(v, l2(states[i]![0]!))).toBeLessThan(1e-5));
    const mean = await (await load({ pooling: 'mean' })).embedPassages(TEXTS);
    expect(maxDiff(cls.vectors[0]!, mean.vectors[0]!)).toBeGreaterThan(1e-2);
    for (const v of cls.vectors) expect(Math.hypot(...v)).toBeCloseTo(1, 5);
  });
});

describe('prefixes, batches, layout', () => {
  it('applies the query and passage prefixes of an e5-style model, and none when the card has none', async () => {
    const e5 = await load({ queryPrefix: 'query: ', passagePrefix: 'passage: ' });
    const text = TEXTS[1]!;
    const q = await e5.embedQuery(text);
    const p = (await e5.embedPassages([text])).vectors[0]!;
    expect(maxDiff(q, p)).toBeGreaterThan(1e-3);
    const { states, mask } = await hiddenStates([`query: ${text}`, `passage: ${text}`]);
    expect(maxDiff(q, l2(handMean(states[0]!, mask[0]!)))).toBeLessThan(1e-5);
    expect(maxDiff(p, l2(handMean(states[1]!, mask[1]!)))).toBeLessThan(1e-5);
    const plain = await load();
    expect(e5.countTokens(text, 'query')).toBeGreaterThan(plain.countTokens(text, 'query') + 1); // the prefix is counted
    expect(maxDiff(await plain.embedQuery(text), (await plain.embedPassages([text])).vectors[0]!)).toBe(0);
  });

  it('gives 32 texts in one batch the vectors they get one by one, in one contiguous buffer', async () => {
    const embedder = await load();
    const texts = Array.from({ length: 32 }, (_, i) => `${TEXTS[i % 3]} number ${i}${' and more'.repeat(i % 7)}`);
    const batched = await embedder.embedPassages(texts, { batchSize: 32 });
    const single = await embedder.embedPassages(texts, { batchSize: 1 });
    expect(batched.data).toHaveLength(32 * 32);
    expect(maxDiff(batched.data, single.data)).toBeLessThan(1e-5);
    expect(batched.vectors[5]!.buffer).toBe(batched.data.buffer);
    expect(batched.vectors[5]!.byteOffset).toBe(5 * 32 * 4);
  });

  it('batches texts of like length together and gives the vectors back in input order', async () => {
    const embedder = await load();
    // Lengths out of order, so batches of 3 by length hold other texts than batches of 3 by position.
    const texts = Array.from({ length: 10 }, (_, i) => `${TEXTS[i % 3]}${' again'.repeat((i * 7) % 10)}`);
    const sorted = await embedder.embedPassages(texts, { batchSize: 3 });
    for (const [i, text] of texts.entries()) {
      const alone = (await embedder.embedPassages([text], { batchSize: 1 })).vectors[0]!;
      expect(maxDiff(sorted.vectors[i]!, alone)).toBeLessThan(1e-5);
    }
    // Ten texts, so at least one batch mixes lengths: the order given back is the input's, not the batches'.
    expect(maxDiff(sorted.vectors[0]!, sorted.vectors[1]!)).toBeGreaterThan(1e-3);
  });

  it('reports per-file and total progress, then ready, with no network', async () => {
    const events: LoadProgress[] = [];
    const fetchedBefore = tiny.fetched.length;
    await load({}, (e) => events.push(e));
    const files = new Set(events.flatMap((e) => (e.type === 'file' ? [e.file] : [])));
    expect([...files].sort()).toEqual(['config.json', 'onnx/model.onnx', 'tokenizer.json', 'tokenizer_config.json']);
    const totals = events.filter((e) => e.type === 'total');
    expect(totals.at(-1)).toMatchObject({ loaded: totals.at(-1)!.total });
    expect(totals.at(-1)!.total).toBeGreaterThan(277_000); // model.onnx alone is 277,036 B
    expect(events.at(-1)).toEqual({ type: 'ready' });
    expect(tiny.fetched.length).toBe(fetchedBefore);
  });
});

describe('refusals', () => {
  it('names the missing file of a local folder', async () => {
    await tiny.variant('no-tokenizer', { omit: ['tokenizer.json'] });
    await tiny.variant('no-weights', { omit: ['onnx/model.onnx'] });
    const source = { kind: 'folder', root: tiny.dir } as const;
    const a = await refusal(loadEmbedder(localModel({ folder: 'no-tokenizer', dims: 32, pooling: 'mean' }), { source }));
    expect(a.code).toBe('model-files-missing');
    expect(a.message).toMatch(/no-tokenizer has no tokenizer\.json/);
    const b = await refusal(loadEmbedder(localModel({ folder: 'no-weights', dims: 32, pooling: 'mean' }), { source }));
    expect(b.code).toBe('model-files-missing');
    expect(b.message).toMatch(/has no onnx\/model\.onnx/);
  });

  it('refuses an architecture that is not an encoder, saying which', async () => {
    await tiny.variant('decoder', { config: { model_type: 'gpt2', architectures: ['GPT2LMHeadModel'] } });
    const err = await refusal(loadEmbedder(localModel({ folder: 'decoder', dims: 32, pooling: 'mean' }), { source: { kind: 'folder', root: tiny.dir } }));
    expect(err.code).toBe('model-unsupported');
    expect(err.message).toMatch(/model_type "gpt2"/);
  });

  it('refuses a model whose vectors have another length than its catalogue entry, at load', async () => {
    const err = await refusal(load({ dims: 384 }));
    expect(err.code).toBe('model-output-invalid');
    expect(err.message).toMatch(/32-dimensional vectors.*says 384/);
  });

  it('refuses a text longer than the model input instead of truncating it', async () => {
    const embedder = await load({ maxTokens: 16 });
    const long = 'the rent is due on the first day of every month and the deposit is returned within thirty days';
    expect(embedder.countTokens(long, 'passage')).toBeGreaterThan(16);
    const err = await refusal(embedder.embedPassages(['short text', long]));
    expect(err.code).toBe('chunk-too-long');
  });

  it('asks a mirror for <base>/<repo>/resolve/<revision>/<file> and the hub at huggingface.co, names what is missing', async () => {
    tiny.fetched.length = 0;
    const err = await refusal(loadEmbedder(BGE_SMALL_EN, { source: { kind: 'mirror', baseUrl: 'http://mirror.invalid/models' } }));
    expect(tiny.fetched[0]).toBe('http://mirror.invalid/models/Xenova/bge-small-en-v1.5/resolve/main/config.json');
    expect(err.code).toBe('model-files-missing');
    expect(err.message).toMatch(/has no config\.json/);
    tiny.fetched.length = 0;
    await refusal(loadEmbedder(BGE_SMALL_EN, { source: { kind: 'hub' } }));
    expect(tiny.fetched[0]).toBe('https://huggingface.co/Xenova/bge-small-en-v1.5/resolve/main/config.json');
    tiny.fetched.length = 0;
  });
});
