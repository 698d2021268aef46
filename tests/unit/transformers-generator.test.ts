// The WASM fallback generator on the generated tiny decoder, through the real transformers.js loading and
// generation code (local folder, remote off, every fetch refused): streamed pieces against the
// non-streamed greedy output, stopping (abort, break, maxTokens, the context budget), token counts, the
// JSON instruction, and the refusals.
import { AutoModelForCausalLM, AutoTokenizer, Tensor } from '@huggingface/transformers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocQaError } from '../../src/core/errors.ts';
import { generateText, type ChatMessage } from '../../src/models/generator/generator.ts';
import {
  explainGeneratorError,
  loadTransformersGenerator,
  type TransformersGenerator,
} from '../../src/models/generator/transformers-generator.ts';
import { JSON_INSTRUCTION, withJsonInstruction } from '../../src/models/generator/generation.ts';
import { downloadSize } from '../../src/models/catalogue.ts';
import { GENERATOR_CATALOGUE, findGenerator, localGenerator, QWEN2_5_0_5B_INSTRUCT } from '../../src/models/generator-catalogue.ts';
import { configureSource, type LoadProgress } from '../../src/models/model-source.ts';
import { createTinyModelDir, type TinyModelDir } from '../support/tiny-model-dir.ts';

let tiny: TinyModelDir;
let generator: TransformersGenerator;
const CONTEXT = 512;
const source = () => ({ kind: 'folder', root: tiny.dir }) as const;
const load = (folder = 'tiny-decoder', contextTokens = CONTEXT, onProgress?: (e: LoadProgress) => void) =>
  loadTransformersGenerator(localGenerator({ folder, contextTokens }), { source: source(), ...(onProgress ? { onProgress } : {}) });

beforeAll(async () => {
  tiny = await createTinyModelDir();
  generator = await load();
});
afterAll(async () => {
  expect(tiny.fetched).toEqual([]);
  await generator.dispose();
  await tiny.remove();
});

const MESSAGES: ChatMessage[] = [
  { role: 'system', content: 'Answer from the passages only.' },
  { role: 'user', content: 'When is the rent due? [1] The rent is due on the first day of every month.' },
];

/** Greedy output straight from transformers.js, without the generator or a streamer: text and token count. */
async function directGreedy(messages: ChatMessage[], maxNewTokens: number): Promise<{ text: string; tokens: number[] }> {
  configureSource(source());
  const tokenizer = await AutoTokenizer.from_pretrained('tiny-decoder');
  const model = await AutoModelForCausalLM.from_pretrained('tiny-decoder', { dtype: 'fp32' });
  const inputs = tokenizer.apply_chat_template(messages, { add_generation_prompt: true, return_dict: true }) as { input_ids: Tensor; attention_mask: Tensor };
  const output = (await model.generate({ ...inputs, max_new_tokens: maxNewTokens, do_sample: false })) as Tensor;
  const tokens = (output.tolist() as bigint[][])[0]!.slice(inputs.input_ids.dims[1]).map(Number);
  await model.dispose();
  return { text: tokenizer.decode(tokens, { skip_special_tokens: true }), tokens };
}

async function collect(stream: AsyncIterable<string>, onPiece?: (piece: string, index: number) => void | 'break'): Promise<string[]> {
  const pieces: string[] = [];
  for await (const piece of stream) {
    pieces.push(piece);
    if (onPiece?.(piece, pieces.length - 1) === 'break') break;
  }
  return pieces;
}

describe('loading', () => {
  it('loads the tiny decoder from a folder with per-file progress and no network, and describes it', async () => {
    const events: LoadProgress[] = [];
    const g = await load('tiny-decoder', CONTEXT, (e) => events.push(e));
    const files = new Set(events.flatMap((e) => (e.type === 'file' ? [e.file] : [])));
    expect([...files].sort()).toEqual(['config.json', 'generation_config.json', 'onnx/model.onnx', 'tokenizer.json', 'tokenizer_config.json']);
    expect(events.at(-1)).toEqual({ type: 'ready' });
    expect(g.model).toEqual({ id: 'local:tiny-decoder', label: 'tiny-decoder', contextTokens: CONTEXT });
    await g.dispose();
  });

  it("gives a model no more context than its config's max_position_embeddings, and writes within it", async () => {
    // The tiny decoder is built for 512 positions; past them ONNX Runtime fails ("broadcast ... 512 by 513").
    const g = await load('tiny-decoder', 4096);
    expect(g.model.contextTokens).toBe(512);
    const long: ChatMessage[] = [{ role: 'user', content: 'rent '.repeat(300) }];
    let text = '';
    for await (const piece of g.stream({ messages: long, maxTokens: 400 })) text += piece;
    expect(text.length).toBeGreaterThan(0);
    await g.dispose();
  });

  it('has a catalogue default for WASM: Qwen2.5-0.5B-Instruct, q8, about 520 MB', () => {
    expect(GENERATOR_CATALOGUE[0]).toBe(QWEN2_5_0_5B_INSTRUCT);
    expect(findGenerator(QWEN2_5_0_5B_INSTRUCT.id)).toBe(QWEN2_5_0_5B_INSTRUCT);
    expect(QWEN2_5_0_5B_INSTRUCT.files.map((f) => f.path)).toContain('onnx/model_quantized.onnx');
    const size = downloadSize(QWEN2_5_0_5B_INSTRUCT);
    expect(size.approximate).toBe(true);
    expect(size.bytes).toBeGreaterThan(500_000_000);
    expect(size.bytes).toBeLessThan(540_000_000);
    expect(localGenerator({ folder: 'x', contextTokens: 64, dtype: 'q4' }).files.map((f) => f.path)).toContain('onnx/model_q4.onnx');
    expect(() => localGenerator({ folder: 'x', contextTokens: 0 })).toThrow(/contextTokens/);
  });
});

