// The generate worker's handler run in-process on the tiny decoder (real transformers.js), behind the
// remote generator the library uses: the same text as the generator itself, streamed in pieces, and
// Stop (the consumer's signal) ends the run on the other side with what was written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGenerateHandler } from '../../src/models/generator/generate-handler.ts';
import { generateText, type ChatMessage } from '../../src/models/generator/generator.ts';
import { remoteGenerator } from '../../src/models/generator/remote-generator.ts';
import { localGenerator } from '../../src/models/generator-catalogue.ts';
import { createTinyModelDir, type TinyModelDir } from '../support/tiny-model-dir.ts';

let tiny: TinyModelDir;
beforeAll(async () => {
  tiny = await createTinyModelDir();
});
afterAll(async () => {
  expect(tiny.fetched).toEqual([]);
  await tiny.remove();
});

const MESSAGES: ChatMessage[] = [
  { role: 'system', content: 'Answer from the passages.' },
  { role: 'user', content: 'when is the rent due' },
];

describe('remote generator over the generate handler', () => {
  it('streams the same text as the model run directly, and stops on the signal', async () => {
    const handler = createGenerateHandler();
    const loaded = await handler.load({ model: localGenerator({ folder: 'tiny-decoder', contextTokens: 256 }), source: { kind: 'folder', root: tiny.dir } });
    expect(loaded).toMatchObject({ modelId: 'local:tiny-decoder', contextTokens: 256, notice: 'CPU (onnxruntime-node)' });
    const generator = remoteGenerator({ id: loaded.modelId, label: loaded.label, contextTokens: loaded.contextTokens }, handler);

    const pieces: string[] = [];
    for await (const piece of generator.stream({ messages: MESSAGES, maxTokens: 24 })) pieces.push(piece);
    expect(pieces.length).toBeGreaterThan(2);
    // The same greedy text in one go, through the same port.
    expect(await generateText(generator, { messages: MESSAGES, maxTokens: 24 })).toBe(pieces.join(''));
    expect(await generator.countTokens('when is the rent due')).toBeGreaterThan(3);

    const controller = new AbortController();
    const kept: string[] = [];
    for await (const piece of generator.stream({ messages: MESSAGES, maxTokens: 60, signal: controller.signal })) {
      kept.push(piece);
      if (kept.length === 2) controller.abort();
    }
    expect(kept.length).toBeGreaterThanOrEqual(2);
    expect(kept.length).toBeLessThan(pieces.length + 40);
    expect(pieces.join('').startsWith(kept.slice(0, 2).join(''))).toBe(true);
    await handler.unload();
  });
});
