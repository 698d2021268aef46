/**
 * Writes a library to one file (`library-archive-format.ts`), a part at a time: documents are read in
 * small batches (each batch in one read transaction, so a document is written whole, as it was), their
 * lines gathered into a part of about {@link PART_BYTES}, and the part handed to the ZIP writer, which
 * streams to `sink`. Memory is bounded by one part (plus one document), not by the library's size.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { concatBytes } from '../core/bytes.ts';
import { DocQaError } from '../core/errors.ts';
import type { ArchiveProgress } from '../core/library-api.ts';
import type { DocRecord } from '../core/types.ts';
import { ARCHIVE_FORMAT, ARCHIVE_VERSION, MANIFEST_ENTRY, PART_BYTES, partName, type ArchiveCounts, type ArchiveEntry, type ArchiveManifest, type ConversationLine, type DocumentLine, type VectorRef } from './library-archive-format.ts';
import type { LibraryDb } from './schema.ts';
import { Uint8ArrayReader, ZipWriter } from './zip.ts';


export interface ExportOptions {
  /** The name written into the file (the importer names the new library after it). */
  libraryName: string;
  /** Write each document's original file too, where the library kept it. Default false. */
  includeOriginals?: boolean;
  /** Stops the export between documents; the sink is aborted. */
  signal?: AbortSignal;
  onProgress?(progress: ArchiveProgress): void;
  /** Bytes of lines per part; default {@link PART_BYTES} (tests make it small). */
  partBytes?: number;
  now?: number;
}

/** Documents read per transaction. */
const BATCH = 32;
const encoder = new TextEncoder();

/** Gathers lines (and their vectors) into parts, writing a part once it is full. */
class PartWriter {
  private lines: Uint8Array[] = [];
  private lineBytes = 0;
  private floats: Uint8Array[] = [];
  private floatBytes = 0;
  private parts = 0;

  constructor(
    private readonly kind: 'documents' | 'conversations',
    private readonly write: (name: string, bytes: Uint8Array) => Promise<void>,
    private readonly partBytes: number,
  ) {}

