// The generated tiny decoder, loaded through the real transformers.js code (local folder, no remote,
// onnxruntime-node): its logits against a plain-JS Llama forward pass, and generate() with the KV cache
// against greedy decoding that recomputes the whole sequence at every step.
import { createHash } from 'node:crypto';
import { AutoModelForCausalLM, AutoTokenizer, ModelRegistry, Tensor, type PreTrainedModel, type PreTrainedTokenizer } from '@huggingface/transformers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configureSource } from '../../src/models/model-source.ts';
import { cacheNames, llamaWeights } from '../../tools/models/llama-graph.ts';
import { generateTinyDecoder, TINY_DECODER_SEED, tinyDecoderSpec } from '../../tools/models/tiny-decoder.ts';
import { buildDecoderVocabulary } from '../../tools/models/vocabulary.ts';
import { llamaReferenceLogits } from '../support/llama-reference.ts';
import { createTinyModelDir, type TinyModelDir } from '../support/tiny-model-dir.ts';

let tiny: TinyModelDir;
let tokenizer: PreTrainedTokenizer;
let model: PreTrainedModel;
beforeAll(async () => {
  tiny = await createTinyModelDir();
  configureSource({ kind: 'folder', root: tiny.dir });
  tokenizer = await AutoTokenizer.from_pretrained('tiny-decoder');
  model = await AutoModelForCausalLM.from_pretrained('tiny-decoder', { dtype: 'fp32' });
});
afterAll(async () => {
  expect(tiny.fetched).toEqual([]);
  await model.dispose();
  await tiny.remove();
});

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const CHAT = [{ role: 'user', content: 'When is the rent due?' }];

function promptIds(): number[] {
  return tokenizer.apply_chat_template(CHAT, { add_generation_prompt: true, return_tensor: false, return_dict: false }) as number[];
}

/** Greedy decoding without any cache: the whole sequence is run again for every new token. */
async function greedyWithoutCache(ids: number[], steps: number): Promise<number[]> {
  const sequence = [...ids];
  for (let step = 0; step < steps; step++) {
    const n = sequence.length;
    const { logits } = (await model({
      input_ids: new Tensor('int64', BigInt64Array.from(sequence.map(BigInt)), [1, n]),
      attention_mask: new Tensor('int64', new BigInt64Array(n).fill(1n), [1, n]),
    })) as { logits: Tensor };
    const last = Array.from((logits.data as Float32Array).subarray((n - 1) * logits.dims[2]!));
    sequence.push(last.indexOf(Math.max(...last)));
  }
  return sequence.slice(ids.length);
}

describe('tiny-decoder files', () => {
  it('are the same bytes on every run (pinned), a Llama causal LM with a KV cache and a chat template', () => {
    const first = generateTinyDecoder();
    expect([...first.keys()].sort()).toEqual(['config.json', 'generation_config.json', 'onnx/model.onnx', 'tokenizer.json', 'tokenizer_config.json']);
    for (const [path, bytes] of generateTinyDecoder()) expect(sha256(bytes), path).toBe(sha256(first.get(path)!));
    const digest = createHash('sha256');
    for (const [path, bytes] of first) digest.update(path).update(bytes);
    expect(digest.digest('hex')).toBe('59a099f06a44cda4db3c0739530acda0eb66a7458550ed0d704955636205d398');
    const json = (path: string) => JSON.parse(new TextDecoder().decode(first.get(path)));
    expect(json('config.json')).toMatchObject({
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_size: 32, num_hidden_layers: 2, num_attention_heads: 4,
      num_key_value_heads: 2, vocab_size: 1002, use_cache: true, eos_token_id: 1001,
    });
    expect(json('tokenizer_config.json')).toMatchObject({ eos_token: '<|im_end|>' });
    expect(buildDecoderVocabulary().slice(1000)).toEqual(['<|im_start|>', '<|im_end|>']);
  });

  it('holds exactly the files transformers.js asks for to generate text on the browser WASM device', async () => {
    const files = await ModelRegistry.get_pipeline_files('text-generation', 'tiny-decoder', { device: 'wasm' });
    expect([...files].sort()).toEqual(['config.json', 'generation_config.json', 'onnx/model.onnx', 'tokenizer.json', 'tokenizer_config.json']);
  });

  it('declares the cache inputs and outputs transformers.js looks for', () => {
    const session = (model as unknown as { sessions: Record<string, { inputNames: string[]; outputNames: string[] }> }).sessions.model!;
    expect(session.inputNames).toEqual(['input_ids', 'attention_mask', 'position_ids', ...cacheNames(2, 'past_key_values')]);
    expect(session.outputNames).toEqual(['logits', ...cacheNames(2, 'present')]);
  });
});

