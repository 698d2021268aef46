import { describe, expect, it } from 'vitest';
import type { AskStep, Answer } from '../../src/core/types.ts';
import { MAP_RULES } from '../../src/generate/map-reduce-prompt.ts';
import { ScriptedGenerator } from '../../src/models/generator/scripted-generator.ts';
import { createLibrary } from '../../src/library/library.ts';
import { LibraryModels } from '../../src/library/library-models.ts';
import { LibraryStore } from '../../src/store/library-store.ts';
import { openLibraryDb } from '../../src/store/schema.ts';

const TOPICS = ['rent', 'deposit', 'heating', 'garden', 'keys', 'pets', 'noise', 'insurance', 'parking', 'waste', 'painting', 'termination'];
/** A lease of `n` sections, each with its own first sentence and a deadline in its second. */
function lease(n: number): string {
  const sections = Array.from({ length: n }, (_, i) => {
    const topic = TOPICS[i % TOPICS.length]!;
    return `## Clause ${i + 1}: ${topic}\n\nClause ${i + 1} is about the ${topic} of the flat. The ${topic} deadline is day ${i + 1} of the month. The tenant and the landlord both sign this clause.`;
  });
  return `# Lease\n\n${sections.join('\n\n')}\n`;
}

let seq = 0;
async function libraryWith(files: Record<string, string>, models = new LibraryModels()) {
  const library = createLibrary(new LibraryStore(await openLibraryDb(`whole-document-${Date.now()}-${seq++}`)), () => undefined, { snapshotDelayMs: 60_000, models });
  await library.open();
  await library.startWriting();
  await library.queue.add(Object.entries(files).map(([name, text]) => ({ name, folder: '', blob: new Blob([text]) })));
  await library.processQueue();
  return library;
}

const labels = (a: Answer) => a.citations.map((c) => c.passage.label);

describe('Library: questions about a whole document', () => {
  it('without a model: "Summarise lease.md" quotes the first sentence of every section, in order, and reports the sections read', async () => {
    const library = await libraryWith({ 'lease.md': lease(5), 'loan.md': '# Loan\n\nThe loan is 12000 euros.\n' });
    const steps: AskStep[] = [];
    const answer = await library.asking.ask('Summarise lease.md', undefined, { onStep: (s) => steps.push(s) });
    expect(answer.found).toBe(true);
    expect(answer.segments.map((s) => s.text)).toEqual(TOPICS.slice(0, 5).map((t, i) => `Clause ${i + 1} is about the ${t} of the flat.`));
    expect(labels(answer)).toEqual(TOPICS.slice(0, 5).map((t, i) => `Lease › Clause ${i + 1}: ${t}`));
    expect(steps.at(-1)).toMatchObject({ type: 'whole-document', docPath: 'lease.md', done: 5, total: 5 });
    expect(answer.steps?.at(-1)).toEqual(steps.at(-1));
  });

  it('without a model: "List every deadline in the lease" quotes each section\'s deadline', async () => {
    const library = await libraryWith({ 'lease.md': lease(4), 'loan.md': '# Loan\n\nThe loan is 12000 euros.\n' });
    const answer = await library.asking.ask('List every deadline in the lease');
    expect(answer.segments.map((s) => s.text)).toEqual(TOPICS.slice(0, 4).map((t, i) => `The ${t} deadline is day ${i + 1} of the month.`));
  });

  it('a question about a passage still retrieves the top passages', async () => {
    const library = await libraryWith({ 'lease.md': lease(4), 'loan.md': '# Loan\n\nThe loan is 12000 euros.\n' });
    const steps: AskStep[] = [];
    const answer = await library.asking.ask('When is the heating deadline?', undefined, { onStep: (s) => steps.push(s) });
    expect(steps).toEqual([]);
    expect(answer.segments[0]?.text).toBe('The heating deadline is day 3 of the month.');
  });

  it('with a model: a 200-section document is read in parts within its window, with progress, and Stop keeps the notes so far', async () => {
    const models = new LibraryModels();
    const library = await libraryWith({ 'lease.md': lease(200), 'loan.md': '# Loan\n\nThe loan is 12000 euros.\n' }, models);
    const generator = new ScriptedGenerator(
      (messages) => {
        const numbers = [...messages[1]!.content.matchAll(/<passage n="(\d+)"/g)].map((m) => Number(m[1]));
        // Short notes: a part's notes stay under the notes' token limit.
        return numbers.map((n) => `Deadline day ${n} [${n}].`).join(' ');
      },
      { model: { contextTokens: 2048 } },
    );
    models.setGenerator(generator);
    const steps: AskStep[] = [];
    // The toggle: the document by its id, for a question the rule would not take.
    const docId = (await library.documents.list()).find((i) => i.name === 'lease.md')!.docId!;
    const answer = await library.asking.ask('When are the deadlines?', undefined, {
      wholeDocument: docId,
      onStep: (s) => {
        steps.push(s);
        if (s.type === 'whole-document' && s.done === 3) library.asking.stop();
      },
    });
    const progress = steps.flatMap((s) => (s.type === 'whole-document' ? [s.done] : []));
    const total = steps[0]?.type === 'whole-document' ? steps[0].total : 0;
    expect(total).toBeGreaterThan(3);
    expect(total).toBeLessThan(200);
    expect(progress).toEqual([0, 1, 2, 3]);
    expect(generator.requests.length).toBe(3);
    expect(generator.requests.every((r) => r.messages[0]!.content === MAP_RULES)).toBe(true);
    expect(answer.stopped).toBe(true);
    expect(answer.found).toBe(true);
    // The notes of the three parts read, each citing its own section.
    const read = generator.requests.flatMap((r) => [...r.messages[1]!.content.matchAll(/<passage n="(\d+)"/g)].map((m) => Number(m[1])));
    expect(answer.citations.length).toBe(read.length);
    expect(answer.citations.map((c) => c.passage.label)).toEqual(read.map((n) => `Lease › Clause ${n}: ${TOPICS[(n - 1) % TOPICS.length]}`));
  });
});
