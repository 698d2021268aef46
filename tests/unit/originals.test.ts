import { describe, expect, it } from 'vitest';
import type { ChunkOptions } from '../../src/ingest/chunk.ts';
import { prepareDocument } from '../../src/ingest/prepare-document.ts';
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
