// Semantic search in the library, end to end in Node: fake-indexeddb, the real transformers.js loading
// and inference code on the generated tiny encoder (local folder, every fetch refused). Background
// embedding after commit, hybrid answers with both ranks, vectors persisted and reused after a restart
// (the embedder is not called again), identical chunks embedded once, deletes, refusals, and an
// upgrade from a version-2 library.
import { openDB } from 'idb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { IncomingFile } from '../../src/core/library-api.ts';
import type { EmbeddingEvent, LibraryEvent } from '../../src/core/types.ts';
import { chunkEmbedderOf, type ChunkEmbedder } from '../../src/embed/chunk-embedder.ts';
import { loadEmbedder } from '../../src/models/encoder/embedder.ts';
import { loadReranker } from '../../src/models/cross-encoder/reranker.ts';
import type { ChunkOptions } from '../../src/ingest/chunk.ts';
import { createLibrary } from '../../src/library/library.ts';
import { LibraryModels } from '../../src/library/library-models.ts';
import { localModel, localReranker } from '../../src/models/catalogue.ts';
import { LibraryStore } from '../../src/store/library-store.ts';
import { DB_VERSION, openLibraryDb } from '../../src/store/schema.ts';
import { VectorStore } from '../../src/store/vector-store.ts';
import { createTinyModelDir, type TinyModelDir } from '../support/tiny-model-dir.ts';

const CHUNK: ChunkOptions = { maxChars: 300, overlapChars: 40, parentChars: 900 };
const MODEL = localModel({ folder: 'tiny-encoder', dims: 32, pooling: 'mean' });
const SHARED = 'Both contracts are governed by the law of the Netherlands and disputes go to the court of Utrecht.';
const LEASE = `# Lease\n\n## Payment\n\nThe tenant pays the rent of 950 euros on the first day of each month.\n\n## Law\n\n${SHARED}\n`;
const LOAN = `# Loan\n\n## Instalments\n\nThe borrower repays 12000 euros in twenty-four monthly instalments.\n\n## Law\n\n${SHARED}\n`;

const file = (name: string, text: string): IncomingFile => ({ name, folder: '', blob: new Blob([text]) });
let dbCount = 0;
const freshName = () => `semantic-test-${Date.now()}-${dbCount++}`;

let tiny: TinyModelDir;
let base: ChunkEmbedder;
beforeAll(async () => {
  tiny = await createTinyModelDir();
  base = chunkEmbedderOf(await loadEmbedder(MODEL, { source: { kind: 'folder', root: tiny.dir } }));
});
afterAll(async () => {
  expect(tiny.fetched).toEqual([]);
  await tiny.remove();
});

/** The tiny embedder, recording every text it is asked to embed. */
function counting(): ChunkEmbedder & { texts: string[] } {
  const texts: string[] = [];
  return {
    model: base.model,
    texts,
    embedChunks: (t) => (texts.push(...t), base.embedChunks(t)),
    embedQuery: (t) => base.embedQuery(t),
  };
}

async function open(name: string, embedder?: ChunkEmbedder) {
  const events: LibraryEvent[] = [];
  const store = new LibraryStore(await openLibraryDb(name));
  const models = new LibraryModels();
  const library = createLibrary(store, (e) => events.push(e), { chunk: CHUNK, snapshotDelayMs: 60_000, embedding: { batchSize: 2 }, models });
  await library.open();
  if (embedder) await models.setEmbedder(embedder);
  await library.startWriting();
  return { library, events, store, models };
}

const embeddingEvents = (events: LibraryEvent[]) => events.filter((e): e is EmbeddingEvent => e.type === 'embedding');

