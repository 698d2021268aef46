/**
 * Delete's Undo window: the page deletes a document only when its Undo runs out, passing the moment Delete
 * was pressed. The same file added again within that window must never be lost, whenever the delayed
 * delete lands in the re-add's course: before its read, between the read finding the stored copy and the
 * commit, or after. Each moment is one of the store calls the re-add makes (the delete runs right after
 * the n-th settles), the way fault-injection.test.ts places its crashes.
 */
import { describe, expect, it } from 'vitest';
import type { DocId } from '../../src/core/ids.ts';
import type { DeleteOutcome, LibraryEvent } from '../../src/core/types.ts';
import { createLibrary } from '../../src/library/library.ts';
import { LibraryStore } from '../../src/store/library-store.ts';
import { openLibraryDb } from '../../src/store/schema.ts';

const CHUNK = { maxChars: 300, overlapChars: 40, parentChars: 900 };
const TEXT = '# Field notes\n\nThe kingfisher nests in the clay bank above the mill race.\n';
const file = () => ({ name: 'notes.md', folder: 'birds', blob: new Blob([TEXT]) });

let dbCount = 0;

/** A library whose store runs `hook` once, right after its `n`-th call from now settles. */
async function openHooked(name: string) {
  const db = await openLibraryDb(name);
  let countdown = Infinity;
  let hook: () => Promise<void> = async () => undefined;
  let calls = 0;
  const store = new Proxy(new LibraryStore(db), {
    get(target, key) {
      const value: unknown = Reflect.get(target, key);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const result: unknown = value.apply(target, args);
        if (!(result instanceof Promise)) return result;
        calls++;
        return result.then(async (v: unknown) => {
          if (--countdown === 0) await hook();
          return v;
        });
      };
    },
  });
  const events: LibraryEvent[] = [];
  const library = createLibrary(store, (e) => events.push(e), { chunk: CHUNK, snapshotDelayMs: 60_000 });
  await library.open();
  await library.startWriting();
  return {
    db,
    library,
    events,
    calls: () => calls,
    /** Runs `fn` right after the store's `n`-th call from now settles. */
    after(n: number, fn: () => Promise<void>) {
      countdown = n;
      hook = fn;
    },
  };
}

/** Adds the file, deletes it with Delete pressed at `pressedAt`, re-adds it: the delete lands after store call `n` of the re-add. */
async function deleteDuringReAdd(n: number): Promise<{ outcome: DeleteOutcome | undefined; docs: string[]; found: boolean; done: string[] }> {
  const opened = await openHooked(`undo-${Date.now()}-${dbCount++}`);
  const { library, events } = opened;
  await library.queue.add([file()]);
  await library.processQueue();
  const docId = (await library.documents.list()).find((i) => i.kind === 'document')!.docId as DocId;
  // Delete pressed; the page holds it for its Undo window, and the file is added again meanwhile.
  const pressedAt = Date.now();
  events.length = 0;
  let outcome: DeleteOutcome | undefined;
  opened.after(n, async () => {
    outcome = await library.documents.delete(docId, pressedAt);
  });
  await library.queue.add([file()]);
  await library.processQueue();
  // The window ran out before the re-add made its n-th call: the delete lands now, as the page's timer would.
  outcome ??= await library.documents.delete(docId, pressedAt);
  await library.processQueue();
  const docs = (await library.documents.list()).filter((i) => i.kind !== 'failed').map((i) => `${i.kind} ${i.path}`);
  const found = (await library.asking.ask('where does the kingfisher nest')).citations.some((c) => c.passage.docName === 'notes.md');
  const done = events.flatMap((e) => (e.type === 'file-done' ? [e.outcome] : []));
  opened.db.close();
  return { outcome, docs, found, done };
}

describe("Delete's Undo window and the same file added again", () => {
  it('never loses the file, whichever moment of the re-add the delayed delete lands in, and says what happened', async () => {
    // How many store calls one re-add makes, so that every moment is tried (and one past the end).
    const probe = await openHooked(`undo-probe-${Date.now()}`);
    await probe.library.queue.add([file()]);
    await probe.library.processQueue();
    const before = probe.calls();
    await probe.library.queue.add([file()]);
    await probe.library.processQueue();
    const moments = probe.calls() - before;
    probe.db.close();
    expect(moments).toBeGreaterThan(3);

    const outcomes = new Set<string>();
    for (let n = 1; n <= moments + 1; n++) {
      const { outcome, docs, found, done } = await deleteDuringReAdd(n);
      // Exactly one copy stays, searchable, and nothing waits in the queue.
      expect(docs, `delete after call ${n}`).toEqual(['document birds/notes.md']);
      expect(found, `delete after call ${n}`).toBe(true);
      // Either the delete saw the file added again and kept the document, or it ran first and the file
      // added again was indexed afresh.
      if (outcome === 'kept') expect(done).toContain('already-in-library');
      else expect([outcome, done.at(-1)]).toEqual(['deleted', 'indexed']);
      outcomes.add(outcome!);
    }
    // Both courses were taken.
    expect([...outcomes].sort()).toEqual(['deleted', 'kept']);
  }, 120_000);

  it('still deletes a document whose file was added again before Delete was pressed', async () => {
    const { library, db } = await openHooked(`undo-before-${Date.now()}`);
    await library.queue.add([file()]);
    await library.processQueue();
    await library.queue.add([file()]);
    await library.processQueue();
    const docId = (await library.documents.list()).find((i) => i.kind === 'document')!.docId as DocId;
    await new Promise((r) => setTimeout(r, 5));
    expect(await library.documents.delete(docId, Date.now())).toBe('deleted');
    expect(await library.documents.list()).toEqual([]);
    expect(await library.documents.delete(docId, Date.now())).toBe('gone');
    db.close();
  });
});
