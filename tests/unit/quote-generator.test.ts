// The quote baseline of the answer evaluation: it reads the prompt the LLM answerer builds, quotes the
// best sentence of each top passage with its [n], and through the LLM answerer every such sentence is
// supported by the checker and cites the passage it came from.
import { describe, expect, it } from 'vitest';
import type { AnswerSegment } from '../../src/core/types.ts';
import type { ContextPassage } from '../../src/generate/context.ts';
import { generateText } from '../../src/models/generator/generator.ts';
import { createLlmAnswerer } from '../../src/generate/llm-answerer.ts';
import { buildMessages, NOT_FOUND } from '../../src/generate/prompt.ts';
import { bestSentence, QuoteGenerator, quoteAnswer, readPrompt } from '../../src/eval/quote-generator.ts';
import { makePassage } from '../support/passages.ts';

/** Segments without their per-sentence quotes (checked apart, where a test is about them). */
const withoutQuotes = (segments: readonly AnswerSegment[]) => segments.map(({ quotes: _quotes, ...rest }) => rest);

const ctx = (text: string, n: number, docName = `doc${n}.md`): ContextPassage => ({ n, passage: makePassage(text, { docName }), kept: [{ start: 0, end: text.length }], text, merged: 1 });

const LEASE = 'The lease runs for two years. Rent is due on the first day of each month. Pets need written consent.';
const DEPOSIT = 'The deposit is 500 euros. It is returned within 30 days after the keys are handed back';
const MARKUP = 'Tags like <b>bold</b> & "quotes" stay as written. Nothing else here.';
const QUESTION = 'When is the rent due each month, and is the deposit returned once the keys are handed back?';

describe('readPrompt', () => {
  it('reads back the numbered passages (entities decoded) and the question from the messages', () => {
    const messages = buildMessages({ question: QUESTION, passages: [ctx(LEASE, 1), ctx(MARKUP, 2)] });
    expect(readPrompt(messages)).toEqual({ question: QUESTION, passages: [{ n: 1, text: LEASE }, { n: 2, text: MARKUP }] });
  });

  it('finds no passage in a prompt without any', () => {
    expect(readPrompt(buildMessages({ question: QUESTION, passages: [] }))).toEqual({ question: QUESTION, passages: [] });
  });
});

describe('quoteAnswer', () => {
  it('picks the sentence sharing most of the question’s terms, the first on a tie, ending with a stop', () => {
    expect(bestSentence(QUESTION, LEASE)).toBe('Rent is due on the first day of each month.');
    expect(bestSentence(QUESTION, DEPOSIT)).toBe('It is returned within 30 days after the keys are handed back.');
    expect(bestSentence('unrelated words', LEASE)).toBe('The lease runs for two years.');
  });

  it('writes the best sentence of each of the top passages followed by its [n], and Not found without passages', () => {
    const messages = buildMessages({ question: QUESTION, passages: [ctx(LEASE, 1), ctx(DEPOSIT, 2), ctx(MARKUP, 3)] });
    expect(quoteAnswer(messages, 2)).toBe('Rent is due on the first day of each month. [1] It is returned within 30 days after the keys are handed back. [2]');
    expect(quoteAnswer(messages)).toContain('Tags like <b>bold</b> & "quotes" stay as written. [3]');
    expect(quoteAnswer(buildMessages({ question: QUESTION, passages: [] }))).toBe(NOT_FOUND);
  });
});

describe('QuoteGenerator', () => {
  it('is named as a baseline, streams its answer, and stops at maxTokens or an abort', async () => {
    const g = new QuoteGenerator({ passages: 2 });
    expect(g.model).toEqual({ id: 'quote', label: 'Quote baseline (not a model)', contextTokens: 4096 });
    const messages = buildMessages({ question: QUESTION, passages: [ctx(LEASE, 1), ctx(DEPOSIT, 2)] });
    const full = await generateText(g, { messages });
    expect(full).toBe(quoteAnswer(messages, 2));
    const short = await generateText(g, { messages, maxTokens: 5 });
    expect(full.startsWith(short)).toBe(true);
    expect(short.length).toBeLessThanOrEqual(20);
    const stopped = new AbortController();
    stopped.abort();
    expect(await generateText(g, { messages, signal: stopped.signal })).toBe('');
  });

  it('through the LLM answerer: every sentence is supported by the passage it cites', async () => {
    const answerer = createLlmAnswerer({ generator: new QuoteGenerator({ passages: 2 }) });
    const passages = [makePassage(LEASE, { docName: 'lease.md' }), makePassage(DEPOSIT, { docName: 'deposit.md' })];
    const answer = await answerer.answer(QUESTION, passages, { documentCount: 1, documentFrequency: () => 1 });
    expect(answer.found).toBe(true);
    expect(answer.removedCitations).toEqual([]);
    expect(withoutQuotes(answer.segments)).toEqual([
      { text: 'Rent is due on the first day of each month.', cite: 1 },
      { text: 'It is returned within 30 days after the keys are handed back.', cite: 2 },
    ]);
    expect(answer.citations.map((c) => c.passage.docName)).toEqual(['lease.md', 'deposit.md']);
  });
});
