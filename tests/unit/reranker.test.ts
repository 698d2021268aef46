// The reranker on the generated tiny cross-encoder, through the real transformers.js loading and
// inference code (local folder, remote off, every fetch refused): scores against the logits
// transformers.js computes itself, input order kept through length-ordered batches, the passage-side
// truncation, and the refusals.
import { AutoModelForSequenceClassification, AutoTokenizer, Tensor } from '@huggingface/transformers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocQaError } from '../../src/core/errors.ts';
import { configureSource, type LoadProgress } from '../../src/models/model-source.ts';
import { downloadSize, localReranker, MS_MARCO_MINILM_L6, rerankerFromFolder } from '../../src/models/catalogue.ts';
import { checkScores, loadReranker, truncatePair } from '../../src/models/cross-encoder/reranker.ts';
import { createTinyModelDir, type TinyModelDir } from '../support/tiny-model-dir.ts';
import { maxDiff, refusal } from '../support/model-assertions.ts';

let tiny: TinyModelDir;
beforeAll(async () => {
  tiny = await createTinyModelDir();
});
afterAll(async () => {
  expect(tiny.fetched).toEqual([]); // only the hub test fetches (and clears what it fetched)
  await tiny.remove();
});

const QUERY = 'when is the rent due';
const PASSAGES = [
  'the rent is due on the first day of every month',
  'cells express the protein in the liver',
  'rent',
  'the security deposit is returned within thirty days after the lease ends and the keys are handed back',
  'due',
];
const source = () => ({ kind: 'folder', root: tiny.dir }) as const;
const load = (maxTokens?: number, onProgress?: (e: LoadProgress) => void) =>
  loadReranker(localReranker({ folder: 'tiny-cross-encoder', ...(maxTokens ? { maxTokens } : {}) }), { source: source(), ...(onProgress ? { onProgress } : {}) });

/** Logits straight from transformers.js for (query, passage) pairs, padded in one batch. */
async function directLogits(query: string, passages: string[]): Promise<number[]> {
  configureSource(source());
  const tokenizer = await AutoTokenizer.from_pretrained('tiny-cross-encoder');
  const model = await AutoModelForSequenceClassification.from_pretrained('tiny-cross-encoder', { dtype: 'fp32' });
  const inputs = tokenizer(passages.map(() => query), { text_pair: passages, padding: true, truncation: true });
  const { logits } = (await model(inputs)) as { logits: Tensor };
  expect(logits.dims).toEqual([passages.length, 1]);
  return Array.from(logits.data as Float32Array);
}


describe('scores', () => {
  it('are the logits transformers.js computes for each (query, passage) pair, in input order, with no sigmoid', async () => {
    const expected = await directLogits(QUERY, PASSAGES);
    const reranker = await load();
    const scores = await reranker.score(QUERY, PASSAGES);
    expect(maxDiff(scores, expected)).toBeLessThan(1e-5);
    expect(new Set(expected.map((x) => x.toFixed(4))).size).toBe(PASSAGES.length); // the pairs really differ
    expect(expected.some((x) => x < 0 || x > 1)).toBe(true); // raw logits, not probabilities
    // The query matters: the same passages under another question score differently.
    expect(maxDiff(await reranker.score('cells and proteins', PASSAGES), scores)).toBeGreaterThan(1e-3);
  });

  it('keeps input order through batches formed in order of length (any batch size gives the same scores)', async () => {
    const reranker = await load();
    const one = await reranker.score(QUERY, PASSAGES, { batchSize: 1 });
    for (const batchSize of [2, 3, 16]) expect(maxDiff(await reranker.score(QUERY, PASSAGES, { batchSize }), one)).toBeLessThan(1e-5);
    const reversed = await reranker.score(QUERY, [...PASSAGES].reverse(), { batchSize: 2 });
    expect(maxDiff([...reversed].reverse(), one)).toBeLessThan(1e-5);
    expect(await reranker.score(QUERY, [])).toEqual(new Float32Array(0));
  });

  it('reports per-file and total progress, then ready, with no network', async () => {
    const events: LoadProgress[] = [];
    const fetchedBefore = tiny.fetched.length;
    await load(undefined, (e) => events.push(e));
    const files = new Set(events.flatMap((e) => (e.type === 'file' ? [e.file] : [])));
    expect([...files].sort()).toEqual(['config.json', 'onnx/model.onnx', 'tokenizer.json', 'tokenizer_config.json']);
    const totals = events.filter((e) => e.type === 'total');
    expect(totals.at(-1)!.total).toBeGreaterThan(281_000); // model.onnx alone is 281,987 B
    expect(events.at(-1)).toEqual({ type: 'ready' });
    expect(tiny.fetched.length).toBe(fetchedBefore);
  });
});

