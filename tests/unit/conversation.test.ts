// The library's conversations end to end in Node (fake-indexeddb, scripted generator): each answer saved
// as a turn (a stopped one too), follow-ups rewritten and reported, the searched question as the person
// edited it, older turns summarised once they overflow, and a long chat that never overflows the context.
import { describe, expect, it } from 'vitest';
import type { IncomingFile } from '../../src/core/library-api.ts';
import type { AskStep } from '../../src/core/types.ts';
import type { ChunkOptions } from '../../src/ingest/chunk.ts';
import type { GenerateRequest } from '../../src/models/generator/generator.ts';
import { countMessageTokens } from '../../src/generate/prompt.ts';
import { countScriptedTokens, ScriptedGenerator } from '../../src/models/generator/scripted-generator.ts';
import { createLibrary } from '../../src/library/library.ts';
import { LibraryModels } from '../../src/library/library-models.ts';
import { LibraryStore } from '../../src/store/library-store.ts';
import { openLibraryDb } from '../../src/store/schema.ts';

const CHUNK: ChunkOptions = { maxChars: 300, overlapChars: 40, parentChars: 900 };
const LEASE = '# Lease\n\n## Payment\n\nThe tenant pays the rent of 950 euros on the first day of each month.\n\n## Deposit\n\nThe deposit of two months of rent is returned within thirty days after the lease ends.\n';
const file = (name: string, text: string): IncomingFile => ({ name, folder: '', blob: new Blob([text]) });
let dbCount = 0;

async function openLibrary(models = new LibraryModels()) {
  const library = createLibrary(new LibraryStore(await openLibraryDb(`conversation-${Date.now()}-${dbCount++}`)), () => undefined, { chunk: CHUNK, models });
  await library.open();
  await library.startWriting();
  await library.queue.add([file('lease.md', LEASE)]);
  await library.processQueue();
  return library;
}

const count = (t: string) => Promise.resolve(countScriptedTokens(t));
const kindOf = (r: GenerateRequest) => (r.json ? 'rewrite' : r.messages[0]!.content.startsWith('You summarise') ? 'summary' : 'answer');

