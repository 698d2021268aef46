import { describe, expect, it, vi } from 'vitest';
import type { QueueId } from '../../src/core/ids.ts';
import type { IncomingFile } from '../../src/core/library-api.ts';
import type { Answer, LibraryEvent } from '../../src/core/types.ts';
import type { ChunkOptions } from '../../src/ingest/chunk.ts';
import type { Answerer } from '../../src/generate/answerer.ts';
import { createLibrary, type Library } from '../../src/library/library.ts';
import { LibraryStore } from '../../src/store/library-store.ts';
import { openLibraryDb } from '../../src/store/schema.ts';

const CHUNK: ChunkOptions = { maxChars: 300, overlapChars: 40, parentChars: 900 };

const LEASE = `# Lease agreement

## Payment

The tenant pays the monthly rent of 950 euros on the first day of each month, by bank transfer.

## Repairs

The landlord repairs the heating within ten days of a written notice.
`;
const LEASE_V2 = LEASE.replace('on the first day of each month', 'on the fifth day of each month');

const LOAN = `# Loan contract

## Instalments

The borrower repays the loan of 12000 euros in twenty-four monthly instalments.

## Guarantee

A guarantor signs for the borrower and answers for unpaid instalments.
`;

const file = (name: string, text: string, folder = ''): IncomingFile => ({ name, folder, blob: new Blob([text]) });

let dbCount = 0;
const freshName = () => `library-test-${Date.now()}-${dbCount++}`;

async function openLibrary(name: string, writer: boolean) {
  const events: LibraryEvent[] = [];
  const library = createLibrary(new LibraryStore(await openLibraryDb(name)), (e) => events.push(e), { chunk: CHUNK, snapshotDelayMs: 60_000 });
  await library.open();
  if (writer) await library.startWriting();
  return { library, events };
}

const sources = (a: Answer) => a.citations.map((c) => `${c.passage.docName} · ${c.passage.label}`);
const doneEvents = (events: LibraryEvent[]) => events.flatMap((e) => (e.type === 'file-done' ? [`${e.path}: ${e.outcome}`] : []));

