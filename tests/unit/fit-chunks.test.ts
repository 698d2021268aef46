// No chunk is silently truncated: texts too long for the model, counted with the tiny model's own
// tokenizer (prefix included), are split at sentence ends, then spaces, then characters.
import { AutoTokenizer, type PreTrainedTokenizer } from '@huggingface/transformers';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocQaError } from '../../src/core/errors.ts';
import { configureSource, loadEmbedder } from '../../src/models/encoder/embedder.ts';
import { fitChunks } from '../../src/embed/fit-chunks.ts';
import { localModel } from '../../src/models/catalogue.ts';
import { createTinyModelDir, type TinyModelDir } from '../support/tiny-model-dir.ts';

let tiny: TinyModelDir;
let tokenizer: PreTrainedTokenizer;
beforeAll(async () => {
  tiny = await createTinyModelDir();
  configureSource({ kind: 'folder', root: tiny.dir });
  tokenizer = await AutoTokenizer.from_pretrained('tiny-encoder');
});
afterAll(async () => {
  expect(tiny.fetched).toEqual([]);
  await tiny.remove();
});

const PREFIX = 'passage: ';
const count = (text: string) => tokenizer.encode(PREFIX + text).length;
const nonSpace = (s: string) => s.replace(/\s+/gu, '');

/** Every piece fits, and the pieces of each text hold all its non-space characters, in order. */
function expectFitAndCover(texts: string[], max: number) {
  const { pieces, split } = fitChunks(texts, count, max);
  for (const p of pieces) {
    expect(count(p.text), p.text).toBeLessThanOrEqual(max);
    expect(p.text).toBe(texts[p.source]!.slice(p.start, p.end));
  }
  texts.forEach((text, i) => {
    const own = pieces.filter((p) => p.source === i);
    expect(own.map((p) => nonSpace(p.text)).join('')).toBe(nonSpace(text));
    own.slice(1).forEach((p, j) => expect(p.start).toBeGreaterThanOrEqual(own[j]!.end));
  });
  return { pieces, split };
}

const LONG = 'The tenant pays the rent on the first day of every month. The landlord returns the deposit within thirty days. '
  + 'Repairs are reported in writing. Pets need written consent. The lease ends in June.';

describe('fitChunks', () => {
  it('keeps a text that fits whole and reports nothing split', () => {
    const { pieces, split } = fitChunks(['The lease ends in June.'], count, 64);
    expect(split).toBe(0);
    expect(pieces).toEqual([{ source: 0, start: 0, end: 23, text: 'The lease ends in June.' }]);
  });

  it('splits a long text at sentence ends, prefix counted, and says how many texts were split', () => {
    expect(count(LONG)).toBeGreaterThan(24);
    const { pieces, split } = expectFitAndCover(['short one.', LONG, 'another short one.'], 24);
    expect(split).toBe(1);
    const own = pieces.filter((p) => p.source === 1);
    expect(own.length).toBeGreaterThan(1);
    for (const p of own) expect(p.text).toMatch(/\.$/); // every sentence here fits alone: cuts only at sentence ends
    // Greedy packing: no two consecutive pieces would have fitted together.
    own.slice(1).forEach((p, j) => expect(count(LONG.slice(own[j]!.start, p.end))).toBeGreaterThan(24));
  });

  it('splits a sentence too long alone at spaces, and a word too long alone between characters', () => {
    const sentence = 'the rent and the deposit and the landlord and the tenant and the lease and the repairs and the pets';
    expectFitAndCover([sentence], 12);
    const word = 'zyxwvutsrqponmlkjihgfedcba'.repeat(3); // spelled with ## pieces: one token per letter or so
    const { pieces } = expectFitAndCover([word], 12);
    expect(pieces.length).toBeGreaterThan(3);
  });

  it('refuses only when a single character cannot fit beside the prefix', () => {
    expect(() => fitChunks(['abc'], count, count('') /* prefix and specials alone */)).toThrow(DocQaError);
  });

  it('fits and covers random texts (property)', () => {
    const words = ['rent', 'deposit', 'zyxw', 'the', 'lease.', 'Repairs', 'café', '2.5', 'mg.', '東京', 'June!', '\n'];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...words), { maxLength: 60 }), fc.integer({ min: 6, max: 30 }), (ws, max) => {
        expectFitAndCover([ws.join(' ')], max);
      }),
      { numRuns: 40 },
    );
  });

  it('gives the embedder pieces it accepts where the whole text is refused', async () => {
    const model = localModel({ folder: 'tiny-encoder', dims: 32, pooling: 'mean', passagePrefix: PREFIX, maxTokens: 24 });
    const embedder = await loadEmbedder(model, { source: { kind: 'folder', root: tiny.dir } });
    await expect(embedder.embedPassages([LONG])).rejects.toMatchObject({ code: 'chunk-too-long' });
    const { pieces } = fitChunks([LONG], (t) => embedder.countTokens(t, 'passage'), model.maxTokens);
    const { vectors } = await embedder.embedPassages(pieces.map((p) => p.text));
    expect(vectors).toHaveLength(pieces.length);
  });
});
