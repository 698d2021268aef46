/**
 * Which interrupted reads count against a file: only a read the app did not survive (a crash), never one
 * cut short by a page unload (a reload, a closed tab), and never a file whose read had ended and that only
 * waited for its commit. A file whose read ended the writing tab is not read again by the tab taking over.
 */
import { describe, expect, it } from 'vitest';
import type { LibraryEvent } from '../../src/core/types.ts';
import { createLibrary } from '../../src/library/library.ts';
import { LibraryStore } from '../../src/store/library-store.ts';
import { openLibraryDb } from '../../src/store/schema.ts';

const CHUNK = { maxChars: 300, overlapChars: 40, parentChars: 900 };
let dbCount = 0;
const freshName = () => `reads-${Date.now()}-${dbCount++}`;
const file = (name: string, text: string) => ({ name, folder: '', blob: new Blob([text]) });

/** A queue holding `heavy.md`, whose read sessions `crashed` (each a tab that died) started and never ended. */
async function queueWithCutReads(sessions: readonly string[]) {
  const name = freshName();
  const store = new LibraryStore(await openLibraryDb(name));
  const seed = createLibrary(store, () => undefined, { chunk: CHUNK });
  await seed.queue.add([file('heavy.md', '# Heavy\n\nThe walrus hauls out on the ice floe at noon.'), file('light.md', '# Light\n\nThe puffin dives for sand eels.')]);
  const entry = (await store.listQueue()).find((q) => q.name === 'heavy.md')!;
  // Sessions named reload-… ended with a page unload, as the page would have recorded.
  for (const s of sessions) await store.startAttempt(entry.id, s, (earlier) => earlier.startsWith('reload'));
  return { name, store, entry };
}

async function runWriter(name: string, options: { endedCleanly?: (s: string) => boolean; tookOver?: boolean }) {
  const events: LibraryEvent[] = [];
  const library = createLibrary(new LibraryStore(await openLibraryDb(name)), (e) => events.push(e), { chunk: CHUNK, endedCleanly: options.endedCleanly, session: 'this-tab' });
  await library.open();
  await library.startWriting({ tookOver: options.tookOver });
  await library.processQueue();
  const rows = Object.fromEntries((await library.documents.list()).map((r) => [r.name, r.kind === 'failed' ? r.error!.message : r.kind]));
  return { library, rows };
}

describe('interrupted reads', () => {
  it('a read cut short by a reload does not count, however often: the file is indexed', async () => {
    const { name } = await queueWithCutReads(['reload-1', 'reload-2', 'reload-3']);
    const { rows } = await runWriter(name, { endedCleanly: (s) => s.startsWith('reload') });
    expect(rows).toEqual({ 'heavy.md': 'document', 'light.md': 'document' });
  });

  it('two reads ended by crashes give the file up until Try again; one crash and a reload do not', async () => {
    const twice = await queueWithCutReads(['crash-1', 'crash-2']);
    expect((await runWriter(twice.name, {})).rows['heavy.md']).toMatch(/^heavy\.md: the app stopped twice while reading this file/);
    const mixed = await queueWithCutReads(['crash-1', 'reload-1']);
    expect((await runWriter(mixed.name, { endedCleanly: (s) => s.startsWith('reload') })).rows['heavy.md']).toBe('document');
  });

  it('a read that ended, waiting for its commit when the app stopped, is not blamed', async () => {
    const { name, store, entry } = await queueWithCutReads([]);
    // Two sessions read it to the end and stopped before committing (a crash while the file before it committed).
    for (const s of ['crash-1', 'crash-2']) {
      await store.startAttempt(entry.id, s);
      await store.endAttempt(entry.id, s);
    }
    expect((await runWriter(name, {})).rows['heavy.md']).toBe('document');
  });

  it('the tab taking over from a tab that crashed while reading does not read that file, and says why; Try again reads it', async () => {
    const { name, entry } = await queueWithCutReads(['crashed-tab']);
    const { library, rows } = await runWriter(name, { tookOver: true });
    expect(rows).toEqual({
      'heavy.md': 'heavy.md: the app stopped in another tab while reading this file (it may need more memory than this device has), so it was not read again here. Press Try again to insist, or split it into smaller files',
      'light.md': 'document',
    });
    expect(await library.queue.retry(entry.id)).toBe(true);
    await library.processQueue();
    expect((await library.documents.list()).filter((r) => r.kind === 'document').map((r) => r.name).sort()).toEqual(['heavy.md', 'light.md']);
  });

  it('taking over from a tab that was reloaded or closed reads its file again; a fresh start reads a crashed one once more', async () => {
    const reloaded = await queueWithCutReads(['closed-tab']);
    expect((await runWriter(reloaded.name, { tookOver: true, endedCleanly: (s) => s === 'closed-tab' })).rows['heavy.md']).toBe('document');
    const fresh = await queueWithCutReads(['crashed-tab']);
    expect((await runWriter(fresh.name, { tookOver: false })).rows['heavy.md']).toBe('document');
  });
});
