/**
 * Library files made by the app's own export, in Node (fake-indexeddb), for tests that import one: a
 * library of `documents` generated Markdown notes, each a few passages long.
 */
import 'fake-indexeddb/auto';
import { prepareDocument } from '../../src/ingest/prepare-document.ts';
import { exportLibrary } from '../../src/store/library-export.ts';
import { LibraryStore } from '../../src/store/library-store.ts';
import { openLibraryDb } from '../../src/store/schema.ts';

let made = 0;

/** The bytes of a library file holding `documents` notes, named `libraryName` (parts of `partBytes`: small ones make many). */
export async function makeLibraryFile(documents: number, libraryName: string, partBytes?: number): Promise<Uint8Array> {
  const db = await openLibraryDb(`library-file-fixture-${Date.now()}-${made++}`);
  const store = new LibraryStore(db);
  for (let i = 0; i < documents; i++) {
    const name = `note-${String(i).padStart(5, '0')}.md`;
    const text = `# Note ${i}\n\nMeeting ${i} agreed that item ${i * 7} ships in week ${i % 52}.\n\nThe budget line ${i} stays at ${(i * 131) % 9000} euros until the review.\n`;
    const [entry] = await store.enqueue([{ name, folder: 'notes', path: `notes/${name}`, blob: new Blob([text]) }]);
    await store.commitDocument(await prepareDocument({ name, folder: 'notes', bytes: new TextEncoder().encode(text), addedAt: 1 }, { maxChars: 400, overlapChars: 0, parentChars: 1200 }), entry!.id);
  }
  const pieces: Uint8Array[] = [];
  await exportLibrary(db, new WritableStream({ write: (c) => void pieces.push(c.slice()) }), { libraryName, partBytes });
  db.close();
  return Buffer.concat(pieces);
}
