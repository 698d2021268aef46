/**
 * Reads a library file (`library-archive-format.ts`) in two passes. The first writes nothing: it checks
 * the archive as a whole (its end record, the number of entries, every entry's name and size against the
 * manifest, compression ratios, the space it needs) and then reads every entry once to check its size and
 * SHA-256. Only a file that passes all of that is written, by the second pass, into a database nobody
 * sees yet (the caller lists the library once it is complete); the lines are checked again as they are
 * parsed, and the counts against the manifest at the end. Memory is bounded by one part.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { concatBytes } from '../core/bytes.ts';
import { DocQaError, isQuotaError, STORAGE_FULL_MESSAGE } from '../core/errors.ts';
import type { DocId } from '../core/ids.ts';
import { ZIP_TAIL_BYTES, zipEntryCount } from '../core/zip-directory.ts';
import { formatBytes } from '../core/format-bytes.ts';
import { ARCHIVE_LIMITS, checkConversationLine, checkDocumentLine, checkManifest, isArchiveEntryName, MANIFEST_ENTRY, type ArchiveCounts, type ArchiveManifest, type DocumentLine } from './library-archive-format.ts';
import type { ArchiveProgress } from '../core/library-api.ts';
import type { LibraryDb } from './schema.ts';
import { abortQuietly, settle } from './transactions.ts';
import { BlobReader, ZipReader, type FileEntry } from './zip.ts';

export interface ImportOptions {
  signal?: AbortSignal;
  onProgress?(progress: ArchiveProgress): void;
  /** Bytes the browser still lets the app store; a file that needs more is refused before anything is written. */
  available?: number;
}

/** A library file that passed every check of the first pass. */
export interface CheckedArchive {
  manifest: ArchiveManifest;
  entries: Map<string, FileEntry>;
  reader: ZipReader<unknown>;
}

const refuse = (why: string, cause?: unknown) => new DocQaError('archive-refused', why, cause === undefined ? undefined : { cause });

const stopIf = (signal: AbortSignal | undefined) => {
  if (signal?.aborted) throw new DocQaError('cancelled', 'import cancelled: no library was created');
};

/** Streams an entry, refusing it past `limit` bytes (declared sizes can lie), handing each piece to `onChunk`. */
async function readEntry(entry: FileEntry, limit: number, signal: AbortSignal | undefined, onChunk: (chunk: Uint8Array) => void): Promise<number> {
  let bytes = 0;
  const sink = new WritableStream<Uint8Array>({
    write(chunk) {
      bytes += chunk.byteLength;
      if (bytes > limit) throw refuse(`its entry ${entry.filename} holds more than the manifest says (${limit} bytes): the file was altered or is a compression bomb`);
      onChunk(chunk);
    },
  });
  try {
    await entry.getData(sink, { checkSignature: true, signal });
  } catch (err) {
    if (err instanceof DocQaError) throw err;
    stopIf(signal);
    throw refuse(`its entry ${entry.filename} cannot be read (${err instanceof Error ? err.message : String(err)}): the file is damaged or cut short`, err);
  }
  return bytes;
}

async function readBytes(entry: FileEntry, limit: number, signal?: AbortSignal): Promise<Uint8Array> {
  const pieces: Uint8Array[] = [];
  await readEntry(entry, limit, signal, (c) => pieces.push(c));
  return concatBytes(pieces);
}

const entryNotOurs = (name: string) =>
  `it holds an entry named "${name.slice(0, 80)}", which this app never writes (a library file holds only manifest.json, documents/, conversations/ and originals/)`;

/** The archive's entries, after the checks that need no entry read: count, names, duplicates. */
async function openArchive(file: Blob): Promise<{ reader: ZipReader<unknown>; entries: Map<string, FileEntry> }> {
  const tailStart = Math.max(0, file.size - ZIP_TAIL_BYTES);
  const count = zipEntryCount(new Uint8Array(await file.slice(tailStart).arrayBuffer()), tailStart);
  if (count === undefined) throw refuse('it is not a ZIP archive, or it was cut short (its end record is missing): export the library again');
  if (count > ARCHIVE_LIMITS.maxEntries) throw refuse(`it has ${count.toLocaleString('en')} entries; a library file has at most ${ARCHIVE_LIMITS.maxEntries.toLocaleString('en')}`);
  const reader = new ZipReader(new BlobReader(file));
  let list;
  try {
    list = await reader.getEntries();
  } catch (err) {
    const unsafe = (err as { filename?: unknown }).filename;
    if (typeof unsafe === 'string') throw refuse(entryNotOurs(unsafe), err);
    throw refuse(`its list of entries cannot be read (${err instanceof Error ? err.message : String(err)}): the file is damaged or cut short`, err);
  }
  const entries = new Map<string, FileEntry>();
  for (const entry of list) {
    const name = entry.filename;
    if (entry.directory || !isArchiveEntryName(name)) throw refuse(entryNotOurs(name));
    if (entries.has(name)) throw refuse(`it holds two entries named ${name}`);
    if (entry.encrypted) throw refuse(`its entry ${name} is encrypted`);
    entries.set(name, entry);
  }
  return { reader, entries };
}