  async add(line: unknown, vectors: readonly Float32Array[] = []): Promise<void> {
    const bytes = encoder.encode(`${JSON.stringify(line)}\n`);
    this.lines.push(bytes);
    this.lineBytes += bytes.byteLength;
    for (const v of vectors) {
      this.floats.push(new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
      this.floatBytes += v.byteLength;
    }
    if (this.lineBytes + this.floatBytes >= this.partBytes) await this.flush();
  }

  async flush(): Promise<void> {
    if (!this.lines.length) return;
    this.parts++;
    await this.write(partName(this.kind, this.parts, '.jsonl'), concatBytes(this.lines));
    if (this.floats.length) await this.write(partName(this.kind, this.parts, '.vectors'), concatBytes(this.floats));
    this.lines = [];
    this.floats = [];
    this.lineBytes = this.floatBytes = 0;
  }
}

/** Reads the next batch of documents after `after`, each whole, in one transaction. */
async function readDocuments(db: LibraryDb, after: string | undefined, withOriginals: boolean) {
  const tx = db.transaction(['documents', 'manifests', 'blocks', 'chunks', 'vectors', 'originals']);
  const docs: DocRecord[] = await tx.objectStore('documents').getAll(after === undefined ? undefined : IDBKeyRange.lowerBound(after, true), BATCH);
  const read = await Promise.all(
    docs.map(async (doc) => {
      const manifest = await tx.objectStore('manifests').get(doc.id);
      const blocks = await tx.objectStore('blocks').getAll(IDBKeyRange.bound([doc.id, 0], [doc.id, Infinity]));
      const ids = [...new Set(manifest?.chunkIds ?? [])];
      const chunks = await Promise.all(ids.map((id) => tx.objectStore('chunks').get(id)));
      const vectors = (await Promise.all(ids.map((id) => tx.objectStore('vectors').index('by-chunk').getAll(id)))).flat();
      const original = withOriginals ? await tx.objectStore('originals').get(doc.id) : undefined;
      return { doc, manifest, blocks, chunks: chunks.filter((c) => c !== undefined), vectors, original };
    }),
  );
  return read;
}

/**
 * Writes the library in `db` to `sink` as one library file and returns its manifest. Stops with
 * 'cancelled' when `signal` aborts; on any error `sink` is left unclosed and the caller drops what it
 * received (or aborts the file behind it).
 */
export async function exportLibrary(db: LibraryDb, sink: WritableStream<Uint8Array>, options: ExportOptions): Promise<ArchiveManifest> {
  const zip = new ZipWriter(sink, { keepOrder: true });
  const entries: ArchiveEntry[] = [];
  const counts: ArchiveCounts = { documents: 0, blocks: 0, chunks: 0, vectors: {}, conversations: 0, turns: 0, originals: 0 };
  const stop = () => {
    if (options.signal?.aborted) throw new DocQaError('cancelled', 'export cancelled: no file was saved');
  };
  const write = async (name: string, bytes: Uint8Array) => {
    stop();
    entries.push({ name, bytes: bytes.byteLength, sha256: bytesToHex(sha256(bytes)) });
    // Vectors hardly compress; text does, well. Level 6 is the one the platform's CompressionStream
    // has: zip.js compresses any other level in JavaScript, about 3 times slower.
    await zip.add(name, new Uint8ArrayReader(bytes), { level: name.endsWith('.vectors') ? 0 : 6 });
  };
  // On an error the sink is left open (closing it would complete a partial file): the caller drops what
  // it received, or aborts the file it was writing, so a partial file is never handed out.
  const total = { documents: await db.count('documents'), conversations: await db.count('conversations') };
  const documents = new PartWriter('documents', write, options.partBytes ?? PART_BYTES);
  let after: string | undefined;
  for (;;) {
    stop();
    const batch = await readDocuments(db, after, options.includeOriginals ?? false);
    if (!batch.length) break;
    for (const { doc, manifest, blocks, chunks, vectors, original } of batch) {
      if (!manifest) continue; // Being deleted as the batch was read.
      const { queueId: _queue, ...document } = doc;
      const line: DocumentLine = { document, manifest, blocks, chunks, vectors: vectors.map((v): VectorRef => ({ model: v.model, chunkId: v.chunkId, dimensions: v.vector.length })) };
      if (original) {
        counts.originals++;
        line.original = partName('originals', counts.originals);
        await writeOriginal(zip, line.original, original, entries, stop);
      }
      await documents.add(line, vectors.map((v) => v.vector));
      counts.documents++;
      counts.blocks += blocks.length;
      counts.chunks += chunks.length;
      for (const v of vectors) counts.vectors[v.model] = (counts.vectors[v.model] ?? 0) + 1;
      options.onProgress?.({ stage: 'documents', done: counts.documents, total: total.documents });
    }
    after = batch[batch.length - 1]!.doc.id;
  }
  await documents.flush();

  const conversations = new PartWriter('conversations', write, options.partBytes ?? PART_BYTES);
  let afterConversation: string | undefined;
  for (;;) {
    stop();
    const tx = db.transaction(['conversations', 'conversationTurns']);
    const headers = await tx.objectStore('conversations').getAll(afterConversation === undefined ? undefined : IDBKeyRange.lowerBound(afterConversation, true), BATCH);
    if (!headers.length) break;
    const turns = await Promise.all(headers.map((h) => tx.objectStore('conversationTurns').getAll(IDBKeyRange.bound([h.id, 0], [h.id, Infinity]))));
    for (const [i, conversation] of headers.entries()) {
      const line: ConversationLine = { conversation, turns: turns[i] ?? [] };
      await conversations.add(line);
      counts.conversations++;
      counts.turns += line.turns.length;
      options.onProgress?.({ stage: 'conversations', done: counts.conversations, total: total.conversations });
    }
    afterConversation = headers[headers.length - 1]!.id;
  }
  await conversations.flush();

  const manifest: ArchiveManifest = {
    format: ARCHIVE_FORMAT,
    formatVersion: ARCHIVE_VERSION,
    exportedAt: options.now ?? Date.now(),
    library: { name: options.libraryName },
    counts,
    settings: { semantic: await db.get('settings', 'semantic') },
    entries,
  };
  stop();
  await zip.add(MANIFEST_ENTRY, new Uint8ArrayReader(encoder.encode(JSON.stringify(manifest, null, 1))), { level: 6 });
  await zip.close();
  return manifest;
}

/** Streams an original file into the archive as it is (stored, not compressed), hashing it on the way. */
async function writeOriginal(zip: ZipWriter<unknown>, name: string, blob: Blob, entries: ArchiveEntry[], stop: () => void): Promise<void> {
  stop();
  const hash = sha256.create();
  const hashing = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      hash.update(chunk);
      controller.enqueue(chunk);
    },
  });
  await zip.add(name, blob.stream().pipeThrough(hashing), { level: 0 });
  entries.push({ name, bytes: blob.size, sha256: bytesToHex(hash.digest()) });
}
