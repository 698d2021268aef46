// The answer by meaning when an embedding model is chosen (src/generate/encoder-answer.ts), over an
// encoder made for the test: each text is a vector of the concepts it names (words and their synonyms),
// so sentences that share no word with the question can still be near it, as with a real model. The
// real model's choices are checked in tests/real/encoder-answer.test.ts.
import { describe, expect, it, vi } from 'vitest';
import { asChunkId, asDocId } from '../../src/core/ids.ts';
import type { Passage } from '../../src/core/types.ts';
import { buildEncoderAnswer, createEncoderAnswerer, KIND_PENALTY, MAX_ENCODED_SENTENCES, MIN_SIMILARITY, textToEncode, type SentenceEncoder } from '../../src/generate/encoder-answer.ts';
import { answerSentences } from '../../src/generate/answer-sentences.ts';
import { buildExtractiveAnswer } from '../../src/generate/extractive-answer.ts';

function passage(window: string, docName: string, label = 'Settings'): Passage {
  return {
    chunkId: asChunkId(`c-${docName}`),
    score: 1,
    docId: asDocId(`d-${docName}`),
    docName,
    docPath: docName,
    docType: 'html',
    block: 0,
    label,
    window,
    windowStart: 0,
    hitStart: 0,
    hitEnd: window.length,
    ranks: [],
    why: '',
  };
}

/** Concepts and the word starts that name them. */
const CONCEPTS: string[][] = [
  ['checkpoint'],
  ['timeout', 'interval', 'time', 'long', 'minute', 'second', 'delay'],
  ['default', 'usual', 'standard'],
  ['wal', 'log'],
  ['timestamp'],
  ['high', 'max', 'largest', 'latest'],
  ['value', 'store', 'hold'],
  ['crash', 'recovery'],
  ['cheese', 'fondue', 'recipe'],
];

/** An encoder over {@link CONCEPTS}, recording what it was asked to embed. */
function conceptEncoder(): SentenceEncoder & { texts: string[][] } {
  const vector = (text: string) => {
    const v = new Float32Array(CONCEPTS.length + 1);
    v[CONCEPTS.length] = 0.3; // every text shares a little: similarities are never exactly 0
    for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
      CONCEPTS.forEach((starts, i) => {
        if (starts.some((s) => word.startsWith(s))) v[i]! += 1;
      });
    }
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  };
  const texts: string[][] = [];
  return {
    texts,
    embedQuery: async (text) => vector(text),
    embedChunks: async (batch) => {
      texts.push([...batch]);
      const out = new Float32Array(batch.length * (CONCEPTS.length + 1));
      batch.forEach((t, i) => out.set(vector(t), i * (CONCEPTS.length + 1)));
      return out;
    },
  };
}

const WAL = passage(
  'checkpoint_timeout (integer)\n\nMaximum time between automatic WAL checkpoints. The default is five minutes (5min). Increasing this parameter can increase the amount of time needed for crash recovery.',
  'runtime-config-wal.html',
);
const TABLE = passage('Table 8.9. Date/Time Types\n\nName | Storage Size | High Value\n\ntimestamp | 8 bytes | 294276 AD\n\ndate | 4 bytes | 5874897 AD', 'datatype-datetime.html', '8.5. Date/Time Types');

