// The library file (export and import) in Node with fake-indexeddb: a library exported and imported into an
// empty database holds the same records and answers the same question with the same passage; hostile files
// (a `../` entry, a compression bomb, a file cut short, a tampered entry, a newer format, a million entries,
// counts that lie) are refused with what is wrong, before anything is written; Cancel stops both ways.
import { afterEach, describe, expect, it } from 'vitest';
import { IDBFactory } from 'fake-indexeddb';
import { archiveFileName } from '../../src/core/archive-name.ts';
import { archivePart } from '../../src/library/archive-part.ts';
import { libraryDbName, LibraryRegistry } from '../../src/store/library-registry.ts';
import type { ChunkOptions } from '../../src/ingest/chunk.ts';
import { prepareDocument } from '../../src/ingest/prepare-document.ts';
import { asChunkId, asModelId } from '../../src/core/ids.ts';
import { createLibrary } from '../../src/library/library.ts';
import { ConversationStore } from '../../src/store/conversation-store.ts';
import type { ArchiveManifest } from '../../src/store/library-archive-format.ts';
import { exportLibrary, type ExportOptions } from '../../src/store/library-export.ts';
import { checkLibraryArchive, writeLibraryArchive } from '../../src/store/library-import.ts';
import { LibraryStore } from '../../src/store/library-store.ts';
import { openLibraryDb, type LibraryDb } from '../../src/store/schema.ts';
import { VectorStore } from '../../src/store/vector-store.ts';
import { cutShort, manifestOf, millionEntryZip, newerFormat, tampered, unzip, withCompressionBomb, withDotDotEntry, withManifest, zip } from '../support/hostile-library-files.ts';

const CHUNK: ChunkOptions = { maxChars: 200, overlapChars: 0, parentChars: 600 };
const FILES: Record<string, string> = {
  'lease.md': '# Lease\n\nThe tenant pays the rent on the first day of each month.\n\nThe deposit is returned within two months after the keys are handed back.\n',
  'heating.md': '# Heating\n\nThe landlord repairs the boiler within three days of a written notice.\n',
  'notes.txt': 'Meeting notes.\n\nThe guarantor is Ms Alvarez, who signed on 3 March.\n',
};

let dbCount = 0;
const freshDb = () => openLibraryDb(`archive-test-${Date.now()}-${dbCount++}`);

/** A library of three documents (one with its original), vectors of one model, a conversation and a setting. */
async function sampleLibrary(): Promise<LibraryDb> {
  const db = await freshDb();
  const store = new LibraryStore(db);
  for (const [name, text] of Object.entries(FILES)) {
    const [entry] = await store.enqueue([{ name, folder: 'case', path: `case/${name}`, blob: new Blob([text]) }]);
    const prepared = await prepareDocument({ name, folder: 'case', bytes: new TextEncoder().encode(text), addedAt: 1 }, CHUNK);
    await store.commitDocument(prepared, entry!.id, [], name === 'lease.md' ? new Blob([text]) : undefined);
  }
  const chunkIds = (await db.getAllKeys('chunks')).map((k) => asChunkId(k));
  await new VectorStore(db).put(asModelId('bge-small-en-v1.5'), chunkIds.map((chunkId, i) => ({ chunkId, vector: Float32Array.from({ length: 8 }, (_, d) => Math.sin(i + d)) })));
  const conversations = new ConversationStore(db);
  const c = await conversations.create('When is the rent paid?', 1000);
  await conversations.appendTurn(c.id, { question: 'When is the rent paid?', standalone: 'When is the rent paid?', answer: { question: 'When is the rent paid?', found: true, segments: [{ text: 'On the first day.', cite: 1 }], citations: [] }, at: 1000 });
  await db.put('settings', { model: 'bge-small-en-v1.5' }, 'semantic');
  return db;
}

async function exportToBlob(db: LibraryDb, options: Partial<ExportOptions> = {}): Promise<{ blob: Blob; manifest: ArchiveManifest }> {
  const pieces: Uint8Array<ArrayBuffer>[] = [];
  const sink = new WritableStream<Uint8Array>({ write: (c) => void pieces.push(c.slice()) });
  const manifest = await exportLibrary(db, sink, { libraryName: 'Case 12', partBytes: 300, ...options });
  return { blob: new Blob(pieces), manifest };
}

/** Every store an export carries, as plain records, for comparison. */
async function contents(db: LibraryDb) {
  const all = async (store: 'documents' | 'manifests' | 'blocks' | 'chunks' | 'conversations' | 'conversationTurns') => db.getAll(store);
  const documents = (await db.getAll('documents')).map(({ queueId: _q, ...d }) => d);
  const vectors = (await db.getAll('vectors')).map((v) => ({ ...v, vector: [...v.vector] }));
  const originals = await Promise.all((await db.getAllKeys('originals')).map(async (k) => [k, await (await db.get('originals', k))!.text()]));
  return { documents, manifests: await all('manifests'), blocks: await all('blocks'), chunks: await all('chunks'), vectors, originals, conversations: await all('conversations'), turns: await all('conversationTurns'), semantic: await db.get('settings', 'semantic') };
}

