// Self-query through a real Library (fake-indexeddb): a date range restricts retrieval, and with a model
// (scripted) the filters it reads from the question restrict the sources, reported as a step.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { IncomingFile } from '../../src/core/library-api.ts';
import type { AskStep } from '../../src/core/types.ts';
import type { Answerer } from '../../src/generate/answerer.ts';
import { isFilterRequest } from '../../src/question/read-filters.ts';
import { ScriptedGenerator } from '../../src/models/generator/scripted-generator.ts';
import { createLibrary } from '../../src/library/library.ts';
import { LibraryModels } from '../../src/library/library-models.ts';
import { LibraryStore } from '../../src/store/library-store.ts';
import { openLibraryDb } from '../../src/store/schema.ts';

const file = (name: string, text: string): IncomingFile => ({ name, folder: 'docs', blob: new Blob([text]) });
const LEASE = '# Lease\n\n## Pets\n\nThe tenant may keep one cat or one small dog; other pets need the landlord\'s written consent.\n';
const GUIDE = '# Renting guide\n\n## Pets\n\nMost landlords allow small pets such as a cat when the tenant pays a pet deposit.\n';
const QUESTION = "What does the landlord's contract say about pets?";
const day = (y: number, m: number, d: number) => new Date(y, m - 1, d).getTime();

/** An answerer that cites every passage retrieval found: the sources show what was searched. */
const ALL_PASSAGES: Answerer = {
  answer: (question, passages) => Promise.resolve({ question, found: false, segments: [], citations: passages.map((passage, i) => ({ n: i + 1, passage, quotes: [], marks: [] })) }),
};

let n = 0;
/** A library with the lease added on 1 May 2023 and the guide on 28 Nov 2024. */
async function openLibrary() {
  const models = new LibraryModels();
  const library = createLibrary(new LibraryStore(await openLibraryDb(`self-query-${Date.now()}-${n++}`)), () => undefined, { answerer: ALL_PASSAGES, models });
  await library.open();
  await library.startWriting();
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(day(2023, 5, 1));
  await library.queue.add([file('lease.md', LEASE)]);
  await library.processQueue();
  vi.setSystemTime(day(2024, 11, 28));
  await library.queue.add([file('guide.md', GUIDE)]);
  await library.processQueue();
  vi.useRealTimers();
  return { library, models };
}

/** Filter readings get `filters` (other requests `{}`): the model reads filters; answers cite every passage. */
function useModel(models: LibraryModels, filters: string): ScriptedGenerator {
  const generator = new ScriptedGenerator((messages) => (isFilterRequest(messages) ? filters : '{}'));
  models.setGenerator(generator);
  models.setAnswerer(ALL_PASSAGES);
  return generator;
}
const sourcesOf = (a: { citations: Array<{ passage: { docPath: string } }> }) => [...new Set(a.citations.map((c) => c.passage.docPath))].sort();

afterEach(() => {
  vi.useRealTimers();
});

