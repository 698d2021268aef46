// Query expansion and multi-hop through the Library, over real indexed documents with the
// scripted generator: JSON requests (phrasings, the judgement) take their replies from one list, the
// answer from the script.
import { describe, expect, it } from 'vitest';
import type { IncomingFile } from '../../src/core/library-api.ts';
import type { AskStep } from '../../src/core/types.ts';
import type { ChatMessage } from '../../src/models/generator/generator.ts';
import { ScriptedGenerator } from '../../src/models/generator/scripted-generator.ts';
import type { ChunkOptions } from '../../src/ingest/chunk.ts';
import { createLibrary } from '../../src/library/library.ts';
import { LibraryModels } from '../../src/library/library-models.ts';
import { LibraryStore } from '../../src/store/library-store.ts';
import { openLibraryDb } from '../../src/store/schema.ts';

const CHUNK: ChunkOptions = { maxChars: 300, overlapChars: 40, parentChars: 900 };
const file = (name: string, text: string): IncomingFile => ({ name, folder: 'flat', blob: new Blob([text]) });

// The schedule shares no word with the question: only a search for what the lease leaves open finds it.
const LEASE = '# Lease\n\n## Rent and heating\n\nThe tenant pays 950 euros rent each month. Heating is looked after according to the maintenance schedule.\n';
const SCHEDULE = '# Maintenance schedule\n\n## Boiler\n\nThe plumber Marek Nowak services the boiler every October.\n';
const GARDEN = '# House rules\n\n## Garden\n\nThe garden is shared by all residents and closes at ten in the evening.\n';
const QUESTION = 'Who looks after the heating for the tenant paying 950 euros rent?';

let n = 0;
async function openLibrary(models = new LibraryModels()) {
  const library = createLibrary(new LibraryStore(await openLibraryDb(`ask-steps-${Date.now()}-${n++}`)), () => undefined, { chunk: CHUNK, models });
  await library.open();
  await library.startWriting();
  await library.queue.add([file('lease.md', LEASE), file('schedule.md', SCHEDULE), file('rules.md', GARDEN)]);
  await library.processQueue();
  return library;
}

/** The number the answer prompt gives the passage from `doc`. */
function numberOf(messages: readonly ChatMessage[], doc: string): string {
  const match = messages.at(-1)!.content.match(new RegExp(`<passage n="(\\d+)" source="${doc}`));
  return match?.[1] ?? '0';
}

/** JSON replies in turn; the answer cites the schedule's passage by the number the prompt gave it. */
function scripted(json: string[]) {
  return new ScriptedGenerator((messages, request) => (request.json ? json.shift() ?? '{}' : `Marek Nowak services the boiler every October [${numberOf(messages, 'schedule.md')}].`));
}

describe('Library.ask with phrasings and hops', () => {
  it('answers a two-hop question from a passage only the second hop found, reporting each hop', async () => {
    const models = new LibraryModels();
    const library = await openLibrary(models);
    const generator = scripted([
      JSON.stringify({ sufficient: false, missing: 'who carries out the maintenance schedule', next_query: 'maintenance schedule' }),
      JSON.stringify({ sufficient: true, missing: '', next_query: '' }),
    ]);
    models.setGenerator(generator);
    const steps: AskStep[] = [];
    const answer = await library.asking.ask(QUESTION, undefined, { multiHop: true, onStep: (s) => steps.push(s) });

    expect(answer.steps).toEqual(steps);
    const hops = steps.flatMap((s) => (s.type === 'hop' ? [s] : []));
    expect(hops.map((h) => [h.hop, h.query, h.sufficient])).toEqual([[1, QUESTION, false], [2, 'maintenance schedule', true]]);
    expect(hops[0]!.missing).toBe('who carries out the maintenance schedule');
    expect(hops[0]!.passages.map((p) => p.docPath)).not.toContain('flat/schedule.md');
    expect(hops[1]!.passages.map((p) => p.docPath)).toEqual(['flat/schedule.md']);

    expect(answer.found).toBe(true);
    expect(answer.segments[0]!.text).toContain('Marek Nowak services the boiler');
    expect(answer.citations.map((c) => c.passage.docPath)).toEqual(['flat/schedule.md']);
    expect(answer.citations[0]!.passage.chunkId).toBe(hops[1]!.passages[0]!.chunkId);
    // Two judgements and the answer; the answer's prompt held both hops' passages.
    expect(generator.requests.map((r) => !!r.json)).toEqual([true, true, false]);
    expect(generator.requests[2]!.messages.at(-1)!.content).toContain('950 euros');
  });

  it('without hops, the same question has no passage from the schedule to cite', async () => {
    const models = new LibraryModels();
    const library = await openLibrary(models);
    const generator = scripted([]);
    models.setGenerator(generator);
    const answer = await library.asking.ask(QUESTION);
    expect(answer.steps).toBeUndefined();
    expect(generator.requests.map((r) => !!r.json)).toEqual([false]);
    expect(generator.requests[0]!.messages.at(-1)!.content).not.toContain('schedule.md');
    // The model's sentence has no source to cite: it is marked, and the schedule is not among the Sources.
    expect(answer.segments[0]).toMatchObject({ unsupported: true });
    expect(answer.citations.map((c) => c.passage.docPath)).not.toContain('flat/schedule.md');
  });

  it('searches the phrasings the model writes, fused, and says so in "Why this passage"', async () => {
    const models = new LibraryModels();
    const library = await openLibrary(models);
    const generator = scripted([JSON.stringify({ queries: ['boiler servicing plumber', 'heating maintenance'] })]);
    models.setGenerator(generator);
    const steps: AskStep[] = [];
    const answer = await library.asking.ask('Who looks after the heating?', undefined, { expand: true, onStep: (s) => steps.push(s) });
    expect(steps).toEqual([{ type: 'expanded', queries: ['Who looks after the heating?', 'boiler servicing plumber', 'heating maintenance'] }]);
    expect(answer.steps).toEqual(steps);
    expect(answer.citations.map((c) => c.passage.docPath)).toEqual(['flat/schedule.md']);
    expect(answer.citations[0]!.passage.why).toMatch(/^Phrasings 2\/3 · BM25 #1 · RRF /);
  });

  it('without a model, expand and multiHop do nothing and report no step', async () => {
    const library = await openLibrary();
    const steps: AskStep[] = [];
    const answer = await library.asking.ask(QUESTION, undefined, { expand: true, multiHop: true, onStep: (s) => steps.push(s) });
    expect(steps).toEqual([]);
    expect(answer.steps).toBeUndefined();
    expect(answer.generatedBy).toBeUndefined();
    expect(answer.citations[0]!.passage.why).not.toContain('Phrasings');
  });
});
