import { createCanvas } from '@napi-rs/canvas';
import { describe, expect, it } from 'vitest';
import { CELL_SEPARATOR } from '../../src/core/table-cells.ts';
import type { DocId } from '../../src/core/ids.ts';
import type { DocRecord, LibraryEvent, PreparedDocument } from '../../src/core/types.ts';
import type { ChunkOptions } from '../../src/ingest/chunk.ts';
import { docIdOf } from '../../src/ingest/hash.ts';
import { prepareDocument } from '../../src/ingest/prepare-document.ts';
import type { PageRanges } from '../../src/core/page-ranges.ts';
import { READERS, readingAgainGives } from '../../src/ingest/reader-versions.ts';
import { IndexKeeper } from '../../src/library/index-keeper.ts';
import { createLibrary } from '../../src/library/library.ts';
import { LibraryStore } from '../../src/store/library-store.ts';
import { openLibraryDb } from '../../src/store/schema.ts';
import { makePdf, SETTINGS_ROWS } from '../support/fixtures.ts';

const CHUNK: ChunkOptions = { maxChars: 200, overlapChars: 0, parentChars: 600 };
let dbCount = 0;
const dbName = () => `read-again-test-${Date.now()}-${dbCount++}`;

const SETTINGS = [
  'Server settings',
  '',
  'These settings are read when the server starts, and a change to any one of them takes',
  'effect only after the administrator restarts the server, which closes every connection.',
  '',
  ...SETTINGS_ROWS,
  '',
  'Table 2: Settings and their defaults',
];

/**
 * The PDF as the version 1 reader stored it: its table's cells run together as one paragraph, and no
 * reader version recorded (documents stored before versions were kept).
 */
async function storedByOldReader(pdf: Uint8Array): Promise<PreparedDocument> {
  const docId = await docIdOf(pdf);
  const now = await prepareDocument({ name: 'settings.pdf', folder: 'manuals', bytes: pdf, addedAt: 5 }, CHUNK);
  // Its rows without their cells (what came before and after the table reads the same).
  const runTogether = now.blocks.map((b) => b.text.replaceAll(CELL_SEPARATOR, ' ')).join('\n\n');
  const old = await prepareDocument({ name: 'settings.txt', folder: 'manuals', bytes: new TextEncoder().encode(runTogether), docId, addedAt: 5 }, CHUNK);
  // Chunks both readings share stay in the index, with their vectors.
  expect(old.chunks.some((c) => now.chunks.some((n) => n.id === c.id))).toBe(true);
  const { reader: _reader, ...doc } = old.doc;
  return { ...old, doc: { ...doc, name: 'settings.pdf', path: 'manuals/settings.pdf', type: 'pdf', size: pdf.byteLength, pages: 1 } };
}

async function openLibrary(name: string) {
  const store = new LibraryStore(await openLibraryDb(name));
  const library = createLibrary(store, () => undefined, { chunk: CHUNK, snapshotDelayMs: 60_000 });
  await library.open();
  await library.startWriting();
  return { library, store };
}

/** A library holding the settings PDF as the old reader stored it, with its original file kept. */
async function libraryWithOldPdf(keepOriginal = true) {
  const pdf = await makePdf([{ lines: SETTINGS }]);
  const name = dbName();
  const seed = new LibraryStore(await openLibraryDb(name));
  const [entry] = await seed.enqueue([{ name: 'settings.pdf', folder: 'manuals', path: 'manuals/settings.pdf', blob: new Blob([pdf as Uint8Array<ArrayBuffer>]) }]);
  const old = await storedByOldReader(pdf);
  await seed.commitDocument(old, entry!.id, [], keepOriginal ? new Blob([pdf as Uint8Array<ArrayBuffer>]) : undefined);
  seed.db.close();
  return { ...(await openLibrary(name)), docId: old.doc.id, pdf };
}

const blockTexts = async (store: LibraryStore, docId: DocId) => {
  const manifest = await store.getManifest(docId);
  const blocks = await Promise.all(Array.from({ length: manifest?.blockCount ?? 0 }, (_, i) => store.getBlock(docId, i)));
  return blocks.map((b) => b?.text ?? '');
};

