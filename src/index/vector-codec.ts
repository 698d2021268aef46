/**
 * The binary snapshot of a {@link VectorIndex} (stored in IndexedDB as bytes, never as JSON text).
 *
 * Layout, little-endian, every section 4-byte aligned:
 *
 *   offset  size            field
 *   0       4               magic "DQVI"
 *   4       2  u16          version (2)
 *   6       1  u8           storage: 1 = f32, 2 = int8, 3 = binary, 4 = binary-int8
 *   7       1               reserved (0)
 *   8       4  u32          dimensions
 *   12      4  u32          count (vectors)
 *   16      4  u32          total bytes of the UTF-8 chunk ids
 *   20      4               reserved (0)
 *   24      4 × count       u32 byte length of each chunk id, in row order
 *   …       f32, binary: 4 × count × dimensions   vectors, row after row (binary's sign codes are
 *                             recomputed on load)
 *           int8: 4 × count (f32 steps), then count × ⌈dimensions / 4⌉ × 4 codes (each row padded
 *                 with zero codes to whole 32-bit words), then
 *                 count × ⌈dimensions / 2⌉ 4-bit residuals (two a byte, low nibble first), padded to 4
 *           binary-int8: as int8, then 4 × count × ⌈dimensions / 32⌉ sign codes (bit set: the value is
 *                 positive, 32-bit words, row after row)
 *   …       chunk ids, UTF-8, back to back
 *
 * Version 1 (int8 without residuals, no binary) is refused: its int8 rows cannot be re-scored.
 */
import { DocQaError } from '../core/errors.ts';
import { asChunkId, type ChunkId } from '../core/ids.ts';

export const VECTOR_SNAPSHOT_VERSION = 2;
const MAGIC = [0x44, 0x51, 0x56, 0x49]; // "DQVI"
const HEADER_BYTES = 24;
const STORAGE_CODE = { f32: 1, int8: 2, binary: 3, 'binary-int8': 4 } as const;
type Storage = keyof typeof STORAGE_CODE;

export interface VectorSnapshot {
  storage: Storage;
  dimensions: number;
  ids: ChunkId[];
  f32?: Float32Array | undefined;
  codes?: Int8Array | undefined;
  residuals?: Uint8Array | undefined;
  scales?: Float32Array | undefined;
  /** binary-int8's sign codes, `signWords(dimensions)` a row. */
  bits?: Int32Array | undefined;
}

// Typed arrays are copied as raw memory: every browser and Node platform this app runs on is little-endian.
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

const pad4 = (n: number) => (n + 3) & ~3;
const residualBytes = (dims: number) => (dims + 1) >> 1;
const signWords = (dims: number) => (dims + 31) >> 5;
const quantised = (storage: Storage) => storage === 'int8' || storage === 'binary-int8';

function vectorBytes(storage: Storage, n: number, dims: number): number {
  if (!quantised(storage)) return 4 * n * dims;
  return 4 * n + n * pad4(dims) + pad4(n * residualBytes(dims)) + (storage === 'binary-int8' ? 4 * n * signWords(dims) : 0);
}