describe('Library conversations', () => {
  it('without a model: saves each turn, rewrites a follow-up by the rule, continues the conversation', async () => {
    const library = await openLibrary();
    const first = await library.asking.ask('When is the rent paid?');
    expect(first.conversationId).toBeDefined();
    expect(first.steps).toBeUndefined();
    const steps: AskStep[] = [];
    const second = await library.asking.ask('How much is it?', undefined, { conversationId: first.conversationId, onStep: (s) => steps.push(s) });
    const rewritten = { type: 'rewritten', question: 'How much is it?', standalone: 'How much is it? (rent paid)', by: 'rule' };
    expect(steps).toEqual([rewritten]);
    expect(second.steps).toEqual([rewritten]);
    expect(second.conversationId).toBe(first.conversationId);
    expect(second.citations[0]?.passage.docName).toBe('lease.md');

    const saved = await library.conversations.get(first.conversationId!);
    expect(saved?.title).toBe('When is the rent paid?');
    expect(saved?.turns.map((t) => [t.question, t.standalone])).toEqual([
      ['When is the rent paid?', 'When is the rent paid?'],
      ['How much is it?', 'How much is it? (rent paid)'],
    ]);
    // A question without a conversation starts a new one, listed first.
    const other = await library.asking.ask('When is the deposit returned?');
    expect(other.conversationId).not.toBe(first.conversationId);
    expect((await library.conversations.list()).map((c) => [c.title, c.turnCount])).toEqual([
      ['When is the deposit returned?', 1],
      ['When is the rent paid?', 2],
    ]);
  });

  it('with a model: the rewritten question is searched; the person\'s edit is used as it is and replaces the turn', async () => {
    const models = new LibraryModels();
    const library = await openLibrary(models);
    const generator = new ScriptedGenerator((_m, r) => (r.json ? '{"question": "When is the deposit returned?"}' : 'The deposit is returned within thirty days after the lease ends [1].'));
    models.setGenerator(generator);
    const first = await library.asking.ask('When is the rent paid?');
    expect(generator.requests.filter((r) => r.json)).toHaveLength(0);
    const second = await library.asking.ask('And the deposit?', undefined, { conversationId: first.conversationId });
    expect(second.steps).toEqual([{ type: 'rewritten', question: 'And the deposit?', standalone: 'When is the deposit returned?', by: 'model' }]);
    // The answer prompt has the standalone question and the earlier turn.
    const prompt = generator.requests.at(-1)!.messages;
    expect(prompt.at(-1)!.content.endsWith('Question: When is the deposit returned?')).toBe(true);
    expect(prompt.some((m) => m.role === 'user' && m.content === 'When is the rent paid?')).toBe(true);

    const rewrites = generator.requests.filter((r) => r.json).length;
    const edited = await library.asking.ask('And the deposit?', undefined, { conversationId: first.conversationId, standalone: 'How large is the deposit?', redo: true });
    expect(generator.requests.filter((r) => r.json)).toHaveLength(rewrites);
    expect(edited.steps).toEqual([{ type: 'rewritten', question: 'And the deposit?', standalone: 'How large is the deposit?', by: 'person' }]);
    const saved = await library.conversations.get(first.conversationId!);
    expect(saved?.turns.map((t) => t.standalone)).toEqual(['When is the rent paid?', 'How large is the deposit?']);
  });

  it('saves a stopped answer: what had been written', async () => {
    const models = new LibraryModels();
    const library = await openLibrary(models);
    models.setGenerator(new ScriptedGenerator(['The tenant pays the rent on the first day of each month [1]. More words follow here.'], { delayMs: 20 }));
    const asking = library.asking.ask('When is the rent paid?', undefined, {
      onText: (piece) => {
        if (piece.includes('month')) library.asking.stop();
      },
    });
    const answer = await asking;
    expect(answer.stopped).toBe(true);
    const saved = await library.conversations.get(answer.conversationId!);
    expect(saved?.turns[0]?.answer.stopped).toBe(true);
    expect(saved?.turns[0]?.answer.segments.map((s) => s.text).join(' ')).toContain('first day of each month');
  });

  it('a long chat never overflows the model\'s context: older turns are summarised, the summary kept and sent', async () => {
    const models = new LibraryModels();
    const library = await openLibrary(models);
    const long = 'The tenant pays the rent of 950 euros on the first day of each month [1].';
    let summaries = 0;
    const generator = new ScriptedGenerator(
      (messages, r) => {
        const kind = kindOf(r);
        if (kind === 'rewrite') return '{"question": "When is the rent of 950 euros paid each month?"}';
        if (kind === 'summary') return `Summary ${++summaries}: the person asked when the rent of 950 euros is paid; the first day of each month.`;
        return long;
      },
      { model: { contextTokens: 1024 } },
    );
    models.setGenerator(generator);
    let id = (await library.asking.ask('When is the rent paid?')).conversationId;
    for (let i = 0; i < 14; i++) id = (await library.asking.ask(`And in month ${i}?`, undefined, { conversationId: id })).conversationId;

    for (const r of generator.requests) {
      expect((await countMessageTokens(r.messages, count)) + (r.maxTokens ?? 0), kindOf(r)).toBeLessThanOrEqual(1024);
    }
    const saved = await library.conversations.get(id!);
    expect(saved?.turns).toHaveLength(15);
    expect(saved?.summary).toMatch(/^Summary \d+: /);
    expect(saved?.summarisedTurns).toBeGreaterThan(0);
    // The last answer's prompt carries the summary, and fewer turns than were asked.
    const last = generator.requests.filter((r) => kindOf(r) === 'answer').at(-1)!;
    expect(last.messages.at(-1)!.content).toContain(`<summary>\n${saved!.summary}\n</summary>`);
    expect(last.messages.filter((m) => m.role === 'assistant').length).toBeLessThan(14);
    // Summaries are written when turns drop out, ahead, not for every question.
    expect(summaries).toBeLessThan(10);
    expect(summaries).toBeGreaterThan(0);
  });
});