describe('reading stored documents again with a newer reader', () => {
  it('offers the documents an older reader read, reads them again from the kept file, and keeps their tags', async () => {
    const { library, store, docId } = await libraryWithOldPdf();
    await library.documents.setTags(docId, ['database']);
    // The table run together: the answer quoted every setting in it.
    expect((await blockTexts(store, docId)).join('\n')).not.toContain(CELL_SEPARATOR);
    await expect(library.queue.readAgainOffer()).resolves.toEqual({ documents: 1, withoutOriginals: 0, better: [READERS.pdf.better] });

    await expect(library.queue.readAgain()).resolves.toBe(1);
    // Asked twice (a double click, a second tab), it is queued once.
    await expect(library.queue.readAgain()).resolves.toBe(0);
    await library.processQueue();

    const doc = (await store.getDocument(docId))!;
    expect(doc).toMatchObject({ reader: READERS.pdf.version, tags: ['database'], addedAt: 5, path: 'manuals/settings.pdf' });
    expect((await blockTexts(store, docId)).join('\n')).toContain(['shared_buffers', '128 MB', 'memory for cached pages'].join(CELL_SEPARATOR));
    await expect(store.getOriginal(docId)).resolves.toBeDefined();
    // One document, not two; nothing left in the queue; nothing more to offer.
    expect((await library.documents.list()).map((i) => i.kind)).toEqual(['document']);
    await expect(library.queue.readAgainOffer()).resolves.toEqual({ documents: 0, withoutOriginals: 0, better: [] });
    // The index holds the new chunks, and only them.
    expect(library.indexedChunkCounts().get(docId)).toBe(doc.distinctChunks);
    const answer = (await library.asking.ask('What is the default of shared_buffers?')).segments.map((s) => s.text).join(' ');
    expect(answer).toContain('128 MB');
    expect(answer).not.toContain('work_mem');
  });

  it('cannot read again a document stored without its file: it says to add the file again', async () => {
    const { library, store, docId } = await libraryWithOldPdf(false);
    await expect(library.queue.readAgainOffer()).resolves.toEqual({ documents: 0, withoutOriginals: 1, better: [READERS.pdf.better] });
    await expect(library.queue.readAgain()).resolves.toBe(0);
    expect((await store.getDocument(docId))?.reader).toBeUndefined();
  });

  it('does not bring back a document deleted while it waited to be read again', async () => {
    const { library, store, docId } = await libraryWithOldPdf();
    library.stopWriting();
    await library.queue.readAgain();
    await library.documents.delete(docId);
    await library.startWriting();
    await library.processQueue();
    await expect(store.getDocument(docId)).resolves.toBeUndefined();
    expect(await library.documents.list()).toEqual([]);
  });


  it('says to add the file again, without a Try again, when the kept file went while it waited', async () => {
    const { library, store, docId } = await libraryWithOldPdf();
    library.stopWriting();
    await library.queue.readAgain();
    // The kept file is gone (cleared with the site's data in part, an import without files).
    await store.db.delete('originals', docId);
    await library.startWriting();
    await library.processQueue();
    const failed = (await library.documents.list()).find((i) => i.kind === 'failed');
    expect(failed?.error?.message).toContain('its original file is no longer kept, so it cannot be read again here; add the file again');
    // Trying again would fail the same way: no Try again is offered, and asking for one does nothing.
    expect(failed?.retriable).toBe(false);
    await expect(store.retryQueued(failed!.queueId!)).resolves.toBe(false);
    // The document keeps the text it had.
    expect((await store.getDocument(docId))?.reader).toBeUndefined();
  });
  it('is not offered for documents the newest reader read, nor for PDFs read wholly by OCR', () => {
    const pdf = (d: Partial<DocRecord>) => ({ type: 'pdf' as const, ...d });
    expect(readingAgainGives(pdf({}))).toBe(READERS.pdf.better);
    expect(readingAgainGives(pdf({ reader: READERS.pdf.version }))).toBeUndefined();
    expect(readingAgainGives(pdf({ pages: 3, recognisedPages: [[1, 3]] }))).toBeUndefined();
    expect(readingAgainGives(pdf({ pages: 3, recognisedPages: [[1, 2]] }))).toBe(READERS.pdf.better);
    expect(readingAgainGives({ type: 'markdown' })).toBeUndefined();
  });

  it('is offered for scans read before a language OCR reads now was added', () => {
    const scan = { type: 'pdf' as const, reader: READERS.pdf.version, pages: 2, recognisedPages: [[1, 2]] as PageRanges };
    // Stored before languages were kept: read in English, the only language there was.
    expect(readingAgainGives(scan, ['fra'])).toBe('read French in scans');
    expect(readingAgainGives({ ...scan, ocrLanguages: ['fra', 'eng'] }, ['fra'])).toBeUndefined();
    expect(readingAgainGives({ type: 'image', recognisedPages: [[1, 1]], ocrLanguages: ['eng'] }, ['fra', 'deu', 'spa'])).toBe('read French, German and Spanish in scans');
    expect(readingAgainGives(scan, [])).toBeUndefined();
    expect(readingAgainGives({ type: 'markdown' }, ['fra'])).toBeUndefined();
    // The older reader's gain is said first; the languages come with the reading anyway.
    expect(readingAgainGives({ ...scan, reader: 1, recognisedPages: [[1, 1]] }, ['fra'])).toBe(READERS.pdf.better);
  });
});