describe('streaming', () => {
  it('yields several pieces whose concatenation is the non-streamed greedy output, the same every time', async () => {
    const maxTokens = 40;
    const expected = await directGreedy(MESSAGES, maxTokens);
    const pieces = await collect(generator.stream({ messages: MESSAGES, maxTokens }));
    expect(pieces.length).toBeGreaterThanOrEqual(3);
    expect(pieces.join('')).toBe(expected.text);
    expect(expected.text.split(' ').length).toBeGreaterThan(5); // real words, not one token
    expect(generator.lastGeneration).toMatchObject({ newTokens: expected.tokens.length });
    expect(await generateText(generator, { messages: MESSAGES, maxTokens })).toBe(expected.text);
  });

  it('stops at maxTokens (and at the context budget) and reports it', async () => {
    const expected = await directGreedy(MESSAGES, 6);
    expect(await generateText(generator, { messages: MESSAGES, maxTokens: 6 })).toBe(expected.text);
    expect(generator.lastGeneration).toMatchObject({ newTokens: 6, stop: 'max-tokens' });
    const promptTokens = generator.lastGeneration!.promptTokens;

    const tight = await load('tiny-decoder', promptTokens + 3);
    expect(await generateText(tight, { messages: MESSAGES, maxTokens: 100 })).toBe((await directGreedy(MESSAGES, 3)).text);
    expect(tight.lastGeneration).toMatchObject({ promptTokens, newTokens: 3, stop: 'max-tokens' });
    await tight.dispose();

    const tooSmall = await load('tiny-decoder', promptTokens);
    await expect(generateText(tooSmall, { messages: MESSAGES })).rejects.toMatchObject({ code: 'prompt-too-long', message: expect.stringMatching(/takes \d+ tokens/) });
    await tooSmall.dispose();
  });

  it('stops early on abort after the first pieces and keeps exactly what was written', async () => {
    const full = await collect(generator.stream({ messages: MESSAGES, maxTokens: 60 }));
    const fullTokens = generator.lastGeneration!.newTokens;
    expect(full.length).toBeGreaterThan(4);
    const controller = new AbortController();
    const pieces = await collect(generator.stream({ messages: MESSAGES, maxTokens: 60, signal: controller.signal }), (_, i) => {
      if (i === 1) controller.abort();
    });
    expect(pieces).toEqual(full.slice(0, 2));
    expect(generator.lastGeneration!.stop).toBe('aborted');
    expect(generator.lastGeneration!.newTokens).toBeLessThan(fullTokens / 2);
  });

  it('stops generating when the reader leaves the loop, and writes nothing when aborted before it starts', async () => {
    const pieces = await collect(generator.stream({ messages: MESSAGES, maxTokens: 60 }), () => 'break');
    expect(pieces).toHaveLength(1);
    expect(generator.lastGeneration).toMatchObject({ stop: 'aborted' });
    expect(generator.lastGeneration!.newTokens).toBeLessThan(20);

    const controller = new AbortController();
    controller.abort();
    expect(await collect(generator.stream({ messages: MESSAGES, signal: controller.signal }))).toEqual([]);
  });

  it('runs two streams one after the other, each giving the whole answer', async () => {
    const expected = await generateText(generator, { messages: MESSAGES, maxTokens: 12 });
    const both = await Promise.all([1, 2].map(() => generateText(generator, { messages: MESSAGES, maxTokens: 12 })));
    expect(both).toEqual([expected, expected]);
  });

  it('samples with a temperature above 0, and adds the JSON instruction when asked', async () => {
    expect((await generateText(generator, { messages: MESSAGES, maxTokens: 8, temperature: 1 })).length).toBeGreaterThan(0);
    await generateText(generator, { messages: MESSAGES, maxTokens: 1 });
    const plain = generator.lastGeneration!.promptTokens;
    await generateText(generator, { messages: MESSAGES, maxTokens: 1, json: true });
    // The instruction joins the system message (WordPiece drops the blank line before it).
    expect(generator.lastGeneration!.promptTokens).toBe(plain + (await generator.countTokens(JSON_INSTRUCTION)));
    expect(withJsonInstruction(MESSAGES, true)).toEqual([{ role: 'system', content: `${MESSAGES[0]!.content}\n\n${JSON_INSTRUCTION}` }, MESSAGES[1]]);
    expect(withJsonInstruction([MESSAGES[1]!], true)).toEqual([{ role: 'system', content: JSON_INSTRUCTION }, MESSAGES[1]]);
    expect(withJsonInstruction(MESSAGES, false)).toEqual(MESSAGES);
  });

  it('refuses a maxTokens or temperature out of range', async () => {
    for (const request of [{ maxTokens: 0 }, { maxTokens: 5000 }, { maxTokens: 1.5 }, { temperature: -1 }, { temperature: Number.NaN }]) {
      await expect(generateText(generator, { messages: MESSAGES, ...request })).rejects.toMatchObject({ code: 'invalid-setting' });
    }
  });
});