describe('semantic search in the library', () => {
  it('embeds every chunk in the background after commit, once per distinct text, with progress, and answers with both ranks', async () => {
    const name = freshName();
    const embedder = counting();
    const { library, events } = await open(name, embedder);
    await library.queue.add([file('lease.md', LEASE), file('loan.md', LOAN)]);
    await library.processQueue();
    await library.embeddingIdle();

    expect(library.embeddedChunks).toBe(library.indexedChunks);
    // The paragraph both contracts hold is one chunk (its id is its content hash): embedded once.
    expect(embedder.texts.filter((t) => t.includes('court of Utrecht'))).toHaveLength(1);
    expect(new Set(embedder.texts).size).toBe(embedder.texts.length);
    // Each chunk is embedded as BM25 indexes it: after its document's title.
    expect(embedder.texts).toContain('Lease\n\nThe tenant pays the rent of 950 euros on the first day of each month.');
    expect(embedder.texts.every((t) => t.startsWith('Lease\n\n') || t.startsWith('Loan\n\n'))).toBe(true);

    const progress = embeddingEvents(events);
    const embedding = progress.filter((e) => e.state === 'embedding');
    expect(embedding.length).toBeGreaterThan(1);
    expect(embedding.some((e) => e.doc?.path === 'lease.md')).toBe(true);
    for (let i = 1; i < embedding.length; i++) expect(embedding[i]!.done).toBeGreaterThanOrEqual(embedding[i - 1]!.done);
    expect(progress.at(-1)).toMatchObject({ state: 'ready', done: library.indexedChunks, total: library.indexedChunks, model: 'tiny-encoder' });

    const answer = await library.asking.ask('When is the rent paid?');
    const why = answer.citations.map((c) => c.passage.why);
    expect(why[0]).toMatch(/^BM25 #\d+ · Dense (#\d+|–) · RRF 0\.\d{4}$/);
    // Every passage was ranked by the dense index too (it ranks every chunk).
    for (const c of answer.citations) expect(c.passage.ranks.map((r) => r.name)).toContain('Dense');
  });

  it('embeds texts of like length together: no batch mixes a short chunk with a long one', async () => {
    const calls: string[][] = [];
    const embedder: ChunkEmbedder = { model: base.model, embedChunks: (t) => (calls.push([...t]), base.embedChunks(t)), embedQuery: (t) => base.embedQuery(t) };
    const { library } = await open(freshName(), embedder);
    // Sections alternating a one-line paragraph and a long one: in document order every batch of two
    // would pair a short text with a long one, and pad the short one to the long one's length.
    const long = 'The tenant keeps the garden tidy, mows the lawn every second week in summer and clears the leaves from the gutters each autumn before the first frost.';
    const sections = Array.from({ length: 8 }, (_, i) => `## Part ${i}\n\n${i % 2 ? long : `Rule ${i} applies.`}\n`).join('\n');
    await library.queue.add([file('rules.md', `# Rules\n\n${sections}`)]);
    await library.processQueue();
    await library.embeddingIdle();

    expect(library.embeddedChunks).toBe(library.indexedChunks);
    const embedded = calls.flat();
    expect(embedded.filter((t) => t.includes('gutters')).length).toBeGreaterThan(0);
    expect(embedded.filter((t) => /Rule \d applies/.test(t)).length).toBeGreaterThan(0);
    for (const batch of calls) {
      const lengths = batch.map((t) => t.length);
      expect(Math.max(...lengths) / Math.min(...lengths), `a batch of ${JSON.stringify(batch)}`).toBeLessThan(2);
    }
  });

  it('stops embedding a document deleted mid-way: its chunks still waiting are not embedded', async () => {
    const calls: string[][] = [];
    let deleteNow: (() => Promise<void>) | undefined;
    const embedder: ChunkEmbedder = {
      model: base.model,
      embedChunks: async (t) => {
        calls.push([...t]);
        const del = deleteNow;
        deleteNow = undefined;
        await del?.();
        return base.embedChunks(t);
      },
      embedQuery: (t) => base.embedQuery(t),
    };
    const { library, store } = await open(freshName(), embedder);
    // Ten sections: more chunks than one batch of two, all in one window of eight batches.
    const sections = Array.from({ length: 10 }, (_, i) => `## Part ${i}\n\nClause ${i} of the rules says something of its own, numbered ${i}.\n`).join('\n');
    deleteNow = async () => {
      const doc = (await store.listDocuments()).find((d) => d.name === 'rules.md')!;
      await library.documents.delete(doc.id);
    };
    await library.queue.add([file('rules.md', `# Rules\n\n${sections}`)]);
    await library.processQueue();
    await library.embeddingIdle();

    // The first batch was being embedded when the delete came; nothing after it.
    expect(calls).toHaveLength(1);
    expect(library.indexedChunks).toBe(0);
    expect(library.embeddedChunks).toBe(0);
  });

  it('reuses stored vectors after a restart without embedding again, and embeds only what is new', async () => {
    const name = freshName();
    const first = await open(name, counting());
    await first.library.queue.add([file('lease.md', LEASE)]);
    await first.library.processQueue();
    await first.library.embeddingIdle();
    await first.library.saveSnapshot();
    const chunks = first.library.indexedChunks;

    const embedder = counting();
    const again = await open(name, embedder);
    await again.library.embeddingIdle();
    expect(again.library.embeddedChunks).toBe(chunks);
    expect(embedder.texts).toEqual([]);

    await again.library.queue.add([file('loan.md', LOAN)]);
    await again.library.processQueue();
    await again.library.embeddingIdle();
    expect(again.library.embeddedChunks).toBe(again.library.indexedChunks);
    // Only the loan's own chunks: the shared paragraph already had its vector.
    expect(embedder.texts.some((t) => t.includes('court of Utrecht'))).toBe(false);
    expect(embedder.texts.some((t) => t.includes('twenty-four monthly instalments'))).toBe(true);
  });

  it('keeps BM25 answering while no model is in use, and says so', async () => {
    const { library } = await open(freshName());
    await library.queue.add([file('lease.md', LEASE)]);
    await library.processQueue();
    expect(library.embeddingStatus.state).toBe('off');
    const answer = await library.asking.ask('When is the rent paid?');
    expect(answer.citations[0]!.passage.why).toMatch(/^BM25 #1 · RRF /);
  });

  it('deletes the vectors of chunks that leave the library, and keeps those still shared', async () => {
    const name = freshName();
    const { library, store } = await open(name, counting());
    await library.queue.add([file('lease.md', LEASE), file('loan.md', LOAN)]);
    await library.processQueue();
    await library.embeddingIdle();
    const vectors = new VectorStore(store.db);
    const before = (await vectors.chunkIds(MODEL.id)).length;
    const lease = (await store.listDocuments()).find((d) => d.name === 'lease.md')!;
    await library.documents.delete(lease.id);
    const after = await vectors.chunkIds(MODEL.id);
    expect(after.length).toBeLessThan(before);
    expect(after.length).toBe(library.indexedChunks);
    expect(library.embeddedChunks).toBe(library.indexedChunks);
    const shared = await store.getChunks(after);
    expect(shared.some((c) => c?.text.includes('court of Utrecht'))).toBe(true);
  });

  it('refuses NaN and wrong-length vectors: nothing is stored, embedding reports the failure, BM25 still answers', async () => {
    for (const bad of [(n: number) => new Float32Array(n * 32).fill(Number.NaN), (n: number) => new Float32Array(n * 31).fill(0.1)]) {
      const name = freshName();
      const broken: ChunkEmbedder = { model: MODEL, embedChunks: async (t) => bad(t.length), embedQuery: (t) => base.embedQuery(t) };
      const { library, store } = await open(name, broken);
      await library.queue.add([file('lease.md', LEASE)]);
      await library.processQueue();
      await library.embeddingIdle();
      expect(await new VectorStore(store.db).chunkIds(MODEL.id)).toEqual([]);
      expect(library.embeddedChunks).toBe(0);
      expect(library.embeddingStatus).toMatchObject({ state: 'failed', message: expect.stringMatching(/model-output-invalid|embedder: model local:tiny-encoder/) });
      expect(library.embeddingStatus.message).toMatch(/Search still works, by keywords only/);
      expect((await library.asking.ask('When is the rent paid?')).found).toBe(true);
    }
  });

  it('opens a version-2 library with documents in it: nothing lost, nothing parsed again, then embeds it', async () => {
    const name = freshName();
    // A library written by the previous version of the app (schema 2), with one document committed.
    const { library: old } = await open(name);
    await old.queue.add([file('lease.md', LEASE)]);
    await old.processQueue();
    await old.saveSnapshot();
    const docs = await old.documents.list();
    const stores = ['documents', 'manifests', 'blocks', 'chunks', 'queue', 'snapshots', 'entryStatus', 'originals'];
    const dump = new Map<string, unknown[]>();
    const current = await openDB(name);
    for (const s of stores) dump.set(s, await current.getAll(s));
    current.close();
    const v2name = `${name}-v2`;
    const v2 = await openDB(v2name, 2, {
      upgrade(db) {
        db.createObjectStore('documents', { keyPath: 'id' }).createIndex('by-path', 'path');
        db.createObjectStore('manifests', { keyPath: 'docId' });
        db.createObjectStore('blocks', { keyPath: ['docId', 'index'] });
        db.createObjectStore('chunks', { keyPath: 'id' });
        db.createObjectStore('queue', { keyPath: 'id' });
        db.createObjectStore('snapshots', { keyPath: 'name' });
        db.createObjectStore('entryStatus', { keyPath: 'queueId' });
        db.createObjectStore('originals');
      },
    });
    for (const s of ['documents', 'manifests', 'blocks', 'chunks', 'queue', 'entryStatus']) for (const v of dump.get(s)!) await v2.put(s, v as never);
    // The version-2 snapshot format (owners inside the lexical snapshot) is refused and rebuilt from the store.
    await v2.put('snapshots', { name: 'lexical', version: 1, data: JSON.stringify({ version: 2, options: {}, minisearch: {}, owners: [] }), savedAt: 0 });
    v2.close();

    const embedder = counting();
    const preparer = { prepare: () => Promise.reject(new Error('nothing may be parsed again')), abort: () => undefined };
    const store = new LibraryStore(await openLibraryDb(v2name));
    expect(store.db.version).toBe(DB_VERSION);
    const models = new LibraryModels();
    const library = createLibrary(store, () => undefined, { chunk: CHUNK, preparer, embedding: { batchSize: 2 }, models });
    await library.open();
    await models.setEmbedder(embedder);
    await library.startWriting();
    await library.embeddingIdle();
    expect((await library.documents.list()).map((i) => i.name)).toEqual(docs.map((i) => i.name));
    expect(library.indexedChunks).toBe(old.indexedChunks);
    expect(library.embeddedChunks).toBe(library.indexedChunks);
    expect((await library.asking.ask('When is the rent paid?')).citations[0]?.passage.docName).toBe('lease.md');
  });

  it('storage full while embedding: whole batches only, a clear message, BM25 still answers; it finishes once space is freed', async () => {
    const name = freshName();
    const { library, store, models } = await open(name);
    await library.queue.add([file('lease.md', LEASE), file('loan.md', LOAN)]);
    await library.processQueue();
    const vectors = new VectorStore(store.db);
    const put = VectorStore.prototype.put;
    let batches = 0;
    const full = vi.spyOn(VectorStore.prototype, 'put').mockImplementation(function (this: VectorStore, model, list) {
      // The second batch does not fit.
      if (++batches === 2) return Promise.reject(new DOMException('The quota has been exceeded.', 'QuotaExceededError'));
      return put.call(this, model, list);
    });
    await models.setEmbedder(counting());
    await library.embeddingIdle();
    expect(library.embeddingStatus).toMatchObject({ state: 'failed', message: expect.stringMatching(/^storage full.*Search still works, by keywords only\.$/) });
    // The batch that did not fit left nothing: only the first batch (2 chunks) is stored and indexed.
    expect((await vectors.chunkIds(MODEL.id)).length).toBe(2);
    expect(library.embeddedChunks).toBe(2);
    expect((await library.asking.ask('When is the rent paid?')).found).toBe(true);

    full.mockRestore();
    await models.setEmbedder(counting());
    await library.embeddingIdle();
    expect(library.embeddingStatus.state).toBe('ready');
    expect(library.embeddedChunks).toBe(library.indexedChunks);
  });

  it('reranks the fused candidates with a cross-encoder ("Rerank #n" in "Why this passage"), and answers in fused order when it fails', async () => {
    const reranker = await loadReranker(localReranker({ folder: 'tiny-cross-encoder' }), { source: { kind: 'folder', root: tiny.dir } });
    const { library, models } = await open(freshName(), counting());
    await library.queue.add([file('lease.md', LEASE), file('loan.md', LOAN)]);
    await library.processQueue();
    await library.embeddingIdle();
    const pairs: string[][] = [];
    models.setReranker({ model: { id: reranker.model.id, label: 'tiny' }, score: (q, p) => (pairs.push([q, ...p]), reranker.score(q, p)) });
    const answer = await library.asking.ask('When is the rent paid?');
    // Every fused candidate (at most 40) was read with its document's title, as one pair with the question.
    expect(pairs).toHaveLength(1);
    expect(pairs[0]![0]).toBe('When is the rent paid?');
    expect(pairs[0]!.slice(1).some((t) => t.startsWith('Lease '))).toBe(true);
    const ranks = answer.citations.map((c) => c.passage.rerank?.rank);
    expect(ranks.every((r) => r !== undefined)).toBe(true);
    expect([...ranks].sort((a, b) => a! - b!)).toEqual(ranks);
    expect(answer.citations[0]!.passage.why).toMatch(/ · Rerank #\d+ \(-?\d+\.\d\d\)$/);

    models.setReranker({ model: { id: reranker.model.id, label: 'broken' }, score: () => Promise.reject(new Error('rerank worker stopped')) });
    const fallback = await library.asking.ask('When is the rent paid?');
    expect(fallback.citations.length).toBeGreaterThan(0);
    expect(fallback.citations.every((c) => c.passage.rerank === undefined)).toBe(true);
    await reranker.dispose();
  });
});
