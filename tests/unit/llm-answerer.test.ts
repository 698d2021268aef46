import { describe, expect, it } from 'vitest';
import type { AnswerSegment, Passage } from '../../src/core/types.ts';
import { createLlmAnswerer } from '../../src/generate/llm-answerer.ts';
import { countMessageTokens, NOT_FOUND } from '../../src/generate/prompt.ts';
import { countScriptedTokens, ScriptedGenerator } from '../../src/models/generator/scripted-generator.ts';
import type { TermStatistics } from '../../src/generate/extractive-answer.ts';
import { makePassage } from '../support/passages.ts';

/** Segments without their per-sentence quotes (checked apart, where a test is about them). */
const withoutQuotes = (segments: readonly AnswerSegment[]) => segments.map(({ quotes: _quotes, ...rest }) => rest);

const LEASE = 'The flat has two rooms. The tenant pays the rent on the first day of each month. The landlord repairs the heating.';
const PETS = 'Cats and small dogs are allowed. Other pets need the written consent of the landlord.';
const GARDEN = 'The garden is shared by all tenants. Barbecues are not allowed in the garden.';
const passages: Passage[] = [makePassage(LEASE, { docName: 'lease.md' }), makePassage(PETS, { docName: 'pets.md' }), makePassage(GARDEN, { docName: 'garden.md' })];
const stats: TermStatistics = { documentCount: 3, documentFrequency: () => 1 };
const count = (text: string) => Promise.resolve(countScriptedTokens(text));