describe('inputs longer than the model takes', () => {
  const LONG = 'the tenant pays the rent on the first day of every month and the landlord returns the deposit within thirty days';

  it('keep the whole question and the first passage tokens, and the closing [SEP], like only_second truncation', async () => {
    configureSource(source());
    const tokenizer = await AutoTokenizer.from_pretrained('tiny-cross-encoder');
    const q = tokenizer.encode(QUERY, { add_special_tokens: false });
    const p = tokenizer.encode(LONG, { add_special_tokens: false });
    const MAX = 20;
    expect(q.length + p.length + 3).toBeGreaterThan(MAX);
    const keep = MAX - 3 - q.length;
    const CLS = 2;
    const SEP = 3;
    const ids = [CLS, ...q, SEP, ...p.slice(0, keep), SEP];
    const types = [...Array(q.length + 2).fill(0), ...Array(keep + 1).fill(1)];
    const t = (xs: number[]) => new Tensor('int64', BigInt64Array.from(xs.map(BigInt)), [1, xs.length]);
    const model = await AutoModelForSequenceClassification.from_pretrained('tiny-cross-encoder', { dtype: 'fp32' });
    const { logits } = (await model({ input_ids: t(ids), attention_mask: t(ids.map(() => 1)), token_type_ids: t(types) })) as { logits: Tensor };

    const reranker = await load(MAX);
    const [cut, whole] = [await reranker.score(QUERY, [LONG, 'rent']), await (await load()).score(QUERY, [LONG, 'rent'])];
    expect(Math.abs(cut[0]! - (logits.data[0] as number))).toBeLessThan(1e-5);
    expect(Math.abs(cut[0]! - whole[0]!)).toBeGreaterThan(1e-4); // the cut changed what the model saw
    expect(Math.abs(cut[1]! - whole[1]!)).toBeLessThan(1e-5); // a short pair in the same batch is untouched
    // Words past the cut change nothing.
    expect(Math.abs((await reranker.score(QUERY, [`${LONG} and more words about cells`]))[0]! - cut[0]!)).toBeLessThan(1e-5);
  });

  it('cut a question that alone fills more than half the input to half, never the passage to nothing', () => {
    const encode = (q: number[], p: number[]) => {
      const ids = [2, ...q, 3, ...p, 3];
      return { input_ids: ids, attention_mask: ids.map(() => 1), token_type_ids: ids.map((_, i) => (i > q.length + 1 ? 1 : 0)) };
    };
    const q = Array.from({ length: 30 }, (_, i) => 100 + i);
    const p = Array.from({ length: 30 }, (_, i) => 200 + i);
    const e = encode(q, p);
    truncatePair(e, q, p, 23); // room 20: 10 question tokens, 10 passage tokens
    expect(e.input_ids).toEqual([2, ...q.slice(0, 10), 3, ...p.slice(0, 10), 3]);
    expect(e.token_type_ids).toEqual([...Array(12).fill(0), ...Array(11).fill(1)]);
    const short = encode(q.slice(0, 4), p);
    truncatePair(short, q.slice(0, 4), p, 23);
    expect(short.input_ids).toEqual([2, ...q.slice(0, 4), 3, ...p.slice(0, 16), 3]);
    const fits = encode(q.slice(0, 4), p.slice(0, 4));
    truncatePair(fits, q.slice(0, 4), p.slice(0, 4), 23);
    expect(fits.input_ids).toHaveLength(11);
  });
});

