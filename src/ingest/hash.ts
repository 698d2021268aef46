import { asChunkId, asDocId, type ChunkId, type DocId } from '../core/ids.ts';
import { normalizeForId } from './clean.ts';

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** SHA-256 of bytes or of a string's UTF-8 encoding, as lower-case hex (`crypto.subtle`). */
export async function sha256Hex(data: ArrayBuffer | Uint8Array | string): Promise<string> {
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as BufferSource));
  let out = '';
  for (const b of digest) out += HEX[b];
  return out;
}

/** Document id: SHA-256 of the file bytes. */
export async function docIdOf(bytes: ArrayBuffer | Uint8Array): Promise<DocId> {
  return asDocId(await sha256Hex(bytes));
}

/** Chunk id: SHA-256 of the normalised chunk text, so identical passages share one id. */
export async function chunkIdOf(text: string): Promise<ChunkId> {
  return chunkIdOfNormalized(normalizeForId(text));
}

/** {@link chunkIdOf} for text already passed through `normalizeForId`. */
export async function chunkIdOfNormalized(normalized: string): Promise<ChunkId> {
  return asChunkId(await sha256Hex(normalized));
}