describe('the index after a document was read again elsewhere', () => {
  it('re-indexes a document whose chunks all changed though their number did not (another tab, or a snapshot from before)', async () => {
    const name = dbName();
    const store = new LibraryStore(await openLibraryDb(name));
    const bytes = new TextEncoder().encode('the original file');
    const docId = await docIdOf(bytes);
    const prepare = (text: string) => prepareDocument({ name: 'notes.txt', folder: '', bytes: new TextEncoder().encode(text), docId, addedAt: 1 }, CHUNK);
    const before = await prepare('Alpha beta gamma delta.');
    const after = await prepare('Epsilon zeta eta theta.');
    expect(after.doc.distinctChunks).toBe(before.doc.distinctChunks);
    await store.commitDocument(before, undefined);
    const keeper = new IndexKeeper(store, () => false);
    await keeper.open();
    await expect(keeper.lexical.search({ text: 'gamma' }, 5)).resolves.toHaveLength(1);

    // The writer tab read it again: same document, as many chunks, all different.
    await store.commitDocument(after, undefined, [docId]);
    store.forgetDocuments();
    await keeper.reconcile();
    await expect(keeper.lexical.search({ text: 'gamma' }, 5)).resolves.toHaveLength(0);
    await expect(keeper.lexical.search({ text: 'theta' }, 5)).resolves.toHaveLength(1);
  });

  it('carries the tags of a replaced version to the new one', async () => {
    const store = new LibraryStore(await openLibraryDb(dbName()));
    const prepare = (text: string) => prepareDocument({ name: 'lease.md', folder: 'c', bytes: new TextEncoder().encode(text), addedAt: 1 }, CHUNK);
    const v1 = await prepare('# Lease\n\nThe rent is due on the first.\n');
    const v2 = await prepare('# Lease\n\nThe rent is due on the fifth.\n');
    await store.commitDocument(v1, undefined);
    await store.setTags(v1.doc.id, ['flat']);
    await store.commitDocument(v2, undefined, [v1.doc.id]);
    await expect(store.getDocument(v2.doc.id)).resolves.toMatchObject({ tags: ['flat'] });
  });
});

describe("a folder's pictures without text", () => {
  const blankPng = () => {
    const canvas = createCanvas(400, 300);
    const g = canvas.getContext('2d');
    g.fillStyle = '#fff';
    g.fillRect(0, 0, 400, 300);
    g.fillStyle = '#3a6';
    g.fillRect(100, 80, 200, 140);
    return new Blob([new Uint8Array(canvas.toBuffer('image/png'))]);
  };

  it('are left out with one line each in the Activity, not failed rows; a picture chosen alone still fails', async () => {
    const store = new LibraryStore(await openLibraryDb(dbName()));
    const events: LibraryEvent[] = [];
    const library = createLibrary(store, (e) => events.push(e), { chunk: CHUNK, snapshotDelayMs: 60_000 });
    await library.open();
    await library.startWriting();
    await library.queue.add([
      { name: 'notes.md', folder: 'manual', blob: new Blob(['# Notes\n\nThe ferry leaves at noon.\n']) },
      { name: 'figure.png', folder: 'manual/images', blob: blankPng() },
    ]);
    await library.processQueue();
    expect((await library.documents.list()).map((i) => [i.kind, i.path])).toEqual([['document', 'manual/notes.md']]);
    expect(events).toContainEqual(expect.objectContaining({ type: 'file-done', path: 'manual/images/figure.png', outcome: 'no-text' }));

    await library.queue.add([{ name: 'photo.png', folder: '', blob: blankPng() }]);
    await library.processQueue();
    const failed = (await library.documents.list()).filter((i) => i.kind === 'failed');
    expect(failed.map((i) => [i.path, i.error?.message])).toEqual([['photo.png', 'photo.png: no text found: no text was recognised in this image']]);
  });
});