export function encodeVectorIndex(s: VectorSnapshot): Uint8Array {
  if (!LITTLE_ENDIAN) throw new DocQaError('internal', 'vector index: big-endian platforms are not supported');
  const n = s.ids.length;
  const encoder = new TextEncoder();
  const idBytes = s.ids.map((id) => encoder.encode(id));
  const idTotal = idBytes.reduce((sum, b) => sum + b.length, 0);
  const out = new Uint8Array(HEADER_BYTES + 4 * n + vectorBytes(s.storage, n, s.dimensions) + idTotal);
  const view = new DataView(out.buffer);
  out.set(MAGIC, 0);
  view.setUint16(4, VECTOR_SNAPSHOT_VERSION, true);
  view.setUint8(6, STORAGE_CODE[s.storage]);
  view.setUint32(8, s.dimensions, true);
  view.setUint32(12, n, true);
  view.setUint32(16, idTotal, true);
  let off = HEADER_BYTES;
  const lengths = new Uint32Array(out.buffer, off, n);
  idBytes.forEach((b, i) => (lengths[i] = b.length));
  off += 4 * n;
  if (!quantised(s.storage)) {
    new Float32Array(out.buffer, off, n * s.dimensions).set(s.f32!);
    off += 4 * n * s.dimensions;
  } else {
    new Float32Array(out.buffer, off, n).set(s.scales!);
    off += 4 * n;
    new Int8Array(out.buffer, off, n * pad4(s.dimensions)).set(s.codes!);
    off += n * pad4(s.dimensions);
    out.set(s.residuals!, off);
    off += pad4(n * residualBytes(s.dimensions));
    if (s.storage === 'binary-int8') {
      new Int32Array(out.buffer, off, n * signWords(s.dimensions)).set(s.bits!);
      off += 4 * n * signWords(s.dimensions);
    }
  }
  for (const b of idBytes) {
    out.set(b, off);
    off += b.length;
  }
  return out;
}

const corrupt = (why: string) => new DocQaError('corrupt-file', `vector index snapshot is damaged (${why}); the index will be rebuilt`);

export function decodeVectorIndex(bytes: Uint8Array): VectorSnapshot {
  if (!LITTLE_ENDIAN) throw new DocQaError('internal', 'vector index: big-endian platforms are not supported');
  if (bytes.length < HEADER_BYTES || MAGIC.some((m, i) => bytes[i] !== m)) throw corrupt('not a vector index snapshot');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint16(4, true);
  if (version !== VECTOR_SNAPSHOT_VERSION) {
    throw new DocQaError('schema-version', `vector index snapshot version ${version} is not supported (expected ${VECTOR_SNAPSHOT_VERSION}); the vectors will be rebuilt`);
  }
  const code = view.getUint8(6);
  const storage = (Object.keys(STORAGE_CODE) as Storage[]).find((k) => STORAGE_CODE[k] === code);
  if (!storage) throw corrupt(`unknown storage ${code}`);
  const dimensions = view.getUint32(8, true);
  const n = view.getUint32(12, true);
  const idTotal = view.getUint32(16, true);
  if (dimensions < 1 || bytes.length !== HEADER_BYTES + 4 * n + vectorBytes(storage, n, dimensions) + idTotal) throw corrupt('wrong length');
  // Typed-array views need aligned offsets: copy once when the caller's bytes are not aligned.
  const buf = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
  const base = buf.byteOffset;
  let off = HEADER_BYTES;
  const lengths = new Uint32Array(buf.buffer, base + off, n);
  off += 4 * n;
  const s: VectorSnapshot = { storage, dimensions, ids: [] };
  if (!quantised(storage)) {
    s.f32 = new Float32Array(buf.buffer, base + off, n * dimensions);
    off += 4 * n * dimensions;
  } else {
    s.scales = new Float32Array(buf.buffer, base + off, n);
    off += 4 * n;
    s.codes = new Int8Array(buf.buffer, base + off, n * pad4(dimensions));
    off += n * pad4(dimensions);
    s.residuals = new Uint8Array(buf.buffer, base + off, n * residualBytes(dimensions));
    off += pad4(n * residualBytes(dimensions));
    if (storage === 'binary-int8') {
      s.bits = new Int32Array(buf.buffer, base + off, n * signWords(dimensions));
      off += 4 * n * signWords(dimensions);
    }
  }
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const len = lengths[i]!;
    sum += len;
    if (sum > idTotal) throw corrupt('chunk ids overrun');
    try {
      s.ids.push(asChunkId(decoder.decode(buf.subarray(off, off + len))));
    } catch {
      throw corrupt('chunk id is not UTF-8');
    }
    off += len;
  }
  if (sum !== idTotal) throw corrupt('chunk ids length');
  return s;
}
