/**
 * Storage full. fake-indexeddb has no quota, so this test gives it one: a put whose value holds more
 * than LIMIT characters of text or Blob bytes in all throws QuotaExceededError, as a full disk does in a browser.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LibraryEvent } from '../../src/core/types.ts';
import { createLibrary } from '../../src/library/library.ts';
import { LibraryStore } from '../../src/store/library-store.ts';
import { openLibraryDb } from '../../src/store/schema.ts';

const LIMIT = 20_000;
const realPut = IDBObjectStore.prototype.put;

function sizeOf(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (value instanceof Blob) return value.size;
  if (Array.isArray(value)) return value.reduce((s: number, v) => s + sizeOf(v), 0);
  if (value && typeof value === 'object') return Object.values(value).reduce((s: number, v) => s + sizeOf(v), 0);
  return 0;
}

function prose(words: number, topic: string): string {
  return Array.from({ length: words }, (_, i) => (i % 12 === 0 ? `${topic} ` : `word${i % 50} `)).join('') + '.';
}

describe('storage full', () => {
  let total = 0;
  /** Chromium over its quota refuses every write, however small: set to model that after the first refusal. */
  let refuseAllOnceFull = false;
  let full = false;
  beforeEach(() => {
    total = 0;
    refuseAllOnceFull = full = false;
    IDBObjectStore.prototype.put = function (this: IDBObjectStore, value: unknown, key?: IDBValidKey) {
      const size = this.name === 'snapshots' ? 0 : sizeOf(value);
      if (total + size > LIMIT || (full && refuseAllOnceFull)) {
        full = true;
        throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
      }
      total += size;
      return realPut.call(this, value, key);
    };
  });
  afterEach(() => {
    IDBObjectStore.prototype.put = realPut;
  });

  it('fails only the file that does not fit, with a message saying what to do, keeps nothing of it, and goes on', async () => {
    const events: LibraryEvent[] = [];
    const db = await openLibraryDb(`quota-${Date.now()}`);
    const store = new LibraryStore(db);
    const library = createLibrary(store, (e) => events.push(e), { snapshotDelayMs: 60_000 });
    await library.open();
    total = 0;
    // small.md fits; big.md fits in the queue (its Blob is counted once) but not once its text is stored.
    const big = new Blob([`# Big\n\n${prose(2000, 'walrus')}`]);
    await library.queue.add([
      { name: 'small.md', folder: '', blob: new Blob(['# Small\n\nThe otter sleeps in the reeds.']) },
      { name: 'big.md', folder: '', blob: big },
    ]);
    total = 0;
    await library.startWriting();
    const failed = events.filter((e) => e.type === 'file-failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ path: 'big.md', error: { code: 'storage-full', message: 'big.md: storage full: delete documents or free disk space' } });

    // Nothing of big.md was kept: no document, no blocks, no chunks; its queue entry shows the message.
    const items = await library.documents.list();
    expect(items.map((i) => [i.name, i.kind])).toEqual([
      ['small.md', 'document'],
      ['big.md', 'failed'],
    ]);
    expect(await db.count('blocks')).toBe(1);
    expect((await db.getAll('chunks')).every((c) => !c.text.includes('walrus'))).toBe(true);
    expect((await library.asking.ask('walrus')).citations).toEqual([]);
    expect((await library.asking.ask('otter reeds')).citations[0]?.passage.docName).toBe('small.md');

    // Space freed: the app goes on and indexes the next file, and big.md can be tried again.
    IDBObjectStore.prototype.put = realPut;
    await library.queue.add([{ name: 'later.md', folder: '', blob: new Blob(['# Later\n\nThe heron fishes at dawn.']) }]);
    await library.processQueue();
    expect((await library.asking.ask('heron dawn')).citations[0]?.passage.docName).toBe('later.md');
    const bigRow = items.find((i) => i.name === 'big.md')!;
    expect(bigRow.retriable).toBe(true);
    expect(await library.queue.retry(bigRow.queueId!)).toBe(true);
    await library.processQueue();
    expect((await library.asking.ask('walrus')).citations[0]?.passage.docName).toBe('big.md');
  });

  it('records a file that does not even fit in the queue as failed with "storage full"', async () => {
    const db = await openLibraryDb(`quota-q-${Date.now()}`);
    const store = new LibraryStore(db);
    total = 0;
    const entries = await store.enqueue([
      { name: 'ok.txt', folder: '', path: 'ok.txt', blob: new Blob(['fine']) },
      { name: 'huge.txt', folder: '', path: 'huge.txt', blob: new Blob(['x'.repeat(LIMIT * 2)]) },
    ]);
    expect(entries.map((e) => e.name)).toEqual(['ok.txt']);
    const queue = await store.listQueue();
    expect(queue.map((q) => [q.name, q.state, q.error?.message])).toEqual([
      ['ok.txt', 'queued', undefined],
      ['huge.txt', 'failed', 'huge.txt: storage full: delete documents or free disk space'],
    ]);
  });

  it('keeps a file listed as failed, with its contents, when storage is too full to record even the failure', async () => {
    // Over its quota Chromium refuses every write, however small (measured with CDP
    // Storage.overrideQuotaForOrigin): the failure record itself cannot be written.
    const db = await openLibraryDb(`quota-over-${Date.now()}`);
    const store = new LibraryStore(db);
    const library = createLibrary(store, () => undefined, { snapshotDelayMs: 60_000 });
    await library.open();
    await library.queue.add([
      { name: 'a.md', folder: '', blob: new Blob(['# A\n\nThe otter sleeps in the reeds.']) },
      { name: 'b.md', folder: '', blob: new Blob(['# B\n\nThe heron fishes at dawn.']) },
    ]);
    total = LIMIT;
    await library.startWriting();
    // Neither file is lost: both are listed failed (not dropped from the queue), and the queue finished.
    const items = await library.documents.list();
    expect(items.map((i) => [i.name, i.kind, i.error?.message, i.retriable])).toEqual([
      ['a.md', 'failed', 'a.md: storage full: delete documents or free disk space', true],
      ['b.md', 'failed', 'b.md: storage full: delete documents or free disk space', true],
    ]);
    // Another run passes over them; Try again, once there is room, indexes them.
    await library.processQueue();
    total = 0;
    for (const item of items) expect(await library.queue.retry(item.queueId!)).toBe(true);
    await library.processQueue();
    expect((await library.documents.list()).map((i) => i.kind)).toEqual(['document', 'document']);
    expect((await library.asking.ask('heron dawn')).citations[0]?.passage.docName).toBe('b.md');
  });

  it('reports the files of a drop that storage cannot even record as failed, keeps the rest of the drop, and never throws', async () => {
    const events: LibraryEvent[] = [];
    const library = createLibrary(new LibraryStore(await openLibraryDb(`quota-all-${Date.now()}`)), (e) => events.push(e), { snapshotDelayMs: 60_000 });
    await library.open();
    await library.startWriting();
    total = 0;
    refuseAllOnceFull = true;
    await library.queue.add([
      { name: 'fits.md', folder: '', blob: new Blob(['# Fits\n\nThe otter sleeps in the reeds.']) },
      { name: 'huge.txt', folder: '', blob: new Blob(['x'.repeat(LIMIT * 2)]) },
    ]);
    const failed = events.flatMap((e) => (e.type === 'file-failed' ? [`${e.path}: ${e.error.code}`] : []));
    expect(failed).toEqual(['fits.md: storage-full', 'huge.txt: storage-full']);
    expect(await library.documents.list()).toEqual([]);
  });
});
