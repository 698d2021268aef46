/** Writes that cannot be lost or half-done: same names, concurrent tabs, Delete at every stage, snapshots, repair. */
import { describe, expect, it, vi } from 'vitest';
import type { IncomingFile } from '../../src/core/library-api.ts';
import type { LibraryEvent } from '../../src/core/types.ts';
import type { ChunkOptions } from '../../src/ingest/chunk.ts';
import { ChunkOwners } from '../../src/index/chunk-owners.ts';
import { IndexSet } from '../../src/index/index-set.ts';
import { LexicalIndex } from '../../src/index/lexical-index.ts';
import { SegmentMerge } from '../../src/index/segment-merge.ts';
import { createLibrary, type LibraryOptions } from '../../src/library/library.ts';
import { LibraryStore } from '../../src/store/library-store.ts';
import { openLibraryDb } from '../../src/store/schema.ts';

const CHUNK: ChunkOptions = { maxChars: 300, overlapChars: 40, parentChars: 900 };
let dbCount = 0;
const freshName = () => `hardening-${Date.now()}-${dbCount++}`;
const file = (name: string, text: string, folder = ''): IncomingFile => ({ name, folder, blob: new Blob([text]) });
const doneEvents = (events: LibraryEvent[]) => events.flatMap((e) => (e.type === 'file-done' ? [`${e.path}: ${e.outcome}`] : []));

async function open(name: string, options: Partial<LibraryOptions> = {}) {
  const events: LibraryEvent[] = [];
  const store = new LibraryStore(await openLibraryDb(name));
  const library = createLibrary(store, (e) => events.push(e), { chunk: CHUNK, snapshotDelayMs: 60_000, ...options });
  await library.open();
  return { library, store, events };
}

/** A Markdown document long enough to be added to the index in several slices (> 2,000 chunks). */
function bigMarkdown(paragraphs: number, topic: string): string {
  const out = [`# ${topic}`];
  for (let i = 0; i < paragraphs; i++) out.push(`Paragraph ${i} about the ${topic} mentions item${i} and the figure ${i * 7} exactly once in this long report.`);
  return out.join('\n\n');
}