describe('the answer by meaning (encoder)', () => {
  it('follows the sentence it quotes with the figure its block gives, when the question asks how long', async () => {
    const wal = 'checkpoint_timeout (integer)\n\nMaximum time between automatic WAL checkpoints. It is 300 by default.\n\ncheckpoint_warning (integer)\n\nIt is 30 by default.';
    const answer = await buildEncoderAnswer('How long between automatic WAL checkpoints?', [passage(wal, 'runtime-config-wal.html')], undefined, conceptEncoder());
    expect(answer.segments.map((s) => s.text)).toEqual(['Maximum time between automatic WAL checkpoints.', 'It is 300 by default.']);
  });

  it('quotes the sentence nearest in meaning, read with the label above it, though it shares no word with the question', async () => {
    const encoder = conceptEncoder();
    const answer = await buildEncoderAnswer('How long is the usual checkpoint interval?', [WAL], undefined, encoder);
    expect(answer.found).toBe(true);
    expect(answer.segments[0]!.text).toBe('The default is five minutes (5min).');
    // The sentence was read after its field name; the quote is the sentence alone.
    expect(encoder.texts.flat()).toContain('checkpoint_timeout (integer)\nThe default is five minutes (5min).');
    expect(answer.citations[0]!.quotes.map(({ start, end }) => WAL.window.slice(start, end))).toContain('The default is five minutes (5min).');
  });

  it("reads a sentence under no label line after its passage's heading, never after a page or line number", async () => {
    const encoder = conceptEncoder();
    const passages = [
      passage('It is five minutes by default.', 'config.html', 'Server settings › Checkpoint timeout'),
      passage('The default delay is ten seconds.', 'manual.pdf', 'page 4'),
      passage('It is 3 by default.', 'notes.txt', 'Checkpoints (lines 3–10)'),
    ];
    const answer = await buildEncoderAnswer('What is the default checkpoint timeout?', passages, undefined, encoder);
    expect(encoder.texts.flat()).toEqual(expect.arrayContaining(['Checkpoint timeout\nIt is five minutes by default.', 'The default delay is ten seconds.', 'Checkpoints\nIt is 3 by default.']));
    // Read alone, "It is five minutes by default." is further from the question than the delay of page 4.
    expect(answer.segments[0]!.text).toBe('It is five minutes by default.');
  });

  it('reads a table row with its column names and quotes the row', async () => {
    const rows = answerSentences([TABLE]).filter((s) => s.kind === 'row');
    expect(rows.map((row) => textToEncode(row))).toEqual(['Table 8.9. Date/Time Types\nName: timestamp; Storage Size: 8 bytes; High Value: 294276 AD', 'Table 8.9. Date/Time Types\nName: date; Storage Size: 4 bytes; High Value: 5874897 AD']);
    const answer = await buildEncoderAnswer('What is the highest timestamp value?', [TABLE], undefined, conceptEncoder());
    expect(answer.segments[0]!.text).toBe('timestamp | 8 bytes | 294276 AD');
  });

  it('says "Not found" when no sentence is near enough, keeping the passages as the closest ones', async () => {
    const answer = await buildEncoderAnswer('Which cheese goes into a fondue recipe?', [WAL, TABLE], undefined, conceptEncoder());
    expect(answer.found).toBe(false);
    expect(answer.citations.map((c) => [c.n, c.passage.docName, c.quotes])).toEqual([
      [1, 'runtime-config-wal.html', []],
      [2, 'datatype-datetime.html', []],
    ]);
    // The same question is answered when the threshold lets anything through.
    expect((await buildEncoderAnswer('Which cheese goes into a fondue recipe?', [WAL, TABLE], undefined, conceptEncoder(), { minSimilarity: -1 })).found).toBe(true);
  });

  it('does not let a label win over the sentence under it when the two are about as near', async () => {
    const window = 'Default checkpoint interval\n\nThe checkpoint interval is five minutes by default.';
    const answer = await buildEncoderAnswer('What is the default checkpoint interval?', [passage(window, 'a.html')], undefined, conceptEncoder());
    expect(KIND_PENALTY.label).toBeGreaterThan(0);
    expect(answer.segments[0]!.text).toBe('The checkpoint interval is five minutes by default.');
  });

  it('never answers with a label alone, however near', async () => {
    const window = 'Default checkpoint interval of the server\n\nCheese fondue recipe.';
    const encoder = conceptEncoder();
    const answer = await buildEncoderAnswer('What is the default checkpoint interval?', [passage(window, 'b.html', 'page 1')], undefined, encoder);
    expect(encoder.texts.flat()).toContain('Default checkpoint interval of the server');
    expect(answer.found).toBe(false);
  });

  it('embeds at most MAX_ENCODED_SENTENCES sentences for a question: those nearest by words, then the rest of the hit chunk', async () => {
    const many = Array.from({ length: 100 }, (_, i) => `Sentence ${i} is about the checkpoint interval of server ${i}.`).join(' ');
    const encoder = conceptEncoder();
    await buildEncoderAnswer('What is the checkpoint interval?', [passage(`${many}\n\nNothing here matters at all.`, 'many.html', 'page 1')], undefined, encoder);
    expect(encoder.texts).toHaveLength(1);
    expect(encoder.texts[0]).toHaveLength(MAX_ENCODED_SENTENCES);
    expect(encoder.texts[0]).not.toContain('Nothing here matters at all.');
    // A sentence sharing no word is read when it is in the chunk the search hit, not otherwise.
    const window = 'The checkpoint interval is set here.\n\nNothing here matters at all.';
    const hitFirst = { ...passage(window, 'hit.html', 'page 1'), hitEnd: window.indexOf('Nothing') };
    const outside = conceptEncoder();
    await buildEncoderAnswer('What is the checkpoint interval?', [hitFirst], undefined, outside);
    expect(outside.texts.flat()).toEqual(['The checkpoint interval is set here.']);
    const inside = conceptEncoder();
    await buildEncoderAnswer('What is the checkpoint interval?', [passage(window, 'all.html', 'page 1')], undefined, inside);
    expect(inside.texts.flat()).toEqual(['The checkpoint interval is set here.', 'Nothing here matters at all.']);
  });

  it('answers by words when the encoder fails, gives broken vectors or is too slow (the embed worker busy indexing)', async () => {
    const question = 'What is the default checkpoint_timeout?';
    const failing: SentenceEncoder = { embedQuery: () => Promise.reject(new Error('worker died')), embedChunks: () => Promise.reject(new Error('worker died')) };
    const byWords = buildExtractiveAnswer(question, [WAL], { stats: undefined });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    expect(await createEncoderAnswerer(failing).answer(question, [WAL], undefined as never)).toEqual(byWords);
    warn.mockRestore();
    // Vectors of the wrong length, or NaN: refused, and the answer is by words.
    const broken: SentenceEncoder = { embedQuery: async () => new Float32Array(4).fill(0.5), embedChunks: async (t) => new Float32Array(t.length * 3) };
    const nan: SentenceEncoder = { embedQuery: async () => new Float32Array(4).fill(Number.NaN), embedChunks: async (t) => new Float32Array(t.length * 4).fill(Number.NaN) };
    await expect(buildEncoderAnswer(question, [WAL], undefined, broken)).rejects.toMatchObject({ code: 'model-output-invalid' });
    await expect(buildEncoderAnswer(question, [WAL], undefined, nan)).rejects.toMatchObject({ code: 'model-output-invalid' });
    expect(await createEncoderAnswerer(nan).answer(question, [WAL], undefined as never)).toEqual(byWords);
    const never: SentenceEncoder = { embedQuery: () => new Promise(() => undefined), embedChunks: () => new Promise(() => undefined) };
    expect(await createEncoderAnswerer(never, { timeoutMs: 20 }).answer(question, [WAL], undefined as never)).toEqual(byWords);
    warn.mockRestore();
  });

  it('is an Answerer, with the calibrated threshold by default', async () => {
    expect(MIN_SIMILARITY).toBeGreaterThan(0);
    const answerer = createEncoderAnswerer(conceptEncoder());
    const answer = await answerer.answer('How long is the usual checkpoint interval?', [WAL], { documentCount: 1, documentFrequency: () => 1 });
    expect(answer.segments[0]!.text).toBe('The default is five minutes (5min).');
  });
});