describe('createLlmAnswerer', () => {
  it('streams the answer, then cites only the passages used, renumbered by first use, with the supporting sentences as quotes', async () => {
    const reply = 'Other pets need the written consent of the landlord [2]. The landlord repairs the heating [1].';
    const generator = new ScriptedGenerator([reply]);
    const pieces: string[] = [];
    const answer = await createLlmAnswerer({ generator }).answer('Who must agree to pets, and who repairs the heating?', passages, stats, { onText: (p) => pieces.push(p) });
    expect(pieces.length).toBeGreaterThan(5);
    expect(pieces.join('')).toBe(reply);
    expect(answer).toMatchObject({ found: true, generatedBy: 'Scripted generator', removedCitations: [] });
    expect(answer.stopped).toBeUndefined();
    expect(withoutQuotes(answer.segments)).toEqual([
      { text: 'Other pets need the written consent of the landlord.', cite: 1 },
      { text: 'The landlord repairs the heating.', cite: 2 },
    ]);
    expect(answer.citations.map((c) => [c.n, c.passage.docName])).toEqual([[1, 'pets.md'], [2, 'lease.md']]);
    const [pets, lease] = answer.citations;
    expect(pets!.quotes.map((q) => PETS.slice(q.start, q.end))).toEqual(['Other pets need the written consent of the landlord.']);
    expect(lease!.quotes.map((q) => LEASE.slice(q.start, q.end))).toEqual(['The landlord repairs the heating.']);
    expect(lease!.marks).toEqual(lease!.quotes);
    // Each sentence keeps the sentence of its own source that supports it (what its [n] opens on).
    expect(answer.segments.map((seg) => seg.quotes!.map((q) => [PETS, LEASE][seg.cite! - 1]!.slice(q.start, q.end)))).toEqual([
      ['Other pets need the written consent of the landlord.'],
      ['The landlord repairs the heating.'],
    ]);
    // The model was given the three passages, numbered, with the rules and the question.
    const request = generator.requests[0]!;
    expect(request.messages[1]!.content).toMatch(/<passage n="3" source="garden.md, Payment">/);
    expect(request.temperature).toBe(0);
    expect(request.maxTokens).toBe(512);
  });

  it('removes an invalid citation, reports it, and marks the unsupported sentence; a sentence citing two keeps the one that supports it', async () => {
    const reply = 'Barbecues are not allowed in the garden [3][1]. Rent is paid in cash [9]. The heating is repaired by the landlord [1, 2].';
    const answer = await createLlmAnswerer({ generator: new ScriptedGenerator([reply]) }).answer('Rules?', passages, stats);
    expect(withoutQuotes(answer.segments)).toEqual([
      { text: 'Barbecues are not allowed in the garden.', cite: 1 },
      { text: 'Rent is paid in cash.', unsupported: true },
      { text: 'The heating is repaired by the landlord.', cite: 2 },
    ]);
    expect(answer.citations.map((c) => c.passage.docName)).toEqual(['garden.md', 'lease.md']);
    expect(answer.removedCitations).toEqual([
      { n: 1, reason: 'not-supported', sentence: 'Barbecues are not allowed in the garden.' },
      { n: 9, reason: 'no-such-passage', sentence: 'Rent is paid in cash.' },
      { n: 2, reason: 'not-supported', sentence: 'The heating is repaired by the landlord.' },
    ]);
  });

  it('gives several citations of one sentence as cites', async () => {
    const answer = await createLlmAnswerer({ generator: new ScriptedGenerator(['The landlord must consent to other pets and repairs the heating [2][1].']) }).answer('landlord?', passages, stats);
    expect(withoutQuotes(answer.segments)).toEqual([{ text: 'The landlord must consent to other pets and repairs the heating.', cite: 1, cites: [1, 2] }]);
    expect(answer.citations.map((c) => c.passage.docName)).toEqual(['pets.md', 'lease.md']);
  });

  it('"Not found in your documents." gives the closest passages, as the extractive answer does', async () => {
    const answer = await createLlmAnswerer({ generator: new ScriptedGenerator([NOT_FOUND]) }).answer('Is there a pool?', passages, stats);
    expect(answer).toMatchObject({ found: false, segments: [], generatedBy: 'Scripted generator' });
    expect(answer.citations.map((c) => [c.n, c.passage.docName, c.quotes])).toEqual([[1, 'lease.md', []], [2, 'pets.md', []], [3, 'garden.md', []]]);
  });

  it('does not ask the model when the reranker judged every passage irrelevant', async () => {
    const generator = new ScriptedGenerator([]);
    const irrelevant = passages.map((p, i) => ({ ...p, rerank: { rank: i + 1, score: -6 } }));
    const answer = await createLlmAnswerer({ generator }).answer('Is there a pool?', irrelevant, stats);
    expect(answer.found).toBe(false);
    expect(answer.citations).toHaveLength(3);
    expect(generator.requests).toEqual([]);
  });

  it('stopped mid-way: keeps what was written, checked, and says it stopped', async () => {
    const generator = new ScriptedGenerator(['The landlord repairs the heating [1]. Other pets need the written consent of the landlord [2].']);
    const controller = new AbortController();
    const pieces: string[] = [];
    const answer = await createLlmAnswerer({ generator }).answer('Who repairs the heating?', passages, stats, {
      signal: controller.signal,
      onText: (p) => {
        pieces.push(p);
        if (pieces.length === 8) controller.abort();
      },
    });
    expect(pieces.join('')).toBe('The landlord repairs the heating [1]. Other pets');
    expect(answer.stopped).toBe(true);
    expect(withoutQuotes(answer.segments)).toEqual([{ text: 'The landlord repairs the heating.', cite: 1 }, { text: 'Other pets', unsupported: true }]);
    const none = await createLlmAnswerer({ generator: new ScriptedGenerator(['unused']) }).answer('q', passages, stats, { signal: AbortSignal.abort() });
    expect(none).toMatchObject({ found: false, stopped: true });
  });

  it('fits a small context window: the prompt never exceeds the window less the answer, passages trimmed to sentences', async () => {
    const long = Array.from({ length: 30 }, (_, i) => `Clause ${i} sets out the duties of the tenant in some detail.`).join(' ');
    const many = [makePassage(`${long} The tenant pays the rent on the first day of each month. ${long}`, { docName: 'big.md' }), ...passages];
    const generator = new ScriptedGenerator(['The tenant pays the rent on the first day of each month [1].'], { model: { contextTokens: 1200 } });
    const turns = Array.from({ length: 20 }, (_, i) => ({ question: `Earlier question ${i}?`, answer: `Earlier answer ${i} ${'z'.repeat(200)} [1].` }));
    const answer = await createLlmAnswerer({ generator }).answer('When is the rent paid?', many, stats, { turns, summary: 'We discussed the lease.' });
    const request = generator.requests[0]!;
    expect(request.maxTokens).toBe(300);
    expect(await countMessageTokens(request.messages, count)).toBeLessThanOrEqual(1200 - 300);
    expect(request.messages.filter((m) => m.role === 'assistant').length).toBeLessThan(20);
    expect(request.messages.at(-1)!.content).toContain('The tenant pays the rent on the first day of each month.');
    expect(withoutQuotes(answer.segments)).toEqual([{ text: 'The tenant pays the rent on the first day of each month.', cite: 1 }]);
    const q = answer.citations[0]!.quotes[0]!;
    expect(answer.citations[0]!.passage.window.slice(q.start, q.end)).toBe('The tenant pays the rent on the first day of each month.');
  });

  it('a question too long for the window says so and asks to shorten it, instead of "Not found" (the documents were never read)', async () => {
    // A pasted page as the question: 10,000 characters are 2,500 scripted tokens, a 1,024-token window.
    const pasted = 'Who repairs the heating in the flat? '.repeat(280).slice(0, 10_000);
    const generator = new ScriptedGenerator(['The landlord repairs the heating [1].'], { model: { contextTokens: 1024 } });
    await expect(createLlmAnswerer({ generator }).answer(pasted, passages, stats)).rejects.toMatchObject({
      code: 'prompt-too-long',
      message: expect.stringMatching(/^Your question is too long for Scripted generator: .* of the 768 tokens .* Shorten the question/),
    });
    expect(generator.requests).toHaveLength(0);
    // The same question, short, is answered in the same window.
    const short = await createLlmAnswerer({ generator }).answer('Who repairs the heating in the flat?', passages, stats);
    expect(short.found).toBe(true);
  });

  it('throws a generator failure as it is', async () => {
    const generator = new ScriptedGenerator(() => {
      throw new Error('device lost');
    });
    await expect(createLlmAnswerer({ generator }).answer('q', passages, stats)).rejects.toThrow('device lost');
  });
});
