// The generated tiny models, loaded through the real transformers.js code (local folder, no remote,
// onnxruntime-node): what the app's embedder and reranker will see, with nothing downloaded.
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AutoModelForSequenceClassification,
  AutoTokenizer,
  env,
  ModelRegistry,
  pipeline,
  type FeatureExtractionPipeline,
  type Tensor,
} from '@huggingface/transformers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateTinyModels, TINY_SPEC, writeTinyModels } from '../../tools/models/tiny-models.ts';
import { buildVocabulary } from '../../tools/models/vocabulary.ts';

const HIDDEN = TINY_SPEC.hidden;
let dir: string;
const fetched: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tiny-models-'));
  await writeTinyModels(dir);
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = dir;
  env.useFSCache = false; // nothing read from or written to node_modules/@huggingface/transformers/.cache
  env.useBrowserCache = false;
  // Local files are read with fs; any fetch at all would mean a network attempt.
  env.fetch = async (input: string | URL) => {
    fetched.push(String(input));
    throw new Error(`tiny-models test: network access to ${String(input)}`);
  };
});
afterAll(async () => {
  expect(fetched).toEqual([]);
  await rm(dir, { recursive: true, force: true });
});

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const loadEncoder = () => pipeline('feature-extraction', 'tiny-encoder', { dtype: 'fp32' }) as Promise<FeatureExtractionPipeline>;
const rows = (t: Tensor): number[][] => t.tolist() as number[][];

describe('tiny model generation', () => {
  it('writes the same bytes on every run', () => {
    const first = generateTinyModels();
    const second = generateTinyModels();
    expect([...first.keys()].sort()).toEqual([
      'tiny-cross-encoder/config.json', 'tiny-cross-encoder/onnx/model.onnx', 'tiny-cross-encoder/tokenizer.json',
      'tiny-cross-encoder/tokenizer_config.json',
      'tiny-decoder/config.json', 'tiny-decoder/generation_config.json', 'tiny-decoder/onnx/model.onnx',
      'tiny-decoder/tokenizer.json', 'tiny-decoder/tokenizer_config.json',
      'tiny-encoder/config.json', 'tiny-encoder/onnx/model.onnx', 'tiny-encoder/tokenizer.json', 'tiny-encoder/tokenizer_config.json',
      'tiny-gguf/tiny-decoder.gguf',
    ]);
    for (const [path, bytes] of first) expect(sha256(bytes), path).toBe(sha256(second.get(path)!));
    // Pinned across machines and Node versions: if a deliberate change moves this, update it (and the
    // pinned vector below) in the same commit. The decoders' files have their own pins (tiny-decoder.test.ts, gguf.test.ts).
    const digest = createHash('sha256');
    for (const [path, bytes] of first) if (!path.startsWith('tiny-decoder/') && !path.startsWith('tiny-gguf/')) digest.update(path).update(bytes);
    expect(digest.digest('hex')).toBe('978c2bfaeb1fc89d0b4956e1fe63fe2c025c931b26ba2adf28dbd86bca576deb');
  });

  it('configures a BERT of the documented shape with a 1,000-piece WordPiece vocabulary', () => {
    const files = generateTinyModels();
    const json = (path: string) => JSON.parse(new TextDecoder().decode(files.get(path)));
    const config = json('tiny-encoder/config.json');
    expect(config).toMatchObject({ model_type: 'bert', architectures: ['BertModel'], hidden_size: 32, num_hidden_layers: 2, vocab_size: 1000 });
    expect(Object.keys(json('tiny-encoder/tokenizer.json').model.vocab)).toHaveLength(config.vocab_size);
    expect(json('tiny-cross-encoder/config.json')).toMatchObject({
      architectures: ['BertForSequenceClassification'], id2label: { 0: 'LABEL_0' }, label2id: { LABEL_0: 0 },
    });
  });
});

