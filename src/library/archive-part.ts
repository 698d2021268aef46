/**
 * Export and import of library files, served by the library worker (decision 0034). An export streams the
 * open library into a Blob the page saves; an import checks the whole file, writes it into the database of
 * a library that is not listed yet, and lists it only once complete. The import holds a Web Lock named for
 * that library while it runs: an unfinished import whose lock nobody holds was cut short (a closed tab, a
 * crash) and is removed at the next start of any tab.
 */
import { DocQaError } from '../core/errors.ts';
import type { ArchiveProgress, LibraryArchiveApi } from '../core/library-api.ts';
import { archiveFileName } from '../core/archive-name.ts';
import { libraryDbName, type LibraryRegistry } from '../store/library-registry.ts';
import type { LibraryDb } from '../store/schema.ts';

export interface ArchiveParts {
  /** The library this tab has open. */
  libraryId: string;
  /** Its database, once open. */
  db: () => Promise<LibraryDb>;
  registry: () => Promise<LibraryRegistry>;
  /** Opens (creating) a library's database by name. */
  openDb: (name: string) => Promise<LibraryDb>;
  /** Bytes the browser still lets the app store (undefined where it cannot say). */
  available: () => Promise<number | undefined>;
  /** The browser's Web Locks (absent in Node tests: every unfinished import is then taken as cut short). */
  locks?: LockManager;
}

/** Bytes gathered before they are handed to a Blob: the browser keeps Blobs out of the worker's heap (on disk when large). */
const FOLD_BYTES = 8 * 2 ** 20;

/** A sink that gathers a stream into a Blob, a few MB at a time, so the worker holds at most a few MB of it. */
function blobSink(): { stream: WritableStream<Uint8Array>; blob: () => Blob } {
  const blobs: Blob[] = [];
  let pending: Uint8Array<ArrayBuffer>[] = [];
  let pendingBytes = 0;
  const fold = () => {
    if (!pending.length) return;
    blobs.push(new Blob(pending));
    pending = [];
    pendingBytes = 0;
  };
  const stream = new WritableStream<Uint8Array>({
    write(chunk) {
      pending.push(chunk.slice());
      pendingBytes += chunk.byteLength;
      if (pendingBytes >= FOLD_BYTES) fold();
    },
  });
  return {
    stream,
    blob: () => {
      fold();
      return new Blob(blobs, { type: 'application/zip' });
    },
  };
}

const importLock = (id: string) => `docqa-import:${id}`;

/**
 * The ZIP reader and writer (zip.js, hashing) are loaded on the first export or import: a worker that
 * never exports starts without them (they were 0.5 MB of the library worker's 1 MB, read at every start).
 */
const archiveCode = {
  export: () => import('../store/library-export.ts'),
  import: () => import('../store/library-import.ts'),
};

export function archivePart(parts: ArchiveParts): LibraryArchiveApi {
  let running: AbortController | undefined;
  const start = () => {
    if (running) throw new DocQaError('invalid-setting', 'an export or import is already running in this tab: wait for it or cancel it');
    running = new AbortController();
    return running;
  };
  const report = (onProgress: ((p: ArchiveProgress) => void) | undefined) => (p: ArchiveProgress) => void Promise.resolve(onProgress?.(p)).catch(() => undefined);

  return {
    async export({ includeOriginals, target }, onProgress) {
      const control = start();
      try {
        const db = await parts.db();
        const name = (await (await parts.registry()).get(parts.libraryId))?.name ?? 'My library';
        const options = { libraryName: name, includeOriginals, signal: control.signal, onProgress: report(onProgress) };
        if (target) {
          // Straight to the file the person chose: nothing of it is held in memory. Until the stream
          // closes the browser writes a copy beside it; an export that fails or is cancelled leaves the
          // file as it was (an older backup chosen again is kept whole).
          const file = await target.createWritable();
          // zip.js holds the stream it writes to; this one passes the bytes on, so the file can be aborted.
          const sink = new WritableStream<Uint8Array>({ write: (chunk) => file.write(chunk as Uint8Array<ArrayBuffer>), close: () => file.close() });
          let manifest;
          try {
            manifest = await (await archiveCode.export()).exportLibrary(db, sink, options);
          } catch (err) {
            await file.abort().catch(() => undefined);
            throw err;
          }
          const { documents, conversations, originals } = manifest.counts;
          return { fileName: target.name, bytes: (await target.getFile()).size, documents, conversations, originals };
        }
        const sink = blobSink();
        const manifest = await (await archiveCode.export()).exportLibrary(db, sink.stream, options);
        const { documents, conversations, originals } = manifest.counts;
        const file = sink.blob();
        return { file, fileName: archiveFileName(name), bytes: file.size, documents, conversations, originals };
      } finally {
        running = undefined;
      }
    },

    async import(file, onProgress) {
      const control = start();
      try {
        const available = await parts.available();
        const checked = await (await archiveCode.import()).checkLibraryArchive(file, { signal: control.signal, onProgress: report(onProgress), available });
        const registry = await parts.registry();
        // The lock is taken before the entry exists, so no tab ever sees the entry without its lock held.
        const id = crypto.randomUUID();
        const write = async () => {
          const entry = await registry.beginImport(checked.manifest.library.name, id);
          const db = await parts.openDb(libraryDbName(entry.id));
          try {
            const counts = await (await archiveCode.import()).writeLibraryArchive(checked, db, { signal: control.signal, onProgress: report(onProgress) });
            db.close();
            const listed = await registry.finishImport(entry.id);
            const vectors = Object.values(counts.vectors).reduce((a, b) => a + b, 0);
            return { library: { ...listed, current: false }, documents: counts.documents, conversations: counts.conversations, vectors };
          } catch (err) {
            db.close();
            await registry.abandonImport(entry.id);
            throw err;
          }
        };
        return await (parts.locks ? parts.locks.request(importLock(id), write) : write());
      } finally {
        running = undefined;
      }
    },

    async cancel() {
      running?.abort();
    },

    async sweepUnfinishedImports() {
      const registry = await parts.registry();
      const unfinished = await registry.unfinishedImports();
      if (!unfinished.length) return [];
      const held = new Set(((await parts.locks?.query())?.held ?? []).map((l) => l.name));
      const said: string[] = [];
      for (const entry of unfinished) {
        if (held.has(importLock(entry.id))) continue; // Still running in some tab.
        await registry.abandonImport(entry.id);
        said.push(`The import of "${entry.name}" was cut short (the tab was closed or the browser stopped) and what it had written was removed: import the file again.`);
      }
      return said;
    },
  };
}