async function importBlob(blob: Blob, options = {}): Promise<LibraryDb> {
  const checked = await checkLibraryArchive(blob, options);
  const db = await freshDb();
  await writeLibraryArchive(checked, db, options);
  return db;
}

/** Whether a database holds any record at all (a refused file must leave none). */
async function isEmpty(db: LibraryDb): Promise<boolean> {
  for (const store of db.objectStoreNames) if ((await db.count(store)) > 0) return false;
  return true;
}

describe('library file', () => {
  it('round trip: the imported library holds the same records and answers with the same passage', async () => {
    const db = await sampleLibrary();
    const progress: number[] = [];
    const { blob, manifest } = await exportToBlob(db, { includeOriginals: true, onProgress: (p) => progress.push(p.done) });
    expect(manifest.counts).toMatchObject({ documents: 3, conversations: 1, turns: 1, originals: 1, vectors: { 'bge-small-en-v1.5': expect.any(Number) } });
    expect(progress).toEqual([1, 2, 3, 1]);
    // Small parts: several of them, each with its vectors.
    const names = manifest.entries.map((e) => e.name);
    expect(names.filter((n) => /^documents\/\d{6}\.jsonl$/.test(n)).length).toBeGreaterThan(1);
    expect(names).toContain('documents/000001.vectors');
    expect(names).toContain('originals/000001');

    const imported = await importBlob(blob);
    expect(await contents(imported)).toEqual(await contents(db));

    // The same question finds the same passage in both.
    const ask = async (d: LibraryDb) => {
      const library = createLibrary(new LibraryStore(d), () => undefined, { chunk: CHUNK, snapshotDelayMs: 60_000 });
      await library.open();
      const answer = await library.asking.ask('When is the deposit returned?');
      await library.close('deleted');
      return { text: answer.segments.map((g) => g.text).join(''), sources: answer.citations.map((c) => [c.passage.docPath, c.passage.chunkId]) };
    };
    const before = await ask(db);
    expect(before.sources.length).toBeGreaterThan(0);
    expect(before.text).toContain('two months');
    expect(await ask(imported)).toEqual(before);
  });

  it('without originals, leaves them out and says so in its counts', async () => {
    const { blob, manifest } = await exportToBlob(await sampleLibrary());
    expect(manifest.counts.originals).toBe(0);
    expect(manifest.entries.some((e) => e.name.startsWith('originals/'))).toBe(false);
    expect(await (await importBlob(blob)).count('originals')).toBe(0);
  });

  describe('refuses a hostile or damaged file before writing anything', () => {
    const refused = async (blob: Blob, message: RegExp) => {
      await expect(checkLibraryArchive(blob)).rejects.toMatchObject({ code: 'archive-refused', message: expect.stringMatching(message) });
    };

    it('an entry named ../', async () => {
      await refused(await withDotDotEntry((await exportToBlob(await sampleLibrary())).blob), /entry named "\.\.\/\.\.\/evil\.js", which this app never writes/);
    });

    it('a compression bomb', async () => {
      await refused(await withCompressionBomb((await exportToBlob(await sampleLibrary())).blob), /documents\/000099\.jsonl expands \d+ times \(to 4\.0 MB\): a compression bomb/);
    });

    it('a file cut short', async () => {
      await refused(cutShort((await exportToBlob(await sampleLibrary())).blob), /not a ZIP archive, or it was cut short/);
    });

    it('a tampered entry (its checksum no longer matches)', async () => {
      const { file, part } = await tampered((await exportToBlob(await sampleLibrary())).blob, 'first day', 'fifth day');
      expect(part).toMatch(/^documents\/\d{6}\.jsonl$/);
      await refused(file, new RegExp(`${part.replace(/[/.]/g, '\\$&')} does not match its checksum: the file was altered or damaged`));
    });

    it('a newer format version, with "update first"', async () => {
      await refused(await newerFormat((await exportToBlob(await sampleLibrary())).blob), /made by a newer version of the app .*update the app first/);
    });

    it('a million tiny entries (from the end record alone)', async () => {
      await refused(millionEntryZip(), /it has 1,000,000 entries; a library file has at most 200,000/);
    });

    it('counts that do not match what it holds, found before the library is listed', async () => {
      const entries = await unzip((await exportToBlob(await sampleLibrary())).blob);
      const manifest = manifestOf(entries);
      manifest.counts.documents += 1;
      const checked = await checkLibraryArchive(await zip(withManifest(entries, manifest)));
      await expect(writeLibraryArchive(checked, await freshDb())).rejects.toMatchObject({ code: 'archive-refused', message: expect.stringMatching(/it holds 3 documents, its manifest says 4/) });
    });

    it('a file that is not a library at all, and one that would not fit', async () => {
      await refused(new Blob(['%PDF-1.7 not a zip']), /not a ZIP archive/);
      await refused(await zip(new Map([['readme.txt', new Uint8Array(3)]])), /entry named "readme\.txt"/);
      const { blob } = await exportToBlob(await sampleLibrary());
      await expect(checkLibraryArchive(blob, { available: 100 })).rejects.toMatchObject({ code: 'storage-full', message: expect.stringMatching(/needs about \d+ KB and this browser lets the app store 0 KB more/) });
    });
  });

  it('Cancel stops an export and an import', async () => {
    const db = await sampleLibrary();
    const stop = new AbortController();
    await expect(exportToBlob(db, { signal: stop.signal, onProgress: (p) => p.done === 2 && stop.abort() })).rejects.toMatchObject({ code: 'cancelled' });
    const { blob } = await exportToBlob(db);
    const cancel = new AbortController();
    const checked = await checkLibraryArchive(blob);
    const target = await freshDb();
    await expect(writeLibraryArchive(checked, target, { signal: cancel.signal, onProgress: () => cancel.abort() })).rejects.toMatchObject({ code: 'cancelled' });
    expect(await target.count('documents')).toBeLessThan(3);
    // A refused check wrote nothing anywhere: the database it would have used is not even created.
    expect(await isEmpty(await freshDb())).toBe(true);
  });
});

