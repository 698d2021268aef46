import { describe, expect, it } from 'vitest';
import type { DocId } from '../../src/core/ids.ts';
import type { ChunkOptions } from '../../src/ingest/chunk.ts';
import { prepareDocument, type PreparedDocument } from '../../src/ingest/prepare-document.ts';
import { LibraryStore } from '../../src/store/library-store.ts';
import { openLibraryDb } from '../../src/store/schema.ts';

const CHUNK: ChunkOptions = { maxChars: 200, overlapChars: 0, parentChars: 600 };
const enc = (s: string) => new TextEncoder().encode(s);

let dbCount = 0;
async function freshStore(): Promise<LibraryStore> {
  return new LibraryStore(await openLibraryDb(`store-test-${Date.now()}-${dbCount++}`));
}

const SHARED = 'All disputes are settled by the arbitration court in Geneva under Swiss law.';

function prepare(name: string, markdown: string, folder = ''): Promise<PreparedDocument> {
  return prepareDocument({ name, folder, bytes: enc(markdown), addedAt: 1 }, CHUNK);
}

const leaseMd = `# Lease\n\nThe tenant pays the rent on the first day of each month.\n\n# Disputes\n\n${SHARED}\n`;
const loanMd = `# Loan\n\nThe borrower repays the loan in twelve instalments.\n\n# Disputes\n\n${SHARED}\n`;

async function enqueueOne(store: LibraryStore, name: string, text: string) {
  const [entry] = await store.enqueue([{ name, folder: '', path: name, blob: new Blob([text]) }]);
  return entry!;
}

async function everything(store: LibraryStore) {
  const db = store.db;
  return {
    documents: await db.getAll('documents'),
    manifests: await db.getAll('manifests'),
    blocks: await db.getAll('blocks'),
    chunks: await db.getAll('chunks'),
    queue: await store.listQueue(),
  };
}

const sharedChunkOf = (p: PreparedDocument) => p.chunks.find((c) => c.text === SHARED)!;

