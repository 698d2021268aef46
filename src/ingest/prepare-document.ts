import { chunkSetPrint, type ChunkId, type DocId } from '../core/ids.ts';
import type { DocRecord, PageReading, ReadProgress } from '../core/types.ts';
import { chunkBlocks, DEFAULT_CHUNK_OPTIONS, type ChunkOptions } from './chunk.ts';
import { normalizeForId } from './clean.ts';
import { chunkIdOfNormalized, docIdOf } from './hash.ts';
import { joinPath } from './file-kinds.ts';
import { parseFile } from './parse.ts';
import { DEFAULT_READ_LIMITS, type ReadLimits } from './read-limits.ts';
import { READERS } from './reader-versions.ts';

export interface FileInput {
  name: string;
  /** Folder path inside the drop, "" when none. */
  folder: string;
  bytes: Uint8Array;
  addedAt: number;
  /** Already computed by the caller (to skip files in the library before parsing). */
  docId?: DocId;
  tags?: string[];
  /** Size caps checked before decompressing; default {@link DEFAULT_READ_LIMITS}. */
  limits?: ReadLimits;
  /** PDF pages OCR already read in an earlier, unfinished read of this file: not recognised again. */
  recognised?: readonly PageReading[];
}

import type { PreparedChunk, PreparedDocument } from '../core/types.ts';

export type { PreparedChunk, PreparedDocument };

/** Progress is reported after each batch of this many chunks hashed. */
const HASH_BATCH = 1024;

/** Chunk ids of normalised chunk texts (synchronous: see `chunkIdOfNormalized`). */
function hashChunks(texts: readonly string[], onBatch: (done: number) => void): ChunkId[] {
  const ids: ChunkId[] = [];
  for (const text of texts) {
    ids.push(chunkIdOfNormalized(text));
    if (texts.length > HASH_BATCH && ids.length % HASH_BATCH === 0) onBatch(ids.length);
  }
  if (texts.length > HASH_BATCH && ids.length % HASH_BATCH !== 0) onBatch(ids.length);
  return ids;
}

/**
 * The whole pure ingest path for one file: parse, clean, chunk, hash. No storage, no index: the same
 * function runs in the ingest worker, the evaluation CLI and the benchmarks.
 * `onProgress` receives 0–1 (parsing is most of the work for PDFs); `onRecognised` each PDF page OCR
 * finishes, to keep until the document is stored.
 */
export async function prepareDocument(
  input: FileInput,
  options: ChunkOptions = DEFAULT_CHUNK_OPTIONS,
  onProgress?: ReadProgress,
  onRecognised?: (reading: PageReading) => void,
): Promise<PreparedDocument> {
  // crypto.subtle hashes off-thread: start the document's hash now and let it run while parsing.
  const docIdPromise = input.docId ? Promise.resolve(input.docId) : docIdOf(input.bytes);
  docIdPromise.catch(() => undefined);
  const { type, parsed } = await parseFile(input.bytes, input.name, {
    onProgress: (f, stage) => onProgress?.(f * 0.8, stage),
    limits: input.limits ?? DEFAULT_READ_LIMITS,
    ...(input.recognised?.length && { recognised: new Map(input.recognised.map((r) => [r.page, r])) }),
    onRecognised,
  });
  const spans = chunkBlocks(parsed.blocks, options);
  const texts = spans.map((span) => normalizeForId(parsed.blocks[span.block]!.text.slice(span.start, span.end)));
  const ids = hashChunks(texts, (done) => onProgress?.(0.8 + (0.15 * done) / texts.length));
  const docId = await docIdPromise;
  const chunks: PreparedChunk[] = spans.map((span, i) => ({ id: ids[i]!, text: texts[i]!, location: { docId, ...span } }));
  const doc: DocRecord = {
    id: docId,
    name: input.name,
    folder: input.folder,
    path: joinPath(input.folder, input.name),
    type,
    size: input.bytes.byteLength,
    pages: parsed.pages,
    title: parsed.title ?? input.name,
    titleSource: parsed.titleSource ?? 'file-name',
    ...(parsed.unreadablePages && { unreadablePages: parsed.unreadablePages }),
    ...(parsed.recognisedPages && { recognisedPages: parsed.recognisedPages }),
    ...(parsed.lowConfidencePages && { lowConfidencePages: parsed.lowConfidencePages }),
    ...(parsed.ocrLanguages && { ocrLanguages: parsed.ocrLanguages }),
    addedAt: input.addedAt,
    ...(parsed.date !== undefined && { date: parsed.date }),
    tags: input.tags ?? [],
    chunkCount: chunks.length,
    distinctChunks: new Set(ids).size,
    chunkPrint: chunkSetPrint(new Set(ids)),
    reader: READERS[type].version,
  };
  onProgress?.(0.95);
  return { doc, blocks: parsed.blocks, chunks };
}
