/**
 * Library files made by the app's own export, in Node (fake-indexeddb), for tests that import one: a
 * library of `documents` generated Markdown notes, each a few passages long.
 */
import 'fake-indexeddb/auto';
import { randomBytes } from 'node:crypto';
import { prepareDocument } from '../../src/ingest/prepare-document.ts';
import { exportLibrary } from '../../src/store/library-export.ts';
import { LibraryStore } from '../../src/store/library-store.ts';
import { openLibraryDb } from '../../src/store/schema.ts';

let made = 0;

export interface LibraryFileOptions {
  /** Size of the parts of lines (small ones make many parts). */
  partBytes?: number;
  /**
   * When set, every note keeps an original of this many random bytes, exported with it: incompressible, as
   * a scanned PDF's would be, so that the library takes about this much space per note once imported.
   */
  originalBytes?: number;
}

/** The bytes of a library file holding `documents` notes, named `libraryName`. */
export async function makeLibraryFile(documents: number, libraryName: string, options: LibraryFileOptions = {}): Promise<Uint8Array<ArrayBuffer>> {
  const db = await openLibraryDb(`library-file-fixture-${Date.now()}-${made++}`);
  const store = new LibraryStore(db);
  for (let i = 0; i < documents; i++) {
    const name = `note-${String(i).padStart(5, '0')}.md`;
    const text = `# Note ${i}\n\nMeeting ${i} agreed that item ${i * 7} ships in week ${i % 52}.\n\nThe budget line ${i} stays at ${(i * 131) % 9000} euros until the review.\n`;
    const [entry] = await store.enqueue([{ name, folder: 'notes', path: `notes/${name}`, blob: new Blob([text]) }]);
    const original = options.originalBytes ? new Blob([randomBytes(options.originalBytes)]) : undefined;
    await store.commitDocument(await prepareDocument({ name, folder: 'notes', bytes: new TextEncoder().encode(text), addedAt: 1 }, { maxChars: 400, overlapChars: 0, parentChars: 1200 }), entry!.id, [], original);
  }
  const pieces: Uint8Array[] = [];
  await exportLibrary(db, new WritableStream({ write: (c) => void pieces.push(c.slice()) }), { libraryName, partBytes: options.partBytes, includeOriginals: !!options.originalBytes });
  db.close();
  return new Uint8Array(Buffer.concat(pieces));
}
