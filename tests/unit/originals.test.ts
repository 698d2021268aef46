import { describe, expect, it, vi } from 'vitest';
import type { DocId } from '../../src/core/ids.ts';
import type { ChunkOptions } from '../../src/ingest/chunk.ts';
import { prepareDocument } from '../../src/ingest/prepare-document.ts';
import { createLibrary, type Library } from '../../src/library/library.ts';
import { LibraryStore } from '../../src/store/library-store.ts';
import { openLibraryDb } from '../../src/store/schema.ts';

const CHUNK: ChunkOptions = { maxChars: 200, overlapChars: 0, parentChars: 600 };
const LEASE = '# Lease\n\nThe tenant pays the rent on the first day of each month.\n';

let dbCount = 0;
const freshStore = async () => new LibraryStore(await openLibraryDb(`originals-test-${Date.now()}-${dbCount++}`));
const prepare = (text: string) => prepareDocument({ name: 'lease.md', folder: 'c', bytes: new TextEncoder().encode(text), addedAt: 1 }, CHUNK);

async function enqueue(store: LibraryStore, text: string) {
  const [entry] = await store.enqueue([{ name: 'lease.md', folder: 'c', path: 'c/lease.md', blob: new Blob([text]) }]);
  return entry!;
}

describe('original files ("Keep original files")', () => {
  it('are stored with the document they were read from, and deleted with it or with its replacement', async () => {
    const store = await freshStore();
    const entry = await enqueue(store, LEASE);
    const prepared = await prepare(LEASE);
    await store.commitDocument(prepared, entry.id, [], new Blob([LEASE]));
    await expect((await store.getOriginal(prepared.doc.id))?.text()).resolves.toBe(LEASE);

    const v2 = LEASE.replace('first', 'fifth');
    const next = await enqueue(store, v2);
    const replaced = await prepare(v2);
    await store.commitDocument(replaced, next.id, [prepared.doc.id], new Blob([v2]));
    await expect(store.getOriginal(prepared.doc.id)).resolves.toBeUndefined();
    await expect((await store.getOriginal(replaced.doc.id))?.text()).resolves.toBe(v2);

    await store.deleteDocument(replaced.doc.id);
    await expect(store.getOriginal(replaced.doc.id)).resolves.toBeUndefined();
  });

  it('are not kept when none is given, nor when the commit is cancelled', async () => {
    const store = await freshStore();
    const entry = await enqueue(store, LEASE);
    const prepared = await prepare(LEASE);
    await store.removeQueued(entry.id);
    await expect(store.commitDocument(prepared, entry.id, [], new Blob([LEASE]))).rejects.toMatchObject({ code: 'cancelled' });
    await expect(store.getOriginal(prepared.doc.id)).resolves.toBeUndefined();
    const again = await enqueue(store, LEASE);
    await store.commitDocument(prepared, again.id);
    await expect(store.getDocument(prepared.doc.id)).resolves.toBeDefined();
    await expect(store.getOriginal(prepared.doc.id)).resolves.toBeUndefined();
  });
});

describe('Library: "Keep original files"', () => {
  const openLibrary = async () => {
    const store = await freshStore();
    const library = createLibrary(store, () => undefined, { chunk: CHUNK, snapshotDelayMs: 60_000 });
    await library.open();
    await library.startWriting();
    return { library, store };
  };
  const docIdOf = async (library: Library, path: string) => (await library.documents.list()).find((i) => i.path === path)?.docId as DocId;

  it('keeps the original by default, and none for documents added once it is off', async () => {
    const { library } = await openLibrary();
    await library.queue.add([{ name: 'lease.md', folder: '', blob: new Blob([LEASE]) }]);
    await library.processQueue();
    await expect((await library.documents.getOriginal(await docIdOf(library, 'lease.md')))?.text()).resolves.toBe(LEASE);
    library.documents.setKeepOriginals(false);
    await library.queue.add([{ name: 'loan.md', folder: '', blob: new Blob(['# Loan\n\nThe borrower repays in twelve instalments.\n']) }]);
    await library.processQueue();
    const loan = await docIdOf(library, 'loan.md');
    expect(loan).toBeDefined();
    await expect(library.documents.getOriginal(loan)).resolves.toBeUndefined();
  });

  it('indexes the document without its original when both do not fit', async () => {
    const { library, store } = await openLibrary();
    const commit = store.commitDocument.bind(store);
    vi.spyOn(store, 'commitDocument').mockImplementation((prepared, queueId, replaces, original) =>
      original ? Promise.reject(new DOMException('over quota', 'QuotaExceededError')) : commit(prepared, queueId, replaces),
    );
    await library.queue.add([{ name: 'lease.md', folder: '', blob: new Blob([LEASE]) }]);
    await library.processQueue();
    const id = await docIdOf(library, 'lease.md');
    expect((await library.documents.list()).find((i) => i.path === 'lease.md')?.kind).toBe('document');
    await expect(library.documents.getOriginal(id)).resolves.toBeUndefined();
  });
});
