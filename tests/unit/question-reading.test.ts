// The question read as the person types, in the library worker (`library/question-reading.ts`, what the
// page's chips and "Whole document" toggle show), and the guard on the tabs' control messages.
import { describe, expect, it } from 'vitest';
import { chipKey } from '../../src/core/query-filters.ts';
import { createLibrary } from '../../src/library/library.ts';
import { isControlMessage } from '../../src/library/tab-control.ts';
import { LibraryStore } from '../../src/store/library-store.ts';
import { openLibraryDb } from '../../src/store/schema.ts';

let seq = 0;
async function libraryWith(files: Record<string, string>) {
  const library = createLibrary(new LibraryStore(await openLibraryDb(`question-reading-${Date.now()}-${seq++}`)), () => undefined, { snapshotDelayMs: 60_000 });
  await library.open();
  await library.startWriting();
  await library.queue.add(Object.entries(files).map(([path, text]) => ({ name: path.split('/').at(-1)!, folder: path.split('/').slice(0, -1).join('/'), blob: new Blob([text]) })));
  await library.processQueue();
  return library;
}

const FILES = {
  'contracts/lease.md': '# Lease\n\n## Deposit\n\nThe deposit is two months of rent.\n',
  'guides/guide.md': '# Renting guide\n\n## Deposit\n\nA deposit is usually one month of rent.\n',
};

describe('reading the question as it is typed', () => {
  it('names the document chip, and the document the toggle and a summary question read', async () => {
    const library = await libraryWith(FILES);
    const deposit = await library.reader.read('How much is the deposit according to the lease?', {}, []);
    expect(deposit.chips.map((c) => c.label)).toEqual(['contracts/lease.md']);
    // The chip leaves one document: the toggle can read it whole; the words do not ask for that.
    expect(deposit.single?.docPath).toBe('contracts/lease.md');
    expect(deposit.recognised).toBeUndefined();

    // A folder chip leaves one document for the toggle; removed, it leaves both (the chip is still reported: the page hides it).
    const inFolder = await library.reader.read('What is the deposit in the contracts folder?', {}, []);
    expect(inFolder.chips.map((c) => c.label)).toEqual(['contracts']);
    expect(inFolder.single?.docPath).toBe('contracts/lease.md');
    const removed = await library.reader.read('What is the deposit in the contracts folder?', {}, inFolder.chips.map(chipKey));
    expect(removed.chips.map((c) => c.label)).toEqual(['contracts']);
    expect(removed.single).toBeUndefined();

    const summary = await library.reader.read('Summarise lease.md', {}, []);
    expect(summary.recognised).toEqual({ docId: summary.single!.docId, docPath: 'contracts/lease.md' });
    expect(await library.reader.read('What is the rent?', {}, [])).toEqual({ chips: [], single: undefined, recognised: undefined, ambiguous: undefined });
  });

  it('a blank question names no filter, but the person\'s filter may leave one document for the toggle', async () => {
    const library = await libraryWith(FILES);
    const lease = (await library.documents.list()).find((i) => i.name === 'lease.md')!;
    const blank = await library.reader.read('  ', { docIds: [lease.docId!] }, []);
    expect(blank.chips).toEqual([]);
    expect(blank.single?.docPath).toBe('contracts/lease.md');
  });

  it('asks which one when a summary names two documents alike, and reads the documents again once the library changed', async () => {
    const library = await libraryWith({ 'work/a/report.md': '# Report A\n\nFirst report.\n', 'work/b/report.md': '# Report B\n\nSecond report.\n' });
    expect((await library.reader.read('Summarise report.md', {}, [])).ambiguous).toEqual(['work/a/report.md', 'work/b/report.md']);
    const [a] = (await library.documents.list()).filter((i) => i.path === 'work/a/report.md');
    await library.documents.delete(a!.docId!);
    const after = await library.reader.read('Summarise report.md', {}, []);
    expect(after.ambiguous).toBeUndefined();
    expect(after.recognised?.docPath).toBe('work/b/report.md');
  });
});

describe('control messages between tabs', () => {
  it('knows its own messages and ignores anything else (an older version\'s strings, unknown types)', () => {
    for (const type of ['semantic-settings', 'answer-setting', 'files-queued']) expect(isControlMessage({ type })).toBe(true);
    for (const other of ['process', 'semantic', { type: 'reindex' }, { kind: 'files-queued' }, null, undefined, 7]) expect(isControlMessage(other)).toBe(false);
  });
});
