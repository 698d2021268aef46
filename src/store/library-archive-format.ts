/**
 * The library file (decision 0034): one ZIP archive that holds a whole library, so it can be moved to another
 * browser or device, or kept as a backup. A ZIP because any tool can open it and see what it holds, and
 * because its central directory lets an importer check every entry's name and size before reading one.
 *
 * Entries, in the order they are written:
 * - `documents/NNNNNN.jsonl`: one document per line, {@link DocumentLine} (its record, chunk list,
 *   blocks, chunks, and which vectors it has); a part ends after about {@link PART_BYTES} of text.
 * - `documents/NNNNNN.vectors`: that part's vectors, float32 little-endian, one after another in the
 *   order its lines list them (absent when the part has none).
 * - `originals/NNNNNN`: a document's original file, as it was dropped (only when asked at export).
 * - `conversations/NNNNNN.jsonl`: one saved conversation per line, {@link ConversationLine}.
 * - `manifest.json`, last: {@link ArchiveManifest}: the format and its version, what the library holds
 *   (counts), and every other entry's size and SHA-256.
 */
import type { ConversationHeader } from '../core/conversation.ts';
import { DocQaError } from '../core/errors.ts';
import type { BlockRecord, ChunkRecord, DocRecord, Manifest } from '../core/types.ts';
import type { StoredTurn } from './schema.ts';

export const ARCHIVE_FORMAT = 'docqa-library';
/** Bump when a reader of the previous version could not read what is written; readers refuse newer ones. */
export const ARCHIVE_VERSION = 1;
export const MANIFEST_ENTRY = 'manifest.json';

/** A part is closed once its lines pass this many bytes: export and import hold at most one part in memory. */
export const PART_BYTES = 4 * 2 ** 20;
/** Limits an importer holds a file to, whatever its manifest says. */
export const ARCHIVE_LIMITS = {
  /** Entries in the archive (a million tiny entries would cost a large directory before anything is read). */
  maxEntries: 200_000,
  /** The manifest lists every entry; 200,000 of them fit well within this. */
  maxManifestBytes: 64 * 2 ** 20,
  /** One part of lines or vectors (a part holds at least one document, which ingest limits bound). */
  maxPartBytes: 512 * 2 ** 20,
  /** One original file. */
  maxOriginalBytes: 2 * 2 ** 30,
  /** How much smaller than its content an entry of more than {@link ARCHIVE_LIMITS.ratioFloorBytes} may be. */
  maxCompressionRatio: 100,
  ratioFloorBytes: 2 ** 20,
};

/** One entry the manifest vouches for. */
export interface ArchiveEntry {
  name: string;
  /** Bytes once decompressed. */
  bytes: number;
  /** SHA-256 of those bytes, lower-case hex. */
  sha256: string;
}

export interface ArchiveCounts {
  documents: number;
  blocks: number;
  /** Chunk records written (a chunk two documents share is written with each). */
  chunks: number;
  /** Vectors per embedding model id. */
  vectors: Record<string, number>;
  conversations: number;
  turns: number;
  originals: number;
}

export interface ArchiveManifest {
  format: typeof ARCHIVE_FORMAT;
  formatVersion: number;
  exportedAt: number;
  library: { name: string };
  counts: ArchiveCounts;
  /** The library's settings that travel with it: its semantic search model (model files do not travel). */
  settings: { semantic?: unknown };
  entries: ArchiveEntry[];
}

/** A vector a line's part holds, in order; its floats follow the previous one's in the `.vectors` entry. */
export interface VectorRef {
  model: string;
  chunkId: string;
  dimensions: number;
}

/** One line of a `documents/` part. */
export interface DocumentLine {
  document: DocRecord;
  manifest: Manifest;
  blocks: BlockRecord[];
  chunks: ChunkRecord[];
  vectors: VectorRef[];
  /** The entry holding its original file, if exported with it. */
  original?: string;
}

/** One line of a `conversations/` part. */
export interface ConversationLine {
  conversation: ConversationHeader;
  turns: StoredTurn[];
}

const PART_NAME = /^(documents\/\d{6}\.(jsonl|vectors)|conversations\/\d{6}\.jsonl|originals\/\d{6})$/;

/** Entry names the app writes; anything else (a `../` path, a folder, a stray file) is refused. */
export function isArchiveEntryName(name: string): boolean {
  return name === MANIFEST_ENTRY || PART_NAME.test(name);
}

/** The name of the `n`th part of a kind, from 1. */
export function partName(kind: 'documents' | 'conversations' | 'originals', n: number, suffix = ''): string {
  return `${kind}/${String(n).padStart(6, '0')}${suffix}`;
}