describe('Library end to end (fake-indexeddb)', () => {
  it('indexes queued files, reports progress and failures, answers with citations, survives a restart and deletes', async () => {
    const name = freshName();
    const { library, events } = await openLibrary(name, true);

    await library.queue.add([file('lease.md', LEASE, 'contracts'), file('notes.xyz', 'some notes'), file('empty.txt', ''), file('loan.md', LOAN, 'contracts')]);
    await library.processQueue();

    // Every file reports progress; good files are indexed even though others failed.
    for (const path of ['contracts/lease.md', 'notes.xyz', 'empty.txt', 'contracts/loan.md']) {
      expect(events.some((e) => e.type === 'file-progress' && e.path === path)).toBe(true);
    }
    expect(doneEvents(events)).toEqual(['contracts/lease.md: indexed', 'contracts/loan.md: indexed']);
    const failed = events.flatMap((e) => (e.type === 'file-failed' ? [e] : []));
    expect(failed.map((e) => [e.path, e.error.code])).toEqual([
      ['notes.xyz', 'unsupported-type'],
      ['empty.txt', 'empty-file'],
    ]);
    expect(failed[0]!.error.message).toContain('notes.xyz: unsupported file type');
    expect(failed[1]!.error.message).toContain('empty.txt: the file is empty');
    const lastQueue = events.filter((e) => e.type === 'queue').at(-1);
    expect(lastQueue).toMatchObject({ done: 4, total: 4 });

    const items = await library.documents.list();
    expect(items.map((i) => `${i.kind} ${i.path}`)).toEqual(['document contracts/lease.md', 'document contracts/loan.md', 'failed notes.xyz', 'failed empty.txt']);

    const rent = await library.asking.ask('When does the tenant pay the rent?');
    expect(sources(rent)[0]).toBe('lease.md · Lease agreement › Payment');
    expect(rent.citations[0]!.n).toBe(1);
    expect(rent.segments[0]).toEqual({ text: expect.stringContaining('first day of each month'), cite: 1 });

    const guarantor = await library.asking.ask('who is the guarantor for unpaid instalments');
    expect(sources(guarantor)[0]).toBe('loan.md · Loan contract › Guarantee');
    const cited = guarantor.citations[0]!;
    const quote = cited.quotes[0]!;
    const quoted = cited.passage.window.slice(quote.start, quote.end);
    const at = cited.passage.windowStart;
    const source = await library.documents.getSource({ docId: cited.passage.docId, block: cited.passage.block, marks: [{ start: at + quote.start, end: at + quote.end, text: quoted }] });
    expect(source.text).toContain('A guarantor signs for the borrower');
    expect(source.marks.map((m) => source.text.slice(m.start, m.end))).toEqual([quoted]);

    // Filters restrict the answer to a folder or type.
    expect((await library.asking.ask('rent', { folders: ['elsewhere'] })).citations).toEqual([]);
    expect(sources(await library.asking.ask('rent', { folders: ['contracts'], types: ['markdown'] }))[0]).toBe('lease.md · Lease agreement › Payment');

    // The same file again is recognised; a changed version with the same path replaces the old one.
    events.length = 0;
    await library.queue.add([file('lease.md', LEASE, 'contracts')]);
    await library.processQueue();
    expect(doneEvents(events)).toEqual(['contracts/lease.md: already-in-library']);
    events.length = 0;
    await library.queue.add([file('lease.md', LEASE_V2, 'contracts')]);
    await library.processQueue();
    expect(doneEvents(events)).toEqual(['contracts/lease.md: replaced']);
    const rent2 = await library.asking.ask('When does the tenant pay the rent?');
    expect(rent2.segments[0]!.text).toContain('fifth day of each month');
    expect(rent2.citations.map((c) => c.passage.window).join(' ')).not.toContain('first day of each month');
    expect((await library.documents.list()).filter((i) => i.kind === 'document')).toHaveLength(2);

    // A second library on the same database (another tab, or the next visit) answers the same.
    await library.saveSnapshot();
    const { library: second } = await openLibrary(name, false);
    expect(second.indexedChunks).toBe(library.indexedChunks);
    for (const q of ['When does the tenant pay the rent?', 'who is the guarantor for unpaid instalments', 'heating repairs']) {
      // The same answer (each is saved in a conversation of its own library).
      expect({ ...(await second.asking.ask(q)), conversationId: undefined }).toEqual({ ...(await library.asking.ask(q)), conversationId: undefined });
    }

    // Deleting a document removes its passages, here and (after reconcile) in a library opened later
    // from the now stale snapshot.
    const loanId = guarantor.citations[0]!.passage.docId;
    await library.documents.delete(loanId);
    expect(sources(await library.asking.ask('who is the guarantor for unpaid instalments'))).not.toContainEqual(expect.stringContaining('loan.md'));
    const { library: third } = await openLibrary(name, false);
    expect(third.indexedChunks).toBe(library.indexedChunks);
    expect(sources(await third.asking.ask('who is the guarantor for unpaid instalments'))).not.toContainEqual(expect.stringContaining('loan.md'));
    expect(sources(await third.asking.ask('When does the tenant pay the rent?'))[0]).toBe('lease.md · Lease agreement › Payment');
    await expect(third.documents.getSource({ docId: loanId, block: 0, marks: [] })).rejects.toMatchObject({ message: expect.stringContaining('no longer in the library') });
    await library.saveSnapshot();
  });

  it('leaves out a dropped folder\'s files of types it does not read, said in one line, and clears their failed rows', async () => {
    const name = freshName();
    const db = await openLibraryDb(name);
    const events: LibraryEvent[] = [];
    const library = createLibrary(new LibraryStore(db), (e) => events.push(e), { chunk: CHUNK });
    await library.open();
    await library.startWriting();
    // A row that failed when such files were still queued one by one (before this rule).
    await db.put('queue', { id: '000000000000001-0000000-x' as QueueId, name: 'logo.gif', folder: 'manual/assets', path: 'manual/assets/logo.gif', size: 1, addedAt: 1, state: 'failed', error: { name: 'DocQaError', code: 'unsupported-type', message: 'logo.gif: unsupported file type' } });
    const site = ['site.css', 'print.css', 'logo.gif', 'app.js', 'LICENSE', 'icon.ico', 'banner.gif', 'old.doc'];
    await library.queue.add([file('lease.md', LEASE, 'manual'), ...site.map((n) => file(n, 'x', 'manual/assets'))]);
    await library.processQueue();
    expect(doneEvents(events)).toEqual(['manual/lease.md: indexed']);
    expect(events.some((e) => e.type === 'file-failed')).toBe(false);
    expect(events.filter((e) => e.type === 'files-skipped')).toEqual([
      { type: 'files-skipped', folders: ['manual'], summary: 'skipped 8 files this app does not read: 2 .css, 2 .gif, 1 .doc, 1 .ico and 2 of other types (it reads PDF, Word .docx, HTML, Markdown, text, and images of text: PNG, JPEG, WebP, TIFF)' },
    ]);
    const rows = async (kind: 'failed' | 'document') => (await library.documents.list()).filter((i) => i.kind === kind).map((i) => i.path);
    expect(await rows('failed')).toEqual([]);
    expect(await rows('document')).toEqual(['manual/lease.md']);

    // Chosen on its own, such a file is queued and fails with its own message.
    await library.queue.add([file('site.css', 'p {}')]);
    await library.processQueue();
    expect(events.filter((e) => e.type === 'file-failed').map((e) => (e as { error: { message: string } }).error.message)).toEqual([expect.stringContaining('site.css: unsupported file type')]);
    expect(await rows('failed')).toEqual(['site.css']);
  });

  it('answers through the answerer it is given, with the retrieved passages and the index\'s term counts', async () => {
    const seen: Array<{ question: string; docs: string[]; rentDf: number }> = [];
    const scripted: Answerer = {
      answer(question, passages, stats) {
        seen.push({ question, docs: passages.map((p) => p.docName), rentDf: stats.documentFrequency('rent') });
        return { question, found: true, segments: [{ text: 'Scripted.', cite: 1 }], citations: [{ n: 1, passage: passages[0]!, quotes: [], marks: [] }] };
      },
    };
    const library = createLibrary(new LibraryStore(await openLibraryDb(freshName())), () => undefined, { chunk: CHUNK, answerer: scripted });
    await library.open();
    await library.startWriting();
    await library.queue.add([file('lease.md', LEASE), file('loan.md', LOAN)]);
    await library.processQueue();
    const answer = await library.asking.ask('When is the rent paid?');
    expect(answer.segments).toEqual([{ text: 'Scripted.', cite: 1 }]);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.question).toBe('When is the rent paid?');
    expect(seen[0]!.docs[0]).toBe('lease.md');
    expect(seen[0]!.rentDf).toBeGreaterThan(0);
  });

  it('starts from the saved index without re-indexing, and catches up only what the snapshot missed', async () => {
    const name = freshName();
    const { library } = await openLibrary(name, true);
    await library.queue.add([file('lease.md', LEASE), file('loan.md', LOAN)]);
    await library.processQueue();
    await library.saveSnapshot();

    const countReads = (store: LibraryStore) => {
      const read = vi.spyOn(store, 'indexEntriesOf');
      return () => read.mock.calls.length;
    };
    const store = new LibraryStore(await openLibraryDb(name));
    const reads = countReads(store);
    const restarted = createLibrary(store, () => undefined, { chunk: CHUNK });
    await restarted.open();
    expect(reads()).toBe(0);
    expect(restarted.indexedChunks).toBe(library.indexedChunks);

    // A document committed after the snapshot (the tab closed before the next save) is added from the store.
    const before = [(await store.loadSnapshot('owners'))!, (await store.loadSnapshot('lexical'))!];
    await library.queue.add([file('extra.md', '# Extra\n\nThe gardener waters the ferns on Sundays.')]);
    await library.processQueue();
    await store.saveSnapshots(before);
    const store2 = new LibraryStore(await openLibraryDb(name));
    const reads2 = countReads(store2);
    const caughtUp = createLibrary(store2, () => undefined, { chunk: CHUNK });
    await caughtUp.open();
    expect(reads2()).toBe(1);
    expect(sources(await caughtUp.asking.ask('who waters the ferns'))[0]).toBe('extra.md · Extra');
  });

  it('saves an index it had to build from the store (a library just imported) once it writes and its queue is done, not after the usual delay', async () => {
    const name = freshName();
    const { library } = await openLibrary(name, true);
    await library.queue.add([file('lease.md', LEASE), file('loan.md', LOAN)]);
    await library.processQueue();
    // As an import leaves it: the documents, and no snapshot.
    const db = await openLibraryDb(name);
    await db.clear('snapshots');
    const store = new LibraryStore(db);
    // The usual delay is a minute here: only the save that ends the writer's first run of the queue is seen within seconds.
    const opened = createLibrary(store, () => undefined, { chunk: CHUNK, snapshotDelayMs: 60_000 });
    await opened.open();
    expect(await store.loadSnapshot('lexical')).toBeUndefined();
    await opened.startWriting();
    await vi.waitFor(async () => expect(await store.loadSnapshot('lexical')).toBeDefined(), { timeout: 5000, interval: 100 });
    const reads = vi.spyOn(store, 'indexEntriesOf');
    const again = createLibrary(store, () => undefined, { chunk: CHUNK });
    await again.open();
    expect(reads).not.toHaveBeenCalled();
    expect(again.indexedChunks).toBe(library.indexedChunks);
  });

  it('fails files over the size limit, and a file whose reading the app did not survive twice, and goes on', async () => {
    const name = freshName();
    const db = await openLibraryDb(name);
    const store = new LibraryStore(db);
    const events: LibraryEvent[] = [];
    const library = createLibrary(store, (e) => events.push(e), { chunk: CHUNK, maxFileBytes: 9 * 2 ** 20 });
    await library.open();
    const big = new Blob([new Uint8Array(10 * 2 ** 20).fill(97)]);
    const crashing = new Blob(['a small file that nevertheless stopped the app']);
    await library.queue.add([file('huge.txt', ''), file('crash.txt', ''), file('loan.md', LOAN)].map((f, i) => (i === 0 ? { ...f, blob: big } : i === 1 ? { ...f, blob: crashing } : f)));
    // crash.txt's reading already started twice in earlier sessions, each ending with the app gone.
    const crashEntry = (await store.listQueue()).find((q) => q.name === 'crash.txt')!;
    await store.startAttempt(crashEntry.id, 'crashed-session-1');
    await store.startAttempt(crashEntry.id, 'crashed-session-2');
    await library.startWriting();
    const failed = Object.fromEntries(events.flatMap((e) => (e.type === 'file-failed' ? [[e.path, e.error.message]] : [])));
    expect(failed).toEqual({
      'huge.txt': 'huge.txt: too large to index here (10 MB; the limit is 9 MB): split it into smaller files',
      'crash.txt': 'crash.txt: the app stopped twice while reading this file; it was skipped. Press Try again to insist, or split it into smaller files',
    });
    expect(doneEvents(events)).toEqual(['loan.md: indexed']);
    // The file that stopped the app keeps its contents, so Try again can read it; it is then indexed.
    const rows = await library.documents.list();
    expect(rows.filter((r) => r.kind === 'failed').map((r) => `${r.name} ${r.retriable}`)).toEqual(['huge.txt false', 'crash.txt true']);
    expect(await library.queue.retry(crashEntry.id)).toBe(true);
    await library.processQueue();
    expect(doneEvents(events)).toEqual(['loan.md: indexed', 'crash.txt: indexed']);
  });

  it('does not index a file deleted from the queue while it was being indexed', async () => {
    const name = freshName();
    const store = new LibraryStore(await openLibraryDb(name));
    const events: LibraryEvent[] = [];
    const library: Library = createLibrary(
      store,
      (e) => {
        events.push(e);
        // The person presses Delete on loan.md as soon as it shows "Indexing 0%".
        if (e.type === 'file-progress' && e.path === 'loan.md' && e.percent === 0) void library.queue.dismiss(e.queueId);
      },
      { chunk: CHUNK },
    );
    await library.open();
    await library.queue.add([file('lease.md', LEASE), file('loan.md', LOAN), file('notes.md', '# Notes\n\nThe caretaker locks the gate at nine.')]);
    await library.startWriting();
    expect(doneEvents(events)).toEqual(['lease.md: indexed', 'loan.md: cancelled', 'notes.md: indexed']);
    expect((await library.documents.list()).map((i) => `${i.name} ${i.kind}`)).toEqual(['lease.md document', 'notes.md document']);
    expect(sources(await library.asking.ask('who is the guarantor for unpaid instalments'))).not.toContainEqual(expect.stringContaining('loan.md'));
  });

  it('continues a queue left over from a previous session when a writer starts', async () => {
    const name = freshName();
    const { library: reader } = await openLibrary(name, false);
    await reader.queue.add([file('loan.md', LOAN)]);
    expect((await reader.documents.list()).map((i) => i.kind)).toEqual(['queued']);

    const { library: writer, events } = await openLibrary(name, true);
    expect(doneEvents(events)).toEqual(['loan.md: indexed']);
    expect(sources(await writer.asking.ask('monthly instalments of the loan'))[0]).toBe('loan.md · Loan contract › Instalments');
    await writer.saveSnapshot();
  });
  it('replaces a failed row when the same file is dropped again, so re-dropping a folder never piles up failures', async () => {
    const name = freshName();
    const db = await openLibraryDb(name);
    const store = new LibraryStore(db);
    const library = createLibrary(store, () => {}, { chunk: CHUNK });
    await library.open();
    await library.startWriting();
    const folder = [file('notes.xyz', 'some notes', 'docs'), file('empty.txt', '', 'docs'), file('loan.md', LOAN, 'docs')];
    // A row that failed when it was dropped (storage full), as the store records it: no contents.
    await db.put('queue', { id: '000000000000001-0000000-x' as QueueId, name: 'full.md', folder: 'docs', path: 'docs/full.md', size: 9, addedAt: 1, state: 'failed', error: { name: 'DocQaError', code: 'storage-full', message: 'full.md: storage is full' } });
    const failedRows = async () => (await library.documents.list()).filter((r) => r.kind === 'failed').map((r) => r.path).sort();
    for (let drop = 0; drop < 3; drop++) {
      await library.queue.add([...folder, file('full.md', '# Full\n\nNow it fits.', 'docs')]);
      await library.processQueue();
      // notes.xyz, of a type the app does not read, is left out of the folder's drop (said in one line).
      expect(await failedRows()).toEqual(['docs/empty.txt']);
    }
    // Sorted: both are indexed in one pass, often within the same millisecond, and the list orders them by that time.
    expect((await library.documents.list()).filter((r) => r.kind === 'document').map((r) => r.path).sort()).toEqual(['docs/full.md', 'docs/loan.md']);
    // A failed file of the same name in another folder is another file: its row stays.
    await library.queue.add([file('empty.txt', '', 'other')]);
    await library.processQueue();
    expect(await failedRows()).toEqual(['docs/empty.txt', 'other/empty.txt']);
  });

  it('names the stored document a renamed copy matches', async () => {
    const { library, events } = await openLibrary(freshName(), true);
    await library.queue.add([file('original.md', LEASE, 'notes'), file('copy.md', LEASE)]);
    await library.processQueue();
    await library.queue.add([file('again.md', LEASE, 'elsewhere')]);
    await library.processQueue();
    const matches = events.flatMap((e) => (e.type === 'file-done' && e.outcome === 'already-in-library' ? [`${e.path} = ${e.matches}`] : []));
    expect(matches).toEqual(['copy.md = notes/original.md', 'elsewhere/again.md = notes/original.md']);
  });

  it('syncs a folder added again only when the drop is that folder: another folder of the same name is added beside it', async () => {
    const { library, events } = await openLibrary(freshName(), true);
    const at = (name: string, text: string, modified: number): IncomingFile => ({ ...file(name, text, 'contracts'), modified });
    await library.queue.add([at('lease.md', LEASE, 1), at('loan.md', LOAN, 1)], { syncFolders: true });
    await library.processQueue();
    const paths = async () => (await library.documents.list()).flatMap((i) => (i.kind === 'document' ? [i.path] : [])).sort();
    // Another "contracts" folder, sharing no file with it: nothing deleted.
    await library.queue.add([at('other.md', '# Other\n\nA different folder with the same name.\n', 5)], { syncFolders: true });
    await library.processQueue();
    expect(await paths()).toEqual(['contracts/lease.md', 'contracts/loan.md', 'contracts/other.md']);
    expect(events.some((e) => e.type === 'folder-synced')).toBe(false);
    // The folder again without loan.md and other.md, lease.md untouched: nothing is read, two documents go.
    const before = events.length;
    await library.queue.add([at('lease.md', LEASE, 1)], { syncFolders: true });
    await library.processQueue();
    expect(await paths()).toEqual(['contracts/lease.md']);
    expect(events.slice(before).filter((e) => e.type === 'folder-synced' || e.type === 'file-done')).toEqual([{ type: 'folder-synced', folders: ['contracts'], summary: '2 removed, 1 unchanged' }]);
    // Saved again unchanged (a new time, the same bytes): read once, then known unchanged by its new time.
    await library.queue.add([at('lease.md', LEASE, 2)], { syncFolders: true });
    await library.processQueue();
    const mark = events.length;
    await library.queue.add([at('lease.md', LEASE, 2)], { syncFolders: true });
    await library.processQueue();
    expect(events.slice(mark).filter((e) => e.type === 'folder-synced' || e.type === 'file-done')).toEqual([{ type: 'folder-synced', folders: ['contracts'], summary: 'nothing changed (1 unchanged, not read again)' }]);
  });

  it('syncs a linked folder read whole even when it shares no file or is empty, and queues a file waiting to be read only once', async () => {
    const { library, events } = await openLibrary(freshName(), true);
    const at = (name: string, text: string, modified: number): IncomingFile => ({ ...file(name, text, 'contracts'), modified });
    const paths = async () => (await library.documents.list()).flatMap((i) => (i.kind === 'document' ? [i.path] : [])).sort();
    const queued = async () => (await library.documents.list()).filter((i) => i.kind === 'queued').length;
    await library.queue.add([at('lease.md', LEASE, 1), at('loan.md', LOAN, 1)], { wholeFolders: ['contracts'] });
    // Synced again before the first was read (a second tab, a second press): nothing is queued twice.
    await library.queue.add([at('lease.md', LEASE, 1), at('loan.md', LOAN, 1)], { wholeFolders: ['contracts'] });
    expect(await queued()).toBe(2);
    await library.processQueue();
    expect(await paths()).toEqual(['contracts/lease.md', 'contracts/loan.md']);
    // Every file renamed: the linked folder is the same folder though no path is shared.
    const mark = events.length;
    await library.queue.add([at('lease-2024.md', LEASE_V2, 3)], { wholeFolders: ['contracts'] });
    await library.processQueue();
    expect(await paths()).toEqual(['contracts/lease-2024.md']);
    expect(events.slice(mark).find((e) => e.type === 'folder-synced')).toEqual({ type: 'folder-synced', folders: ['contracts'], summary: '1 added, 2 removed' });
    // The folder emptied: what the library held of it goes; a loose file of the same library stays.
    await library.queue.add([file('notes.md', LOAN)]);
    await library.processQueue();
    await library.queue.add([], { wholeFolders: ['contracts'] });
    await library.processQueue();
    expect(await paths()).toEqual(['notes.md']);
  });
});