describe('LibraryStore.commitDocument', () => {
  it('stores the document, its blocks, manifest and chunks, and removes its queue entry', async () => {
    const store = await freshStore();
    const entry = await enqueueOne(store, 'lease.md', leaseMd);
    const other = await enqueueOne(store, 'other.md', 'x');
    const prepared = await prepare('lease.md', leaseMd);
    expect(prepared.chunks.length).toBeGreaterThanOrEqual(2);

    const { added, removed } = await store.commitDocument(prepared, entry.id);
    const id = prepared.doc.id;
    expect(removed).toEqual([]);
    expect(added.map((e) => e.chunkId).sort()).toEqual([...new Set(prepared.chunks.map((c) => c.id))].sort());
    expect(added.every((e) => e.docId === id && e.title === 'Lease')).toBe(true);

    expect(await store.getDocument(id)).toEqual({ ...prepared.doc, queueId: entry.id });
    expect(await store.findByPath('lease.md')).toEqual([{ ...prepared.doc, queueId: entry.id }]);
    expect(await store.getManifest(id)).toEqual({ docId: id, chunkIds: prepared.chunks.map((c) => c.id), blockCount: prepared.blocks.length });
    const block1 = await store.getBlock(id, 1);
    expect(block1).toMatchObject({ docId: id, index: 1, label: 'Disputes', text: SHARED });
    const chunks = await store.getChunks(prepared.chunks.map((c) => c.id));
    chunks.forEach((c, i) => {
      expect(c?.text).toBe(prepared.chunks[i]!.text);
      expect(c?.locations).toEqual([prepared.chunks[i]!.location]);
    });
    expect((await store.listQueue()).map((q) => q.id)).toEqual([other.id]);
    expect(await store.indexEntriesOf([id])).toHaveLength(added.length);
  });

  it('heads index entries with a real title only: a file without one is not headed by its file name', async () => {
    const store = await freshStore();
    const untitled = await prepare('notes.md', `The tenant pays the rent on the first day of each month.\n\n${SHARED}\n`);
    expect(untitled.doc).toMatchObject({ title: 'notes.md', titleSource: 'file-name' });
    const { added } = await store.commitDocument(untitled, undefined);
    expect(added.map((e) => e.title)).toEqual(added.map(() => ''));
    expect((await store.indexEntriesOf([untitled.doc.id])).every((e) => e.title === '')).toBe(true);
    const titled = await prepare('lease.md', leaseMd);
    expect((await store.commitDocument(titled, undefined)).added.every((e) => e.title === 'Lease')).toBe(true);
    expect((await store.deleteDocument(titled.doc.id)).removed.every((e) => e.title === 'Lease')).toBe(true);
  });

  it('stores a chunk that two documents share once, with both locations', async () => {
    const store = await freshStore();
    const lease = await prepare('lease.md', leaseMd);
    const loan = await prepare('loan.md', loanMd);
    await store.commitDocument(lease, undefined);
    await store.commitDocument(loan, undefined);
    const shared = sharedChunkOf(lease);
    expect(sharedChunkOf(loan).id).toBe(shared.id);

    const all = await everything(store);
    expect(all.chunks.filter((c) => c.text === SHARED)).toHaveLength(1);
    const [record] = await store.getChunks([shared.id]);
    expect(record!.locations.map((l) => l.docId).sort()).toEqual([lease.doc.id, loan.doc.id].sort());
  });

  it('deleting one owner keeps the shared chunk with the other location only, and removes everything else', async () => {
    const store = await freshStore();
    const lease = await prepare('lease.md', leaseMd);
    const loan = await prepare('loan.md', loanMd);
    await store.commitDocument(lease, undefined);
    await store.commitDocument(loan, undefined);

    const { removed } = await store.deleteDocument(lease.doc.id);
    expect(removed.map((e) => e.chunkId).sort()).toEqual([...new Set(lease.chunks.map((c) => c.id))].sort());

    const all = await everything(store);
    expect(all.documents.map((d) => d.id)).toEqual([loan.doc.id]);
    expect(all.manifests.map((m) => m.docId)).toEqual([loan.doc.id]);
    expect(all.blocks.every((b) => b.docId === loan.doc.id)).toBe(true);
    expect(all.blocks).toHaveLength(loan.blocks.length);
    expect(all.chunks.map((c) => c.id).sort()).toEqual([...new Set(loan.chunks.map((c) => c.id))].sort());
    const [shared] = await store.getChunks([sharedChunkOf(loan).id]);
    expect(shared!.locations).toEqual([sharedChunkOf(loan).location]);
    // The remaining document still yields its full index entries.
    expect(await store.indexEntriesOf([loan.doc.id])).toHaveLength(new Set(loan.chunks.map((c) => c.id)).size);
  });

  it('replacing a document (same path, new content) keeps unchanged chunks and removes gone ones', async () => {
    const store = await freshStore();
    const v1 = await prepare('lease.md', leaseMd);
    const v2Md = `# Lease\n\nThe tenant pays the rent on the fifth day of each month.\n\n# Disputes\n\n${SHARED}\n`;
    const v2 = await prepare('lease.md', v2Md);
    expect(v2.doc.id).not.toBe(v1.doc.id);
    await store.commitDocument(v1, undefined);
    const entry = await enqueueOne(store, 'lease.md', v2Md);

    const older = (await store.findByPath('lease.md')).map((d) => d.id);
    expect(older).toEqual([v1.doc.id]);
    const { added, removed } = await store.commitDocument(v2, entry.id, older);
    expect(removed.every((e) => e.docId === v1.doc.id)).toBe(true);
    expect(added.every((e) => e.docId === v2.doc.id)).toBe(true);

    const all = await everything(store);
    expect(all.documents.map((d) => d.id)).toEqual([v2.doc.id]);
    expect(all.queue).toEqual([]);
    expect(all.blocks.every((b) => b.docId === v2.doc.id)).toBe(true);
    const sharedId = sharedChunkOf(v1).id;
    const goneIds = v1.chunks.map((c) => c.id).filter((id) => !v2.chunks.some((c) => c.id === id));
    expect(goneIds.length).toBeGreaterThan(0);
    expect(all.chunks.map((c) => c.id).sort()).toEqual([...new Set(v2.chunks.map((c) => c.id))].sort());
    const [kept] = await store.getChunks([sharedId]);
    expect(kept!.locations).toEqual([sharedChunkOf(v2).location]);
    expect(await store.getChunks(goneIds)).toEqual(goneIds.map(() => undefined));
  });

  it('a chunk repeated inside one document is stored once with every location', async () => {
    const store = await freshStore();
    const md = `# One\n\n${SHARED}\n\n# Two\n\n${SHARED}\n`;
    const p = await prepare('twice.md', md);
    await store.commitDocument(p, undefined);
    const [record] = await store.getChunks([sharedChunkOf(p).id]);
    expect(record!.locations.map((l) => l.block)).toEqual([0, 1]);
    expect((await store.deleteDocument(p.doc.id)).removed.length).toBe(1);
    expect((await everything(store)).chunks).toEqual([]);
  });
});