describe('refusals', () => {
  it('names the missing file of a local folder', async () => {
    await tiny.variant('ce-no-tokenizer', { base: 'tiny-cross-encoder', omit: ['tokenizer.json'] });
    await tiny.variant('ce-no-weights', { base: 'tiny-cross-encoder', omit: ['onnx/model.onnx'] });
    const a = await refusal(loadReranker(localReranker({ folder: 'ce-no-tokenizer' }), { source: source() }));
    expect(a.code).toBe('model-files-missing');
    expect(a.message).toMatch(/^reranker: .*ce-no-tokenizer has no tokenizer\.json/);
    const b = await refusal(loadReranker(localReranker({ folder: 'ce-no-weights' }), { source: source() }));
    expect(b.code).toBe('model-files-missing');
    expect(b.message).toMatch(/has no onnx\/model\.onnx/);
  });

  it('refuses an encoder without a classification head, a head with two labels, and a decoder, saying which', async () => {
    const encoder = await refusal(loadReranker(localReranker({ folder: 'tiny-encoder' }), { source: source() }));
    expect(encoder.code).toBe('model-unsupported');
    expect(encoder.message).toMatch(/describes BertModel, not a cross-encoder/);
    await tiny.variant('ce-two-labels', { base: 'tiny-cross-encoder', config: { id2label: { 0: 'no', 1: 'yes' }, label2id: { no: 0, yes: 1 } } });
    const two = await refusal(loadReranker(localReranker({ folder: 'ce-two-labels' }), { source: source() }));
    expect(two.code).toBe('model-unsupported');
    expect(two.message).toMatch(/has 2 labels/);
    await tiny.variant('ce-decoder', { base: 'tiny-cross-encoder', config: { model_type: 'gpt2', architectures: ['GPT2ForSequenceClassification'] } });
    const decoder = await refusal(loadReranker(localReranker({ folder: 'ce-decoder' }), { source: source() }));
    expect(decoder.code).toBe('model-unsupported');
    expect(decoder.message).toMatch(/model_type "gpt2"/);
  });

  it('refuses NaN, infinite and missing scores', () => {
    expect(() => checkScores(Float32Array.of(1, 2), 2, 'm')).not.toThrow();
    for (const bad of [Float32Array.of(1, Number.NaN), Float32Array.of(Number.POSITIVE_INFINITY, 0), Float32Array.of(1)]) {
      const err = (() => {
        try {
          checkScores(bad, 2, 'm');
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(DocQaError);
      expect((err as DocQaError).code).toBe('model-output-invalid');
    }
  });

  it('asks the hub for Xenova/ms-marco-MiniLM-L-6-v2 files and names what is missing', async () => {
    tiny.fetched.length = 0;
    const err = await refusal(loadReranker(MS_MARCO_MINILM_L6, { source: { kind: 'hub' } }));
    expect(tiny.fetched[0]).toBe('https://huggingface.co/Xenova/ms-marco-MiniLM-L-6-v2/resolve/main/config.json');
    expect(err.code).toBe('model-files-missing');
    expect(err.message).toMatch(/^reranker: Xenova\/ms-marco-MiniLM-L-6-v2 \(hub\) has no config\.json/);
    tiny.fetched.length = 0;
  });
});

describe('catalogue', () => {
  it('describes ms-marco-MiniLM-L-6-v2 (q8, 512 tokens, the card\'s figures) and folders brought by the person', () => {
    expect(MS_MARCO_MINILM_L6).toMatchObject({ id: 'ms-marco-MiniLM-L-6-v2', dtype: 'q8', maxTokens: 512, languages: ['en'] });
    expect(MS_MARCO_MINILM_L6.files.map((f) => f.path)).toContain('onnx/model_quantized.onnx');
    expect(MS_MARCO_MINILM_L6.published.map((f) => [f.metric, f.value])).toEqual([['nDCG@10', 74.3], ['MRR@10', 39.01]]);
    expect(downloadSize(MS_MARCO_MINILM_L6)).toMatchObject({ approximate: true });
    expect(downloadSize(MS_MARCO_MINILM_L6).bytes).toBeGreaterThan(20_000_000);
    expect(rerankerFromFolder({ folder: 'tiny-cross-encoder', config: { max_position_embeddings: 128 }, hasFp32: true })).toMatchObject({
      id: 'local:tiny-cross-encoder', maxTokens: 128, dtype: 'fp32',
    });
    expect(rerankerFromFolder({ folder: 'ms-marco-MiniLM-L-6-v2', config: {}, hasFp32: false })).toMatchObject({ maxTokens: 512, dtype: 'q8', languages: ['en'] });
  });
});