describe('tiny-decoder through transformers.js', () => {
  it('renders the ChatML template and tokenizes the markers as single tokens', () => {
    const text = tokenizer.apply_chat_template(CHAT, { tokenize: false, add_generation_prompt: true });
    expect(text).toBe('<|im_start|>user\nWhen is the rent due?<|im_end|>\n<|im_start|>assistant\n');
    const ids = promptIds();
    expect(ids[0]).toBe(1000);
    expect(ids.filter((id) => id === 1001)).toHaveLength(1);
    expect(tokenizer.decode(ids, { skip_special_tokens: true })).toBe('user when is the rent due ? assistant');
  });

  it('gives the logits of a plain-JS Llama forward pass at every position (< 1e-4)', async () => {
    const ids = promptIds();
    const { logits } = (await model({
      input_ids: new Tensor('int64', BigInt64Array.from(ids.map(BigInt)), [1, ids.length]),
      attention_mask: new Tensor('int64', new BigInt64Array(ids.length).fill(1n), [1, ids.length]),
    })) as { logits: Tensor };
    const spec = tinyDecoderSpec();
    expect(logits.dims).toEqual([1, ids.length, spec.vocabSize]);
    const expected = llamaReferenceLogits(spec, llamaWeights(spec, TINY_DECODER_SEED), ids);
    const data = logits.data as Float32Array;
    let diff = 0;
    expected.forEach((row, pos) => row.forEach((x, v) => { diff = Math.max(diff, Math.abs(x - data[pos * spec.vocabSize + v]!)); }));
    expect(diff).toBeLessThan(1e-4);
    // The logits spread over several units, so the greedy choice is clear of rounding.
    const last = expected.at(-1)!;
    const sorted = [...last].sort((a, b) => b - a);
    expect(sorted[0]! - sorted.at(-1)!).toBeGreaterThan(5);
  });

  it('generates with the KV cache exactly the tokens greedy decoding without a cache gives', async () => {
    const ids = promptIds();
    const steps = 24;
    const output = (await model.generate({
      input_ids: new Tensor('int64', BigInt64Array.from(ids.map(BigInt)), [1, ids.length]),
      attention_mask: new Tensor('int64', new BigInt64Array(ids.length).fill(1n), [1, ids.length]),
      max_new_tokens: steps,
      min_new_tokens: steps,
      do_sample: false,
    })) as Tensor;
    const generated = ((output.tolist() as bigint[][])[0]!).slice(ids.length).map(Number);
    expect(generated).toHaveLength(steps);
    expect(generated).toEqual(await greedyWithoutCache(ids, steps));
    expect(new Set(generated).size).toBeGreaterThan(3); // not one token repeated
  });

  it('scores a left-padded prompt in a batch as it does alone', async () => {
    const long = promptIds();
    const short = tokenizer.apply_chat_template([{ role: 'user', content: 'hi' }], { add_generation_prompt: true, return_tensor: false, return_dict: false }) as number[];
    const pad = long.length - short.length;
    const batch = await model({
      input_ids: new Tensor('int64', BigInt64Array.from([...long, ...new Array<number>(pad).fill(0), ...short].map(BigInt)), [2, long.length]),
      attention_mask: new Tensor('int64', BigInt64Array.from([...long.map(() => 1n), ...new Array<bigint>(pad).fill(0n), ...short.map(() => 1n)]), [2, long.length]),
    }) as { logits: Tensor };
    const alone = await model({
      input_ids: new Tensor('int64', BigInt64Array.from(short.map(BigInt)), [1, short.length]),
      attention_mask: new Tensor('int64', new BigInt64Array(short.length).fill(1n), [1, short.length]),
    }) as { logits: Tensor };
    const vocab = batch.logits.dims[2]!;
    const batchLast = (batch.logits.data as Float32Array).subarray((2 * long.length - 1) * vocab, 2 * long.length * vocab);
    const aloneLast = (alone.logits.data as Float32Array).subarray((short.length - 1) * vocab);
    let diff = 0;
    for (let i = 0; i < vocab; i++) diff = Math.max(diff, Math.abs(batchLast[i]! - aloneLast[i]!));
    expect(diff).toBeLessThan(1e-4);
  });
});