describe('LibraryStore atomicity', () => {
  async function failingCommit(store: LibraryStore, prepared: PreparedDocument, queueId: Parameters<LibraryStore['commitDocument']>[1], replaces: DocId[] = []) {
    // A value IndexedDB cannot clone, in the last chunk: earlier writes were already issued when it fails.
    const last = prepared.chunks[prepared.chunks.length - 1]!;
    const broken: PreparedDocument = { ...prepared, chunks: [...prepared.chunks.slice(0, -1), { ...last, location: { ...last.location, ordinal: (() => 0) as unknown as number } }] };
    await expect(store.commitDocument(broken, queueId, replaces)).rejects.toThrow();
    // Let a transaction that was (wrongly) left to commit do so before looking.
    await new Promise((r) => setTimeout(r, 20));
  }

  it('stores nothing of a document whose commit fails midway, and keeps its queue entry', async () => {
    const store = await freshStore();
    const entry = await enqueueOne(store, 'lease.md', leaseMd);
    const prepared = await prepare('lease.md', leaseMd);
    expect(prepared.chunks.length).toBeGreaterThanOrEqual(2);
    await failingCommit(store, prepared, entry.id);

    const all = await everything(store);
    expect(all.documents).toEqual([]);
    expect(all.manifests).toEqual([]);
    expect(all.blocks).toEqual([]);
    expect(all.chunks).toEqual([]);
    expect(all.queue.map((q) => q.id)).toEqual([entry.id]);
    // And the store still works afterwards.
    await store.commitDocument(prepared, entry.id);
    expect((await everything(store)).documents).toHaveLength(1);
  });

  it('keeps the old version intact when replacing it fails midway', async () => {
    const store = await freshStore();
    const v1 = await prepare('lease.md', leaseMd);
    await store.commitDocument(v1, undefined);
    const before = await everything(store);
    const v2Md = `# Lease\n\nThe rent is due on the fifth.\n\n# Disputes\n\n${SHARED}\n`;
    const entry = await enqueueOne(store, 'lease.md', v2Md);
    const v2 = await prepare('lease.md', v2Md);
    await failingCommit(store, v2, entry.id, [v1.doc.id]);

    const after = await everything(store);
    expect(after.documents).toEqual(before.documents);
    expect(after.manifests).toEqual(before.manifests);
    expect(after.blocks).toEqual(before.blocks);
    expect(after.chunks).toEqual(before.chunks);
    expect(after.queue.map((q) => q.id)).toEqual([entry.id]);
  });
});