/**
 * The first pass: every check that needs no writing. Throws 'archive-refused' with what is wrong,
 * 'storage-full' when the library would not fit, 'cancelled' when `signal` aborts.
 */
export async function checkLibraryArchive(file: Blob, options: ImportOptions = {}): Promise<CheckedArchive> {
  const { reader, entries } = await openArchive(file);
  const manifestEntry = entries.get(MANIFEST_ENTRY);
  if (!manifestEntry) throw refuse('it has no manifest.json: it is not a DocQA library file');
  if (manifestEntry.uncompressedSize > ARCHIVE_LIMITS.maxManifestBytes) throw refuse(`its manifest is ${formatBytes(manifestEntry.uncompressedSize)}; at most ${formatBytes(ARCHIVE_LIMITS.maxManifestBytes)}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(await readBytes(manifestEntry, ARCHIVE_LIMITS.maxManifestBytes, options.signal)));
  } catch (err) {
    if (err instanceof DocQaError) throw err;
    throw refuse('its manifest is not valid JSON', err);
  }
  const manifest = checkManifest(parsed);

  // The manifest and the archive must list the same entries, of the same sizes.
  const listed = new Map(manifest.entries.map((e) => [e.name, e]));
  if (listed.size !== manifest.entries.length) throw refuse('its manifest lists an entry twice');
  for (const name of entries.keys()) if (name !== MANIFEST_ENTRY && !listed.has(name)) throw refuse(`it holds ${name}, which its manifest does not list`);
  let total = 0;
  for (const e of manifest.entries) {
    const entry = entries.get(e.name);
    if (!entry) throw refuse(`${e.name}, listed in its manifest, is missing: the file is incomplete`);
    if (entry.uncompressedSize !== e.bytes) throw refuse(`${e.name} is ${entry.uncompressedSize} bytes, its manifest says ${e.bytes}: the file was altered`);
    const limit = e.name.startsWith('originals/') ? ARCHIVE_LIMITS.maxOriginalBytes : ARCHIVE_LIMITS.maxPartBytes;
    if (e.bytes > limit) throw refuse(`${e.name} is ${formatBytes(e.bytes)}; at most ${formatBytes(limit)}`);
    if (e.bytes > ARCHIVE_LIMITS.ratioFloorBytes && e.bytes > entry.compressedSize * ARCHIVE_LIMITS.maxCompressionRatio) {
      throw refuse(`${e.name} expands ${Math.round(e.bytes / Math.max(1, entry.compressedSize))} times (to ${formatBytes(e.bytes)}): a compression bomb, not a library`);
    }
    total += e.bytes;
  }
  if (options.available !== undefined && total > options.available) {
    throw new DocQaError('storage-full', `the library needs about ${formatBytes(total)} and this browser lets the app store ${formatBytes(options.available)} more: ${STORAGE_FULL_MESSAGE}`);
  }

  // Every entry read once: its size and checksum.
  let done = 0;
  for (const e of manifest.entries) {
    stopIf(options.signal);
    const hash = sha256.create();
    const bytes = await readEntry(entries.get(e.name)!, e.bytes, options.signal, (c) => hash.update(c));
    if (bytes !== e.bytes) throw refuse(`${e.name} holds ${bytes} bytes, its manifest says ${e.bytes}: the file was altered or cut short`);
    if (bytesToHex(hash.digest()) !== e.sha256) throw refuse(`${e.name} does not match its checksum: the file was altered or damaged`);
    done += e.bytes;
    options.onProgress?.({ stage: 'checking', done, total });
  }
  return { manifest, entries, reader };
}

/** Splits a part's text into parsed lines, refusing one that is not JSON. */
function parseLines(bytes: Uint8Array, name: string): unknown[] {
  const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  return text
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line, i) => {
      try {
        return JSON.parse(line) as unknown;
      } catch (err) {
        throw refuse(`${name}, line ${i + 1}, is not valid JSON`, err);
      }
    });
}

/**
 * The second pass: writes a checked archive into `db` (a new, empty library database), a part per
 * transaction, and checks the counts against the manifest. On any error the caller deletes the database.
 */
export async function writeLibraryArchive(checked: CheckedArchive, db: LibraryDb, options: ImportOptions = {}): Promise<ArchiveCounts> {
  const { manifest, entries } = checked;
  const counts: ArchiveCounts = { documents: 0, blocks: 0, chunks: 0, vectors: {}, conversations: 0, turns: 0, originals: 0 };
  const parts = [...entries.keys()].filter((n) => n.endsWith('.jsonl')).sort();
  try {
    for (const name of parts.filter((n) => n.startsWith('documents/'))) {
      stopIf(options.signal);
      const lines = parseLines(await readBytes(entries.get(name)!, ARCHIVE_LIMITS.maxPartBytes), name).map((l, i) => checkDocumentLine(l, `${name}, line ${i + 1}`));
      const vectorsName = name.replace(/\.jsonl$/, '.vectors');
      const floats = entries.has(vectorsName) ? await readBytes(entries.get(vectorsName)!, ARCHIVE_LIMITS.maxPartBytes) : new Uint8Array(0);
      const originals = new Map<string, Blob>();
      for (const line of lines) {
        if (!line.original) continue;
        const entry = entries.get(line.original);
        if (!entry) throw refuse(`${name}: the original ${line.original} of "${line.document.path}" is missing`);
        originals.set(line.original, new Blob(await readPieces(entry)));
      }
      await writeDocuments(db, lines, floats, originals, name, counts);
      options.onProgress?.({ stage: 'writing', done: counts.documents, total: manifest.counts.documents });
    }
    for (const name of parts.filter((n) => n.startsWith('conversations/'))) {
      stopIf(options.signal);
      const lines = parseLines(await readBytes(entries.get(name)!, ARCHIVE_LIMITS.maxPartBytes), name).map((l, i) => checkConversationLine(l, `${name}, line ${i + 1}`));
      const tx = db.transaction(['conversations', 'conversationTurns'], 'readwrite');
      const writes: Array<Promise<unknown>> = [];
      for (const { conversation, turns } of lines) {
        writes.push(tx.objectStore('conversations').put(conversation));
        for (const turn of turns) writes.push(tx.objectStore('conversationTurns').put(turn));
        counts.conversations++;
        counts.turns += turns.length;
      }
      await settle(tx.done, writes);
    }
    const semantic = manifest.settings.semantic;
    if (typeof semantic === 'object' && semantic !== null) await db.put('settings', semantic, 'semantic');
  } catch (err) {
    if (isQuotaError(err)) throw new DocQaError('storage-full', `the library did not fit: ${STORAGE_FULL_MESSAGE}; nothing of it was kept`, { cause: err });
    throw err;
  }
  const expected = manifest.counts;
  const differs = (['documents', 'blocks', 'chunks', 'conversations', 'turns', 'originals'] as const).find((k) => counts[k] !== expected[k]);
  if (differs) throw refuse(`it holds ${counts[differs]} ${differs}, its manifest says ${expected[differs]}: the file was altered`);
  for (const model of new Set([...Object.keys(counts.vectors), ...Object.keys(expected.vectors)])) {
    if ((counts.vectors[model] ?? 0) !== (expected.vectors[model] ?? 0)) throw refuse(`it holds ${counts.vectors[model] ?? 0} vectors of ${model}, its manifest says ${expected.vectors[model] ?? 0}`);
  }
  return counts;
}

async function readPieces(entry: FileEntry): Promise<BlobPart[]> {
  const pieces: Uint8Array<ArrayBuffer>[] = [];
  await readEntry(entry, ARCHIVE_LIMITS.maxOriginalBytes, undefined, (c) => pieces.push(c as Uint8Array<ArrayBuffer>));
  return pieces;
}

/** Writes one part's documents in one transaction: all of the part, or none of it. */
async function writeDocuments(db: LibraryDb, lines: readonly DocumentLine[], floats: Uint8Array, originals: Map<string, Blob>, name: string, counts: ArchiveCounts): Promise<void> {
  const tx = db.transaction(['documents', 'manifests', 'blocks', 'chunks', 'vectors', 'originals'], 'readwrite');
  const writes: Array<Promise<unknown>> = [];
  let at = 0;
  try {
    for (const line of lines) {
      writes.push(tx.objectStore('documents').put(line.document));
      writes.push(tx.objectStore('manifests').put(line.manifest));
      for (const block of line.blocks) writes.push(tx.objectStore('blocks').put(block));
      for (const chunk of line.chunks) writes.push(tx.objectStore('chunks').put(chunk));
      for (const v of line.vectors) {
        const end = at + v.dimensions * 4;
        if (end > floats.byteLength) throw refuse(`${name}: its vectors end before "${line.document.path}"'s do`);
        writes.push(tx.objectStore('vectors').put({ model: v.model, chunkId: v.chunkId, vector: new Float32Array(floats.slice(at, end).buffer) }));
        counts.vectors[v.model] = (counts.vectors[v.model] ?? 0) + 1;
        at = end;
      }
      const original = line.original && originals.get(line.original);
      if (original) {
        writes.push(tx.objectStore('originals').put(original, line.document.id as DocId));
        counts.originals++;
      }
      counts.documents++;
      counts.blocks += line.blocks.length;
      counts.chunks += line.chunks.length;
    }
    if (at !== floats.byteLength) throw refuse(`${name}: its vectors hold more than its lines list`);
  } catch (err) {
    abortQuietly(tx, writes);
    throw err;
  }
  await settle(tx.done, writes);
}
