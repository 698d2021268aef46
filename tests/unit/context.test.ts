import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildContext, OMISSION } from '../../src/generate/context.ts';
import { countScriptedTokens } from '../../src/models/generator/scripted-generator.ts';
import { splitSentences } from '../../src/text/split-sentences.ts';
import { makePassage } from '../support/passages.ts';

const count = (text: string) => Promise.resolve(countScriptedTokens(text));
const roomy = { budget: 10_000, countTokens: count };

const BLOCK = 'The flat has two rooms. The tenant pays the rent on the first day of each month. The landlord repairs the heating. Pets need the written consent of the landlord.';

/** A window of BLOCK from `start` to `end`, as retrieval returns it. */
const slice = (start: number, end: number, extra = {}) => makePassage(BLOCK.slice(start, end), { windowStart: start, ...extra });

describe('buildContext', () => {
  it('drops passages a cross-encoder scored under the threshold (logit -2), keeps unscored ones, numbers the rest 1..n', async () => {
    const ps = [
      makePassage('Rent is due monthly.', { docName: 'a.md', rerank: { rank: 1, score: 3.1 } }),
      makePassage('The garden is shared.', { docName: 'b.md', rerank: { rank: 2, score: -4.3 } }),
      makePassage('Rent is paid by transfer.', { docName: 'c.md', rerank: { rank: 3, score: -1.5 } }),
      makePassage('Heating is included.', { docName: 'd.md' }),
    ];
    const ctx = await buildContext('When is rent due?', ps, roomy);
    expect(ctx.passages.map((p) => [p.n, p.passage.docName])).toEqual([[1, 'a.md'], [2, 'c.md'], [3, 'd.md']]);
    expect(ctx.belowThreshold).toBe(1);
    expect((await buildContext('rent', ps, { ...roomy, minRerankScore: 0 })).passages.map((p) => p.passage.docName)).toEqual(['a.md', 'd.md']);
    expect((await buildContext('rent', ps, { ...roomy, minRerankScore: -Infinity })).passages).toHaveLength(4);
  });

  it('merges overlapping and touching windows of one block into one passage, at the best-ranked place', async () => {
    const other = makePassage('Another document.', { docName: 'b.md' });
    const ps = [slice(24, 110), other, slice(0, 60), slice(110, BLOCK.length)];
    const ctx = await buildContext('rent', ps, roomy);
    expect(ctx.passages).toHaveLength(2);
    const [merged, second] = ctx.passages;
    expect(merged!.merged).toBe(3);
    expect(merged!.passage.window).toBe(BLOCK);
    expect(merged!.passage.windowStart).toBe(0);
    expect(merged!.passage.chunkId).toBe(ps[0]!.chunkId); // the best-ranked one's identity
    expect(merged!.passage.window.slice(merged!.passage.hitStart, merged!.passage.hitEnd)).toBe(BLOCK.slice(24, 110));
    expect(merged!.text).toBe(BLOCK);
    expect(second!.passage.docName).toBe('b.md');
  });

  it('never merges windows of another block, another document, with a gap, or whose shared text differs', async () => {
    const ps = [slice(0, 23), slice(24, 80), slice(0, 60, { block: 1 }), slice(0, 60, { docName: 'b.md' })];
    expect((await buildContext('rent', ps, roomy)).passages).toHaveLength(4);
    const stale = makePassage('XXX'.padEnd(40, 'x'), { windowStart: 10 });
    expect((await buildContext('rent', [slice(0, 60), stale], roomy)).passages).toHaveLength(2);
  });

  it('keeps every passage whole when they fit; when tight, the sentences sharing the question\'s terms first, never a cut one', async () => {
    const ps = [makePassage(BLOCK, { docName: 'lease.md' }), makePassage('The boiler was replaced in 2020. Deposits are held by the agent.', { docName: 'notes.md' })];
    const whole = await buildContext('When is the rent paid?', ps, roomy);
    expect(whole.trimmed).toBe(false);
    expect(whole.passages.map((p) => p.text)).toEqual(ps.map((p) => p.window));
    const tight = await buildContext('When is the rent paid?', ps, { budget: 15, countTokens: count });
    expect(tight.trimmed).toBe(true);
    expect(tight.passages).toHaveLength(1);
    expect(tight.passages[0]!.text).toBe('The tenant pays the rent on the first day of each month.');
    expect(tight.tokens).toBe(14);
    // Room left is filled with the hit chunk's other sentences, whole, in rank order.
    const filled = await buildContext('When is the rent paid?', ps, { budget: 20, countTokens: count });
    expect(filled.passages[0]!.text).toBe('The flat has two rooms. The tenant pays the rent on the first day of each month.');
    // Sentences far apart are joined by an omission mark; the ranges stay exact.
    const two = await buildContext('rent landlord pets', ps, { budget: 35, countTokens: count });
    const p = two.passages[0]!;
    expect(p.text).toBe(`The tenant pays the rent on the first day of each month. The landlord repairs the heating. Pets need the written consent of the landlord.`);
    const gap = await buildContext('rent pets', ps, { budget: 27, countTokens: count });
    expect(gap.passages[0]!.text).toBe(`The tenant pays the rent on the first day of each month.${OMISSION}Pets need the written consent of the landlord.`);
    expect(gap.passages[0]!.kept.map((r) => BLOCK.slice(r.start, r.end))).toEqual(['The tenant pays the rent on the first day of each month.', 'Pets need the written consent of the landlord.']);
  });

  it('when tight, keeps a sentence matching another search (a hop\'s query) that shares no word with the question', async () => {
    const ps = [makePassage(BLOCK, { docName: 'lease.md' }), makePassage('The boiler was replaced in 2020. Deposits are held by the agent.', { docName: 'notes.md' })];
    const question = 'When is the rent paid?';
    const without = await buildContext(question, ps, { budget: 30, countTokens: count });
    expect(without.passages.map((p) => p.text).join(' ')).not.toContain('Deposits are held by the agent.');
    const withHop = await buildContext(question, ps, { budget: 30, countTokens: count, searches: ['who holds deposits'] });
    expect(withHop.passages.map((p) => p.text)).toEqual([expect.stringContaining('The tenant pays the rent on the first day of each month.'), 'Deposits are held by the agent.']);
  });

  it('counts passages as the prompt renders them, and gives an empty context for a budget of 0', async () => {
    const render = (n: number, _p: unknown, text: string) => `<passage n="${n}">${text}</passage>`;
    const ctx = await buildContext('rent', [makePassage(BLOCK)], { budget: 1000, countTokens: count, render });
    expect(ctx.tokens).toBe(countScriptedTokens(`<passage n="1">${BLOCK}</passage>`));
    expect((await buildContext('rent', [makePassage(BLOCK)], { budget: 0, countTokens: count })).passages).toEqual([]);
  });

  it('property: never over the budget; kept ranges are whole sentences inside the window, sorted, apart; text is theirs', async () => {
    const words = ['rent', 'due', 'month', 'tenant', 'heating', 'pets', 'deposit', 'keys', 'agent', 'garden'];
    const sentence = fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 8 }).map((w) => `${w.join(' ')}.`.replace(/^./, (c) => c.toUpperCase()));
    const windowArb = fc.array(sentence, { minLength: 1, maxLength: 6 }).map((s) => s.join(' '));
    await fc.assert(
      fc.asyncProperty(fc.array(windowArb, { minLength: 1, maxLength: 5 }), fc.array(fc.constantFrom(...words), { maxLength: 4 }), fc.nat(200), async (windows, q, budget) => {
        const ps = windows.map((w, i) => makePassage(w, { docName: `d${i}.md` }));
        const ctx = await buildContext(q.join(' '), ps, { budget, countTokens: count });
        expect(ctx.tokens).toBeLessThanOrEqual(budget);
        let sum = 0;
        for (const p of ctx.passages) {
          sum += countScriptedTokens(p.text);
          const sentences = splitSentences(p.passage.window);
          for (const [i, r] of p.kept.entries()) {
            expect(r.start).toBeGreaterThanOrEqual(0);
            expect(r.end).toBeLessThanOrEqual(p.passage.window.length);
            if (i > 0) expect(r.start).toBeGreaterThan(p.kept[i - 1]!.end);
            expect(sentences.some((s) => s.start === r.start)).toBe(true);
            expect(sentences.some((s) => s.end === r.end)).toBe(true);
          }
          expect(p.text).toBe(p.kept.map((r) => p.passage.window.slice(r.start, r.end)).join(OMISSION));
        }
        expect(sum).toBe(ctx.tokens);
        expect(ctx.passages.map((p) => p.n)).toEqual(ctx.passages.map((_, i) => i + 1));
      }),
    );
  });
});