describe('importing as a new library', () => {
  afterEach(() => {
    // A fresh browser profile for each test.
    globalThis.indexedDB = new IDBFactory();
  });
  const databases = async () => (await indexedDB.databases()).map((d) => d.name).sort();
  const part = (locks?: LockManager) => {
    let registry: Promise<LibraryRegistry> | undefined;
    return archivePart({ libraryId: 'default', db: () => sampleLibrary(), registry: () => (registry ??= LibraryRegistry.open()), openDb: (name) => openLibraryDb(name), available: async () => undefined, locks });
  };

  it('is listed only once complete, under the name it was exported with (numbered when taken), never over another', async () => {
    const archive = part();
    const exported = await archive.export({ includeOriginals: false });
    expect(exported.fileName).toBe('My library.docqa.zip');
    expect(exported.bytes).toBe(exported.file!.size);
    const first = await archive.import(exported.file!);
    expect(first).toMatchObject({ library: { name: 'My library (2)', current: false }, documents: 3, conversations: 1 });
    expect(first.vectors).toBeGreaterThan(0);
    const second = await archive.import(exported.file!);
    expect(second.library.name).toBe('My library (3)');
    const registry = await LibraryRegistry.open();
    expect((await registry.list()).map((l) => l.name)).toEqual(['My library', 'My library (2)', 'My library (3)']);
    const db = await openLibraryDb(libraryDbName(second.library.id));
    expect(await db.count('documents')).toBe(3);
    db.close();
    registry.close();
  });

  it('a file refused mid-write leaves no library listed and no database behind', async () => {
    const archive = part();
    const entries = await unzip((await archive.export({ includeOriginals: false })).file!);
    const manifest = manifestOf(entries);
    manifest.counts.turns += 2;
    const before = await databases();
    await expect(archive.import(await zip(withManifest(entries, manifest)))).rejects.toMatchObject({ code: 'archive-refused', message: expect.stringMatching(/it holds 1 turns, its manifest says 3/) });
    const registry = await LibraryRegistry.open();
    expect((await registry.list()).map((l) => l.name)).toEqual(['My library']);
    expect(await registry.unfinishedImports()).toEqual([]);
    expect(await databases()).toEqual(before);
    registry.close();
  });

  it('an import cut short (a crash, a closed tab) is removed at the next start, and said; one still running is left alone', async () => {
    const registry = await LibraryRegistry.open();
    const crashed = await registry.beginImport('Case 7');
    const running = await registry.beginImport('Case 8');
    for (const { id } of [crashed, running]) {
      const db = await openLibraryDb(libraryDbName(id));
      await db.put('settings', 'half', 'probe');
      db.close();
    }
    expect((await registry.list()).map((l) => l.name)).toEqual(['My library']);
    await expect(registry.get(crashed.id)).resolves.toBeUndefined();
    // Another tab holds the lock of the import it is running.
    const locks = { query: async () => ({ held: [{ name: `docqa-import:${running.id}` }], pending: [] }) } as unknown as LockManager;
    expect(await part(locks).sweepUnfinishedImports()).toEqual(['The import of "Case 7" was cut short (the tab was closed or the browser stopped) and what it had written was removed: import the file again.']);
    expect(await databases()).toEqual(['docqa-libraries', `docqa-library-${running.id}`]);
    expect((await registry.unfinishedImports()).map((l) => l.name)).toEqual(['Case 8']);
    registry.close();
  });

  it('names the file after the library, safely', () => {
    expect(archiveFileName('Case 12: Smith v. Jones/2024')).toBe('Case 12 Smith v. Jones 2024.docqa.zip');
    expect(archiveFileName('../..')).toBe('library.docqa.zip');
    expect(archiveFileName('Dossier été')).toBe('Dossier été.docqa.zip');
  });
});