describe('LibraryStore queue', () => {
  it('keeps drop order, marks failures with their message and drops the file contents', async () => {
    const store = await freshStore();
    const entries = await store.enqueue(
      ['a.md', 'b.md', 'c.md'].map((name) => ({ name, folder: 'f', path: `f/${name}`, blob: new Blob([name]) })),
      1000,
    );
    expect((await store.listQueue()).map((q) => q.path)).toEqual(['f/a.md', 'f/b.md', 'f/c.md']);
    expect((await store.nextQueued())?.id).toBe(entries[0]!.id);
    await store.failQueued(entries[0]!.id, { name: 'DocQaError', code: 'empty-file', message: 'a.md: the file is empty' });
    expect((await store.nextQueued())?.id).toBe(entries[1]!.id);
    const [failed] = await store.listQueue();
    expect(failed).toMatchObject({ state: 'failed', error: { code: 'empty-file', message: 'a.md: the file is empty' } });
    expect(await store.db.get('queue', entries[0]!.id)).not.toHaveProperty('blob');
  });

  it('keeps the pages OCR read for a queued file until it leaves the queue, then sweeps them', async () => {
    const store = await freshStore();
    const scan = await enqueueOne(store, 'scan.pdf', 'x');
    const other = await enqueueOne(store, 'other.pdf', 'y');
    const page = (n: number) => ({ page: n, lines: [`line of page ${n}`], words: [{ text: 'line', box: [0.1, 0.1, 0.2, 0.12] as [number, number, number, number] }], confidence: 93 });
    await store.keepRecognisedPage(scan.id, page(2));
    await store.keepRecognisedPage(scan.id, page(1));
    await store.keepRecognisedPage(other.id, page(1));
    expect((await store.recognisedPages(scan.id)).map((r) => r.page)).toEqual([1, 2]);
    expect(await store.recognisedPages(scan.id)).toContainEqual(page(2));
    // Nothing leaves while both are queued; once scan.pdf is stored, its pages go and the other's stay.
    expect(await store.sweepRecognisedPages()).toBe(0);
    await store.commitDocument(await prepare('scan.md', '# Scan\n\nline of page 1\n'), scan.id);
    expect(await store.isQueued(scan.id)).toBe(false);
    expect(await store.sweepRecognisedPages()).toBe(1);
    expect(await store.recognisedPages(scan.id)).toEqual([]);
    expect(await store.recognisedPages(other.id)).toHaveLength(1);
    await store.dropRecognisedPages(other.id);
    expect(await store.db.count('recognisedPages')).toBe(0);
  });
});


describe('LibraryStore.listDocuments (the list kept for questions)', () => {
  const names = async (store: LibraryStore, options?: { fresh?: boolean }) => (await store.listDocuments(options)).map((d) => d.name).sort();

  it('follows every change made through the store: commit, tags, duplicate, delete, dequeue', async () => {
    const store = await freshStore();
    expect(await names(store)).toEqual([]);
    const lease = await prepare('lease.md', leaseMd);
    await store.commitDocument(lease, undefined);
    expect(await names(store)).toEqual(['lease.md']);
    await store.setTags(lease.doc.id, ['contracts']);
    expect((await store.listDocuments())[0]!.tags).toEqual(['contracts']);
    const again = await enqueueOne(store, 'lease.md', leaseMd);
    expect(await store.settleDuplicate(again.id, lease.doc.id, 1234)).toBe(true);
    expect((await store.listDocuments())[0]!.addedAgainAt).toBe(1234);
    const entry = await enqueueOne(store, 'loan.md', loanMd);
    await store.commitDocument(await prepare('loan.md', loanMd), entry.id);
    expect(await names(store)).toEqual(['lease.md', 'loan.md']);
    // The loan's queue row is gone, so removing it deletes the document committed from it.
    expect((await store.dequeue(entry.id)).outcome).toBe('deleted');
    expect(await names(store)).toEqual(['lease.md']);
    await store.deleteDocument(lease.doc.id);
    expect(await names(store)).toEqual([]);
  });

  it('is kept between reads, a new array each time; another tab\'s change is seen once forgotten, or by a fresh read', async () => {
    const store = await freshStore();
    await store.commitDocument(await prepare('lease.md', leaseMd), undefined);
    const first = await store.listDocuments();
    first.pop();
    expect(await names(store)).toEqual(['lease.md']);
    // Another tab (another connection to the same database) commits a document.
    const other = new LibraryStore(await openLibraryDb(store.db.name));
    await other.commitDocument(await prepare('loan.md', loanMd), undefined);
    expect(await names(store)).toEqual(['lease.md']);
    expect(await names(store, { fresh: true })).toEqual(['lease.md', 'loan.md']);
    await other.deleteDocument((await other.findByPath('loan.md'))[0]!.id);
    expect(await names(store)).toEqual(['lease.md', 'loan.md']);
    store.forgetDocuments();
    expect(await names(store)).toEqual(['lease.md']);
    other.db.close();
  });

  it('does not keep a list read while a document was being written', async () => {
    const store = await freshStore();
    const reading = store.listDocuments();
    const committing = store.commitDocument(await prepare('lease.md', leaseMd), undefined);
    await Promise.all([reading, committing]);
    expect(await names(store)).toEqual(['lease.md']);
  });
});