describe('countTokens', () => {
  it('counts what the tokenizer gives, without special tokens', async () => {
    configureSource(source());
    const tokenizer = await AutoTokenizer.from_pretrained('tiny-decoder');
    for (const text of ['When is the rent due?', 'Documents zyxwv', '', 'the lease ends in june. 東京']) {
      expect(await generator.countTokens(text), text).toBe(tokenizer.encode(text, { add_special_tokens: false }).length);
    }
    expect(await generator.countTokens('zyxwv')).toBe(5);
    expect(await generator.countTokens('<|im_start|>user')).toBe(2);
  });
});

describe('refusals', () => {
  it('names a missing file', async () => {
    for (const file of ['tokenizer.json', 'onnx/model.onnx']) {
      const folder = `dec-no-${file.replace(/\W/g, '-')}`;
      await tiny.variant(folder, { base: 'tiny-decoder', omit: [file] });
      const err = await load(folder).catch((e: unknown) => e);
      expect(err, file).toBeInstanceOf(DocQaError);
      expect(err).toMatchObject({ code: 'model-files-missing', message: expect.stringContaining(`has no ${file}`) });
    }
  });

  it('refuses an encoder, an architecture transformers.js cannot generate with, and a tokenizer without a chat template', async () => {
    await expect(load('tiny-encoder')).rejects.toMatchObject({ code: 'model-unsupported', message: expect.stringMatching(/BertModel.*not a text-generation model/) });
    await tiny.variant('dec-unknown-type', { base: 'tiny-decoder', config: { model_type: 'frobnicator', architectures: ['FrobForCausalLM'] } });
    await expect(load('dec-unknown-type')).rejects.toMatchObject({ code: 'model-unsupported', message: expect.stringMatching(/frobnicator.*cannot generate text/) });
    await tiny.variant('dec-no-template', { base: 'tiny-decoder', tokenizerConfig: { chat_template: undefined } });
    await expect(load('dec-no-template')).rejects.toMatchObject({ code: 'model-unsupported', message: expect.stringMatching(/no chat_template/) });
  });

  it('reports a chat template that refuses the conversation', async () => {
    await tiny.variant('dec-strict-template', { base: 'tiny-decoder', tokenizerConfig: { chat_template: "{% if messages[0]['role'] == 'system' %}{{ raise_exception('System role not supported') }}{% endif %}{{ 'x' }}" } });
    const strict = await load('dec-strict-template');
    await expect(generateText(strict, { messages: MESSAGES })).rejects.toMatchObject({ code: 'model-unsupported', message: expect.stringMatching(/chat template refused the conversation: .*System role not supported/) });
    await strict.dispose();
  });

  it('turns running out of memory into a message that says what to do', () => {
    const entry = localGenerator({ folder: 'tiny-decoder', contextTokens: CONTEXT });
    for (const err of [new Error('std::bad_alloc'), new RangeError('Array buffer allocation failed'), new Error('Aborted(OOM)'), new Error('WebAssembly.Memory(): could not allocate memory')]) {
      const explained = explainGeneratorError(err, entry, source());
      expect(explained.code, err.message).toBe('model-out-of-memory');
      expect(explained.message).toMatch(/ran out of memory.*close other tabs.*smaller model.*extractive answer/);
    }
    expect(explainGeneratorError(new Error('something else'), entry, source()).code).toBe('internal');
  });
});