describe('self-query in Library.ask', () => {
  it('restricts retrieval to documents added in a date range', async () => {
    const { library } = await openLibrary();
    expect(sourcesOf(await library.asking.ask('Which pets are allowed?'))).toEqual(['docs/guide.md', 'docs/lease.md']);
    expect(sourcesOf(await library.asking.ask('Which pets are allowed?', { added: { before: day(2024, 1, 1) } }))).toEqual(['docs/lease.md']);
    expect(sourcesOf(await library.asking.ask('Which pets are allowed?', { added: { from: day(2024, 11, 1) } }))).toEqual(['docs/guide.md']);
    // The documents' own dates: markdown has none, so nothing is left.
    expect((await library.asking.ask('Which pets are allowed?', { dated: { from: day(2000, 1, 1) } })).citations).toEqual([]);
  });

  it('with a model, searches only the document the model reads from the question, and reports it as a step', async () => {
    const { library, models } = await openLibrary();
    const generator = useModel(models, '{"documents": ["lease.md"], "folders": [], "types": [], "tags": [], "from": null, "to": null}');
    const steps: AskStep[] = [];
    const answer = await library.asking.ask(QUESTION, undefined, { readFilters: true, onStep: (s) => steps.push(s) });
    expect(sourcesOf(answer)).toEqual(['docs/lease.md']);
    const filters = steps.find((s) => s.type === 'filters');
    expect(filters).toMatchObject({ by: 'model', chips: [{ kind: 'document', label: 'docs/lease.md' }] });
    expect(answer.steps).toContainEqual(filters);
    // Not asked to: the question is not read for filters.
    const before = generator.requests.length;
    expect(sourcesOf(await library.asking.ask(QUESTION))).toEqual(['docs/guide.md', 'docs/lease.md']);
    expect(generator.requests.slice(before).some((r) => isFilterRequest(r.messages))).toBe(false);
  });

  it('applies chips the model read before as they are, without reading again; none left is no filter', async () => {
    const { library, models } = await openLibrary();
    const generator = useModel(models, '{"documents": ["guide.md"]}');
    const first = await library.asking.ask(QUESTION, undefined, { readFilters: true });
    expect(sourcesOf(first)).toEqual(['docs/guide.md']);
    const chips = first.steps!.flatMap((s) => (s.type === 'filters' ? s.chips : []));
    const again = await library.asking.ask(QUESTION, undefined, { readFilters: true, filterChips: chips });
    expect(sourcesOf(again)).toEqual(['docs/guide.md']);
    const none = await library.asking.ask(QUESTION, undefined, { readFilters: true, filterChips: [] });
    expect(sourcesOf(none)).toEqual(['docs/guide.md', 'docs/lease.md']);
    expect(none.steps ?? []).not.toContainEqual(expect.objectContaining({ type: 'filters' }));
    expect(generator.requests.filter((r) => isFilterRequest(r.messages))).toHaveLength(1);
    // A kept chip whose document was deleted since restricts nothing.
    const kept = chips.flatMap((c) => (c.kind === 'document' ? [c.docId] : []));
    expect(kept).toHaveLength(1);
    await library.documents.delete(kept[0]!);
    const gone = await library.asking.ask(QUESTION, undefined, { filterChips: chips });
    expect(sourcesOf(gone)).toEqual(['docs/lease.md']);
    expect(gone.steps ?? []).not.toContainEqual(expect.objectContaining({ type: 'filters' }));
  });

  it('gives no filter for a document the library lacks, and drops a reading that would empty the person\'s own filter', async () => {
    const { library, models } = await openLibrary();
    useModel(models, '{"documents": ["tenancy agreement.pdf"]}');
    const unknown = await library.asking.ask(QUESTION, undefined, { readFilters: true });
    expect(sourcesOf(unknown)).toEqual(['docs/guide.md', 'docs/lease.md']);
    expect(unknown.steps ?? []).not.toContainEqual(expect.objectContaining({ type: 'filters' }));

    useModel(models, '{"documents": ["lease.md"]}');
    const mine = await library.asking.ask(QUESTION, { added: { from: day(2024, 1, 1) } }, { readFilters: true });
    expect(sourcesOf(mine)).toEqual(['docs/guide.md']);
    // A reading within the person's filter narrows it.
    const narrowed = await library.asking.ask(QUESTION, { folders: ['docs'] }, { readFilters: true });
    expect(sourcesOf(narrowed)).toEqual(['docs/lease.md']);
  });

  it('does not ask the model for filters when the search covers one document: a library of one, or the person\'s filter leaves one', async () => {
    const { library, models } = await openLibrary();
    const generator = useModel(models, '{"documents": ["lease.md"]}');
    const filterReadings = () => generator.requests.filter((r) => isFilterRequest(r.messages)).length;
    const one = await library.asking.ask(QUESTION, { added: { from: day(2024, 1, 1) } }, { readFilters: true });
    expect(sourcesOf(one)).toEqual(['docs/guide.md']);
    expect(filterReadings()).toBe(0);
    expect(one.steps ?? []).not.toContainEqual(expect.objectContaining({ type: 'filters' }));
    // Two documents to search: the model reads the question.
    expect(sourcesOf(await library.asking.ask(QUESTION, undefined, { readFilters: true }))).toEqual(['docs/lease.md']);
    expect(filterReadings()).toBe(1);
    // The library down to one document.
    const lease = (await library.documents.list()).find((d) => d.name === 'lease.md')!;
    await library.documents.delete(lease.docId!);
    expect(sourcesOf(await library.asking.ask(QUESTION, undefined, { readFilters: true }))).toEqual(['docs/guide.md']);
    expect(filterReadings()).toBe(1);
  });

  it('reads nothing without a model', async () => {
    const { library } = await openLibrary();
    const answer = await library.asking.ask(QUESTION, undefined, { readFilters: true });
    expect(sourcesOf(answer)).toEqual(['docs/guide.md', 'docs/lease.md']);
  });
});