describe('writes that cannot be lost or half-done', () => {
  it('keeps two different files with the same name and no folder as two documents; a folder path still replaces', async () => {
    const { library, events } = await open(freshName());
    await library.startWriting();
    await library.queue.add([file('notes.txt', 'The otter sleeps in the reeds.'), file('notes.txt', 'The heron fishes at dawn.')]);
    await library.processQueue();
    expect(doneEvents(events)).toEqual(['notes.txt: indexed', 'notes.txt: indexed']);
    const docs = (await library.documents.list()).filter((i) => i.kind === 'document');
    expect(docs.map((d) => d.name)).toEqual(['notes.txt', 'notes.txt']);
    expect((await library.asking.ask('otter reeds')).citations[0]?.passage.docName).toBe('notes.txt');
    expect((await library.asking.ask('heron dawn')).citations[0]?.passage.docName).toBe('notes.txt');

    events.length = 0;
    await library.queue.add([file('plan.md', '# Plan\n\nVersion one of the plan.', 'work')]);
    await library.processQueue();
    await library.queue.add([file('plan.md', '# Plan\n\nVersion two of the plan.', 'work')]);
    await library.processQueue();
    expect(doneEvents(events)).toEqual(['work/plan.md: indexed', 'work/plan.md: replaced']);
  });

  it('gives files dropped at the same millisecond in two tabs different queue keys, so none overwrites another', async () => {
    const name = freshName();
    const [a, b] = [new LibraryStore(await openLibraryDb(name)), new LibraryStore(await openLibraryDb(name))];
    const now = 1_790_000_000_000;
    const item = (n: string) => ({ name: n, folder: '', path: n, blob: new Blob([n]) });
    await Promise.all([a.enqueue([item('a1.txt'), item('a2.txt')], now), b.enqueue([item('b1.txt'), item('b2.txt')], now)]);
    expect((await a.listQueue()).map((q) => q.name).sort()).toEqual(['a1.txt', 'a2.txt', 'b1.txt', 'b2.txt']);
  });

  it('Delete on the row of a file committed a moment ago deletes its document, even mid-insertion into the index', async () => {
    const { library, store, events } = await open(freshName());
    const commit = store.commitDocument.bind(store);
    let outcome: Promise<string> | undefined;
    vi.spyOn(store, 'commitDocument').mockImplementation(async (prepared, queueId, replaces) => {
      const result = await commit(prepared, queueId, replaces);
      // The person presses Delete on the row that still says "Indexing 95%".
      if (prepared.doc.name === 'big.md') outcome = library.queue.dismiss(queueId!);
      return result;
    });
    await library.startWriting();
    await library.queue.add([file('big.md', bigMarkdown(5000, 'walrus')), file('small.md', '# Small\n\nThe otter sleeps in the reeds.')]);
    await library.processQueue();
    expect(await outcome).toBe('deleted');
    expect((await library.documents.list()).map((i) => `${i.name} ${i.kind}`)).toEqual(['small.md document']);
    expect((await library.asking.ask('walrus item17')).citations).toEqual([]);
    expect(library.indexedChunks).toBe(1);
    expect(doneEvents(events)).toContain('small.md: indexed');
  });

  it('never saves a snapshot holding part of a document, and a start-up repairs a document the index holds only in part', async () => {
    const name = freshName();
    const { library, store } = await open(name);
    const saved: string[] = [];
    const save = store.saveSnapshots.bind(store);
    vi.spyOn(store, 'saveSnapshots').mockImplementation((list) => (saved.push(list.find((s) => s.name === 'owners')!.data as string), save(list)));
    const commit = store.commitDocument.bind(store);
    vi.spyOn(store, 'commitDocument').mockImplementation(async (prepared, queueId, replaces) => {
      const result = await commit(prepared, queueId, replaces);
      // The snapshot timer fires between two slices of big.md's insertion into the index.
      setTimeout(() => void library.saveSnapshot(), 0);
      return result;
    });
    await library.startWriting();
    await library.queue.add([file('small.md', '# Small\n\nThe otter sleeps in the reeds.'), file('big.md', bigMarkdown(5000, 'walrus'))]);
    await library.processQueue();
    await library.saveSnapshot();
    const docs = await store.listDocuments();
    const whole = new Map(docs.map((d) => [d.id, d.distinctChunks]));
    expect(Math.max(...[...whole.values()].map((n) => n ?? 0))).toBeGreaterThan(2000);
    expect(saved.length).toBeGreaterThan(0);
    for (const data of saved) {
      for (const [docId, count] of ChunkOwners.load(data).chunkCounts()) expect(count).toBe(whole.get(docId));
    }

    // A snapshot that holds part of big.md (as an older version of the app could save) is repaired at start-up.
    const big = docs.find((d) => d.name === 'big.md')!;
    const lexical = await store.loadSnapshot('lexical');
    const partial = new IndexSet(ChunkOwners.load(saved.at(-1)!), LexicalIndex.load(lexical!.data as string));
    await partial.remove((await store.indexEntriesOf([big.id])).slice(1500));
    await store.saveSnapshots([
      { name: 'owners', version: 1, data: partial.owners.serialize(), savedAt: Date.now() },
      { name: 'lexical', version: 1, data: partial.lexical.serialize(), savedAt: Date.now() },
    ]);
    const { library: reopened } = await open(name);
    expect(reopened.indexedChunks).toBe(library.indexedChunks);
    expect((await reopened.asking.ask('item4900 walrus')).citations[0]?.passage.docName).toBe('big.md');
  });

  it('a tab that dies while its index merges segments loses nothing: the next start has every committed document, searchable', async () => {
    const name = freshName();
    const { library, store } = await open(name);
    await library.startWriting();
    // 1,200-chunk documents each go into a segment of their own; the second makes the first two merge.
    await library.queue.add([file('otter.md', bigMarkdown(1200, 'otter'))]);
    await library.processQueue();
    await library.saveSnapshot();
    let merges = 0;
    const merge = vi.spyOn(SegmentMerge.prototype, 'run').mockImplementation(() => {
      merges++;
      // The tab dies here: nothing it does after this moment reaches the database.
      store.db.close();
      throw new Error('the tab was killed');
    });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      await library.queue.add([file('walrus.md', bigMarkdown(1200, 'walrus'))]);
      await library.processQueue().catch(() => undefined);
    } finally {
      merge.mockRestore();
      warn.mockRestore();
    }
    expect(merges).toBeGreaterThan(0);

    const { library: reopened, store: after } = await open(name);
    const docs = await after.listDocuments();
    expect(docs.map((d) => d.name).sort()).toEqual(['otter.md', 'walrus.md']);
    const counts = reopened.indexedChunkCounts();
    for (const d of docs) expect(counts.get(d.id)).toBe(d.distinctChunks);
    expect((await reopened.asking.ask('item1150 walrus')).citations[0]?.passage.docName).toBe('walrus.md');
    expect((await reopened.asking.ask('item1150 otter')).citations[0]?.passage.docName).toBe('otter.md');
    // And the reopened index merges as usual from here on.
    await reopened.startWriting();
    await reopened.queue.add([file('heron.md', bigMarkdown(1200, 'heron'))]);
    await reopened.processQueue();
    expect(reopened.indexedChunks).toBe(docs.reduce((n, d) => n + (d.distinctChunks ?? 0), 0) + (await after.listDocuments()).find((d) => d.name === 'heron.md')!.distinctChunks!);
  });

  it('counts files another tab queued from the start of the run, not one at a time', async () => {
    const name = freshName();
    const { library, events } = await open(name);
    const otherTab = new LibraryStore(await openLibraryDb(name));
    await otherTab.enqueue(['a', 'b', 'c'].map((n) => ({ name: `${n}.md`, folder: '', path: `${n}.md`, blob: new Blob([`# ${n}\n\nThe ${n} otter sleeps.`]) })));
    await library.startWriting();
    const totals = events.flatMap((e) => (e.type === 'queue' ? [`${e.done}/${e.total}`] : []));
    expect(totals[0]).toBe('0/3');
    expect(totals.at(-1)).toBe('3/3');
    expect(new Set(totals.map((t) => t.split('/')[1]))).toEqual(new Set(['3']));
  });

  it('keeps going when the queue cannot be read for a moment, and indexes everything once it can', async () => {
    const { library, store, events } = await open(freshName(), { queueRetryMs: 10 });
    const next = store.nextQueued.bind(store);
    let failures = 1;
    vi.spyOn(store, 'nextQueued').mockImplementation((after) => (failures-- > 0 ? Promise.reject(new DOMException('The database connection is closing.', 'InvalidStateError')) : next(after)));
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    await library.queue.add([file('a.md', '# A\n\nThe otter sleeps in the reeds.')]);
    await library.startWriting();
    await vi.waitFor(() => expect(doneEvents(events)).toEqual(['a.md: indexed']));
    expect(error).toHaveBeenCalledWith('ingest queue stopped; starting it again shortly', expect.any(DOMException));
    error.mockRestore();
  });
});
