import type { ChunkId, DocId } from '../core/ids.ts';
import type { Block, ChunkLocation, DocRecord } from '../core/types.ts';
import { chunkBlocks, DEFAULT_CHUNK_OPTIONS, type ChunkOptions } from './chunk.ts';
import { normalizeForId } from './clean.ts';
import { chunkIdOf, docIdOf } from './hash.ts';
import { parseFile } from './parse.ts';

export interface FileInput {
  name: string;
  /** Folder path inside the drop, "" when none. */
  folder: string;
  bytes: Uint8Array;
  addedAt: number;
  /** Already computed by the caller (to skip files in the library before parsing). */
  docId?: DocId;
  tags?: string[];
}

export interface PreparedChunk {
  id: ChunkId;
  /** Normalised chunk text: what is indexed and hashed. */
  text: string;
  location: ChunkLocation;
}

export interface PreparedDocument {
  doc: DocRecord;
  blocks: Block[];
  chunks: PreparedChunk[];
}

/** Joins folder and name into the path that identifies "the same file" across versions. */
export function joinPath(folder: string, name: string): string {
  return folder ? `${folder}/${name}` : name;
}

/**
 * The whole pure ingest path for one file: parse, clean, chunk, hash. No storage, no index: the same
 * function runs in the ingest worker, the evaluation CLI and the benchmarks.
 * `onProgress` receives 0–1 (parsing is most of the work for PDFs).
 */
export async function prepareDocument(
  input: FileInput,
  options: ChunkOptions = DEFAULT_CHUNK_OPTIONS,
  onProgress?: (fraction: number) => void,
): Promise<PreparedDocument> {
  const docId = input.docId ?? (await docIdOf(input.bytes));
  const { type, parsed } = await parseFile(input.bytes, input.name, (f) => onProgress?.(f * 0.8));
  const spans = chunkBlocks(parsed.blocks, options);
  const chunks: PreparedChunk[] = [];
  for (const span of spans) {
    const block = parsed.blocks[span.block]!;
    const text = normalizeForId(block.text.slice(span.start, span.end));
    chunks.push({ id: await chunkIdOf(text), text, location: { docId, ...span } });
    if (span.ordinal % 256 === 255) onProgress?.(0.8 + (0.15 * span.ordinal) / spans.length);
  }
  const title = parsed.title?.trim() || input.name;
  const doc: DocRecord = {
    id: docId,
    name: input.name,
    folder: input.folder,
    path: joinPath(input.folder, input.name),
    type,
    size: input.bytes.byteLength,
    pages: parsed.pages,
    title,
    addedAt: input.addedAt,
    tags: input.tags ?? [],
    chunkCount: chunks.length,
  };
  onProgress?.(0.95);
  return { doc, blocks: parsed.blocks, chunks };
}
