import { asChunkId, asDocId, type ChunkId, type DocId } from '../core/ids.ts';
import { normalizeForId } from './clean.ts';
import { sha256HexOfBytes, sha256HexOfText } from './sha256.ts';

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/**
 * Inputs up to this many bytes are hashed in JS (`sha256.ts`): for them a round trip through
 * `crypto.subtle` (another thread) costs more than the hashing; larger ones go to `crypto.subtle`.
 */
const JS_HASH_MAX_BYTES = 64 * 1024;

/** SHA-256 of bytes or of a string's UTF-8 encoding, as lower-case hex. */
export async function sha256Hex(data: ArrayBuffer | Uint8Array | string): Promise<string> {
  if (typeof data === 'string' && data.length * 3 <= JS_HASH_MAX_BYTES) return sha256HexOfText(data);
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
  if (bytes.byteLength <= JS_HASH_MAX_BYTES) return sha256HexOfBytes(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes));
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
export function chunkIdOf(text: string): Promise<ChunkId> {
  return Promise.resolve(chunkIdOfNormalized(normalizeForId(text)));
}

/**
 * {@link chunkIdOf} for text already passed through `normalizeForId`. Synchronous: a chunk is a few KB,
 * which hashes in microseconds here, while a round trip through `crypto.subtle` costs more (see sha256.ts).
 */
export function chunkIdOfNormalized(normalized: string): ChunkId {
  return asChunkId(sha256HexOfText(normalized));
}
