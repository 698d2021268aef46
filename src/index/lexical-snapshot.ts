/**
 * The lexical index's snapshot, as bytes: its options and its segments, each with its deletion bitmap.
 * A header of 32-bit little-endian words (magic, version, number of segments, length of the options as
 * JSON), the options, then per segment its byte length, its bytes (`LexicalSegment.toBytes`) and its
 * bitmap (one byte a chunk), each padded to 4 bytes.
 */
import { concatBytes } from '../core/bytes.ts';
import { DocQaError } from '../core/errors.ts';
import { LexicalSegment } from './lexical-segment.ts';

/**
 * Snapshot format version; unknown versions are refused and the index is rebuilt from the store.
 * 4: binary, the segments and their deletions (3 was MiniSearch's JSON).
 */
export const LEXICAL_SNAPSHOT_VERSION = 4;

/** "DQLX" read as a little-endian 32-bit integer: a binary lexical snapshot. */
const SNAPSHOT_MAGIC = 0x584c5144;

/** A segment and its deletions: 1 at the ordinal of each chunk deleted since it was written. */
export interface SnapshotPart {
  segment: LexicalSegment;
  deleted: Uint8Array;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The snapshot of an index with these options (written as JSON) and parts. */
export function encodeLexicalSnapshot<Options>(options: Options, parts: readonly SnapshotPart[]): Uint8Array {
  const json = encoder.encode(JSON.stringify(options));
  const pieces: Uint8Array[] = [words(SNAPSHOT_MAGIC, LEXICAL_SNAPSHOT_VERSION, parts.length, json.byteLength), padded(json)];
  for (const p of parts) {
    const bytes = p.segment.toBytes();
    pieces.push(words(bytes.byteLength), bytes, padded(p.deleted));
  }
  return concatBytes(pieces);
}

/** The options and parts of {@link encodeLexicalSnapshot}'s output; throws `schema-version` on an unknown or damaged snapshot. */
export function decodeLexicalSnapshot<Options>(data: string | Uint8Array): { options: Options; parts: SnapshotPart[] } {
  if (typeof data === 'string') throw new DocQaError('schema-version', 'lexical index snapshot version 3 (JSON) is not supported (expected 4); the index will be rebuilt');
  const bytes = data.byteOffset % 4 === 0 ? data : data.slice();
  const cutShort = () => new DocQaError('schema-version', 'lexical index snapshot is cut short; the index will be rebuilt');
  const word = (at: number) => {
    if (at + 4 > bytes.byteLength) throw cutShort();
    return new DataView(bytes.buffer, bytes.byteOffset + at, 4).getUint32(0, true);
  };
  if (word(0) !== SNAPSHOT_MAGIC) throw new DocQaError('schema-version', 'lexical index snapshot is not one; the index will be rebuilt');
  const version = word(4);
  if (version !== LEXICAL_SNAPSHOT_VERSION) {
    throw new DocQaError('schema-version', `lexical index snapshot version ${version} is not supported (expected ${LEXICAL_SNAPSHOT_VERSION}); the index will be rebuilt`);
  }
  const count = word(8);
  const optionsLength = word(12);
  let at = 16;
  const take = (n: number) => {
    if (at + n > bytes.byteLength) throw cutShort();
    const view = bytes.subarray(at, at + n);
    at += pad4(n);
    return view;
  };
  const options = JSON.parse(decoder.decode(take(optionsLength))) as Options;
  const parts: SnapshotPart[] = [];
  for (let i = 0; i < count; i++) {
    const length = word(at);
    at += 4;
    const segment = LexicalSegment.fromBytes(take(length));
    parts.push({ segment, deleted: take(segment.size) });
  }
  return { options, parts };
}

const pad4 = (n: number) => (n + 3) & ~3;

function padded(bytes: Uint8Array): Uint8Array {
  if (bytes.byteLength % 4 === 0) return bytes;
  const out = new Uint8Array(pad4(bytes.byteLength));
  out.set(bytes);
  return out;
}

function words(...values: number[]): Uint8Array {
  return new Uint8Array(Uint32Array.from(values).buffer);
}