const refuse = (why: string) => new DocQaError('archive-refused', why);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

/**
 * Checks a manifest's shape and version: a newer version is refused with "update first", anything not a
 * manifest of this app with what is wrong. Returns it typed.
 */
export function checkManifest(value: unknown): ArchiveManifest {
  if (!isObject(value) || value.format !== ARCHIVE_FORMAT) throw refuse('it is not a DocQA library file (its manifest does not say docqa-library)');
  if (!isCount(value.formatVersion) || value.formatVersion < 1) throw refuse('its manifest has no valid format version');
  if (value.formatVersion > ARCHIVE_VERSION) {
    throw refuse(`it was made by a newer version of the app (library format ${value.formatVersion}; this version reads up to ${ARCHIVE_VERSION}): update the app first (reload it while online), then import it again`);
  }
  const counts = value.counts;
  if (!isObject(counts) || !['documents', 'blocks', 'chunks', 'conversations', 'turns', 'originals'].every((k) => isCount(counts[k])) || !isObject(counts.vectors) || !Object.values(counts.vectors).every(isCount)) {
    throw refuse('its manifest has no valid counts');
  }
  if (!isObject(value.library) || typeof value.library.name !== 'string') throw refuse('its manifest names no library');
  if (!isObject(value.settings)) throw refuse('its manifest has no settings');
  if (!Array.isArray(value.entries)) throw refuse('its manifest lists no entries');
  for (const e of value.entries as unknown[]) {
    if (!isObject(e) || typeof e.name !== 'string' || !isCount(e.bytes) || typeof e.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(e.sha256)) {
      throw refuse('its manifest lists an entry without a valid name, size and checksum');
    }
    if (!isArchiveEntryName(e.name) || e.name === MANIFEST_ENTRY) throw refuse(`its manifest lists an entry named "${e.name.slice(0, 80)}", which this app never writes`);
  }
  return value as unknown as ArchiveManifest;
}

const isString = (v: unknown): v is string => typeof v === 'string';

/**
 * Checks one document line before it is written: the fields the app relies on have their types, and its
 * blocks, chunks and vectors belong to it. Returns it typed, or throws what is wrong and where.
 */
export function checkDocumentLine(value: unknown, where: string): DocumentLine {
  const bad = (what: string) => refuse(`${where}: ${what}`);
  if (!isObject(value) || !isObject(value.document) || !isObject(value.manifest)) throw bad('not a document line');
  const doc = value.document;
  if (!isString(doc.id) || !isString(doc.name) || !isString(doc.path) || !isString(doc.folder) || !isString(doc.title) || !isString(doc.type) || !Array.isArray(doc.tags) || !isCount(doc.chunkCount)) {
    throw bad('a document without its id, name, path, title, type, tags or chunk count');
  }
  const manifest = value.manifest;
  if (manifest.docId !== doc.id || !Array.isArray(manifest.chunkIds) || !manifest.chunkIds.every(isString) || !isCount(manifest.blockCount)) throw bad(`the chunk list of "${doc.path}" does not match it`);
  if (!Array.isArray(value.blocks) || !value.blocks.every((b) => isObject(b) && b.docId === doc.id && isCount(b.index) && isString(b.text) && isString(b.label))) {
    throw bad(`a block of "${doc.path}" is not one of its blocks`);
  }
  if (!Array.isArray(value.chunks) || !value.chunks.every((c) => isObject(c) && isString(c.id) && isString(c.text) && Array.isArray(c.locations))) throw bad(`a chunk of "${doc.path}" has no id, text or locations`);
  if (!Array.isArray(value.vectors) || !value.vectors.every((v) => isObject(v) && isString(v.model) && isString(v.chunkId) && isCount(v.dimensions) && (v.dimensions as number) > 0 && (v.dimensions as number) <= 8192)) {
    throw bad(`a vector of "${doc.path}" has no model, chunk or dimensions`);
  }
  if (value.original !== undefined && (!isString(value.original) || !/^originals\/\d{6}$/.test(value.original))) throw bad(`the original of "${doc.path}" is not an original entry`);
  return value as unknown as DocumentLine;
}

/** Checks one conversation line before it is written. */
export function checkConversationLine(value: unknown, where: string): ConversationLine {
  if (!isObject(value) || !isObject(value.conversation) || !isString(value.conversation.id) || !Array.isArray(value.turns)) throw refuse(`${where}: not a conversation line`);
  const id = value.conversation.id;
  if (!value.turns.every((t, n) => isObject(t) && t.conversationId === id && t.n === n)) throw refuse(`${where}: a turn of conversation ${id.slice(0, 40)} is out of place`);
  return value as unknown as ConversationLine;
}