describe('tiny-encoder through transformers.js', () => {
  it('holds exactly the files transformers.js asks for on the browser WASM device, with no dtype option', async () => {
    // The WASM device defaults to q8 (onnx/model_quantized.onnx); config.json's transformers.js_config
    // makes fp32 the default, so the folder works in the browser as written.
    for (const name of ['tiny-encoder', 'tiny-cross-encoder']) {
      const task = name === 'tiny-encoder' ? 'feature-extraction' : 'text-classification';
      const files = await ModelRegistry.get_pipeline_files(task, name, { device: 'wasm' });
      expect([...files].sort(), name).toEqual(['config.json', 'onnx/model.onnx', 'tokenizer.json', 'tokenizer_config.json']);
    }
  });

  it('gives [1, tokens, 32] hidden states, identical on a second load', async () => {
    const text = 'The security deposit is returned within 30 days.';
    const first = await (await loadEncoder())(text);
    const second = await (await loadEncoder())(text);
    const tokens = (await AutoTokenizer.from_pretrained('tiny-encoder')).encode(text).length;
    expect(first.dims).toEqual([1, tokens, HIDDEN]);
    expect(Array.from(second.data as Float32Array)).toEqual(Array.from(first.data as Float32Array));
  });

  it('mean-pools to unit vectors that differ between texts (pinned values)', async () => {
    const embed = await loadEncoder();
    const vectors = rows(await embed(['hello world', 'the rent is due monthly', 'cells express protein'], { pooling: 'mean', normalize: true }));
    expect(vectors.map((v) => v.length)).toEqual([HIDDEN, HIDDEN, HIDDEN]);
    for (const v of vectors) expect(Math.hypot(...v)).toBeCloseTo(1, 5);
    const cosine = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * (b[i] ?? 0), 0);
    expect(cosine(vectors[0]!, vectors[1]!)).toBeLessThan(0.95);
    expect(cosine(vectors[1]!, vectors[2]!)).toBeLessThan(0.95);
    // Pinned: the same generated weights give the same vector on every machine (ORT CPU, float32).
    const pinned = [-0.051831, -0.118953, 0.004939, 0.088513];
    pinned.forEach((x, i) => expect(Math.abs(vectors[0]![i]! - x)).toBeLessThan(1e-4));
  });

  it('gives a text the same vector alone and padded in a longer batch', async () => {
    const embed = await loadEncoder();
    const short = 'what is the rent';
    const alone = rows(await embed(short, { pooling: 'mean', normalize: true }))[0]!;
    const batch = rows(await embed([short, 'a much longer passage about the security deposit, the rent and the landlord'], { pooling: 'mean', normalize: true }));
    alone.forEach((x, i) => expect(Math.abs(x - batch[0]![i]!)).toBeLessThan(1e-5));
  });

  it('lets every token reach every position: changing the last word changes the [CLS] state', async () => {
    const embed = await loadEncoder();
    const cls = async (text: string) => Array.from((await embed(text)).data as Float32Array).slice(0, HIDDEN);
    const a = await cls('the lease ends in june');
    const b = await cls('the lease ends in july');
    expect(Math.max(...a.map((x, i) => Math.abs(x - b[i]!)))).toBeGreaterThan(1e-3);
  });

  it('tokenizes known words whole and spells unknown ones with ## pieces', async () => {
    const tokenizer = await AutoTokenizer.from_pretrained('tiny-encoder');
    expect(tokenizer.tokenize('Documents zyxwv')).toEqual(['documents', 'z', '##y', '##x', '##w', '##v']);
    expect(tokenizer.tokenize('Café, 2nd!')).toEqual(['c', '##a', '##f', '##e', ',', '2', '##nd', '!']);
    expect(tokenizer.tokenize('東京')).toEqual(['[UNK]', '[UNK]']);
    const id = (token: string) => buildVocabulary().indexOf(token);
    expect(tokenizer.encode('hello', { text_pair: 'world' })).toEqual([id('[CLS]'), id('hello'), id('[SEP]'), id('world'), id('[SEP]')]);
  });
});

describe('tiny-cross-encoder through transformers.js', () => {
  const score = async (pairs: [string, string][]) => {
    const tokenizer = await AutoTokenizer.from_pretrained('tiny-cross-encoder');
    const model = await AutoModelForSequenceClassification.from_pretrained('tiny-cross-encoder', { dtype: 'fp32' });
    const inputs = tokenizer(pairs.map((p) => p[0]), { text_pair: pairs.map((p) => p[1]), padding: true, truncation: true });
    const { logits } = (await model(inputs)) as { logits: Tensor };
    return logits;
  };

  it('gives one logit per (query, passage) pair, identical on a second load and unchanged by padding', async () => {
    const pairs: [string, string][] = [
      ['when is the rent due', 'the rent is due on the first day of every month'],
      ['when is the rent due', 'cells express the protein in the liver'],
    ];
    const first = await score(pairs);
    expect(first.dims).toEqual([2, 1]);
    expect(Array.from((await score(pairs)).data as Float32Array)).toEqual(Array.from(first.data as Float32Array));
    expect(first.data[0]).not.toBeCloseTo(first.data[1] as number, 4);
    // The shorter pair is padded in the batch; alone it must score the same.
    const alone = await score([pairs[1]!]);
    expect(Math.abs((alone.data[0] as number) - (first.data[1] as number))).toBeLessThan(1e-5);
  });
});
