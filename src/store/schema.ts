import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import { DocQaError, type SerializedError } from '../core/errors.ts';
import type { ConversationHeader, SavedTurn } from '../core/conversation.ts';
import type { BlockRecord, ChunkRecord, DocRecord, Manifest, PageReading, QueueEntry } from '../core/types.ts';

/** Bump with an `oldVersion` branch in `upgrade` below; older apps refuse newer databases clearly. */
export const DB_VERSION = 5;
export const DEFAULT_DB_NAME = 'docqa';

export interface Snapshot {
  name: string;
  version: number;
  data: string | Uint8Array;
  savedAt: number;
}

/** One chunk's vector under one embedding model (v3). Identical chunk texts share a chunk id, so one vector. */
export interface VectorRecord {
  model: string;
  chunkId: string;
  /** L2-normalised, the model's dimensions long. */
  vector: Float32Array;
}

/** The one IndexedDB schema of the app. */
export interface LibrarySchema extends DBSchema {
  documents: { key: string; value: DocRecord; indexes: { 'by-path': string; 'by-queue': string } };
  manifests: { key: string; value: Manifest };
  blocks: { key: [string, number]; value: BlockRecord };
  chunks: { key: string; value: ChunkRecord };
  /** Keys sort in drop order: zero-padded time, then position in the drop. */
  queue: { key: string; value: QueueEntry };
  snapshots: { key: string; value: Snapshot };
  /**
   * What happened to a queue entry so far (v2), kept apart so its file's Blob is never written again:
   * reads that started and never ended, a failure, a Try again.
   */
  entryStatus: { key: string; value: EntryStatus };
  /**
   * The file a document was read from (v2), keyed by its DocId, when "Keep original files" is on: the
   * Source dialog shows a PDF's real page from it, and "Open original" hands it back.
   */
  originals: { key: string; value: Blob };
  /**
   * Chunk vectors (v3), keyed [model id, chunk id]: the truth the dense index is loaded from at start-up,
   * and what embedding resumes from (chunks without a vector for the model are embedded next). Deleted
   * with their chunk (`by-chunk`), or all of a model's at once (a key range) when the model goes.
   */
  vectors: { key: [string, string]; value: VectorRecord; indexes: { 'by-chunk': string } };
  /** Settings that workers read too (v3): the semantic-search model and where its files come from. */
  settings: { key: string; value: unknown };
  /** Saved conversations (v4), without their turns: what the history lists, newest first by `by-updated`. */
  conversations: { key: string; value: ConversationHeader; indexes: { 'by-updated': number } };
  /** The turns of saved conversations (v4), keyed [conversation id, position from 0]. */
  conversationTurns: { key: [string, number]; value: StoredTurn };
  /**
   * PDF pages OCR read for a queue entry not yet stored (v5), keyed [queue id, page]: a read cut short (a
   * reload, a closed tab, a failure then Try again) resumes after them. Swept once the entry leaves the queue.
   */
  recognisedPages: { key: [string, number]; value: KeptPageReading };
}

/** A page OCR read, kept for its queue entry (v5). */
export interface KeptPageReading extends PageReading {
  queueId: string;
}

/** A saved turn with its place: conversation and position (v4). */
export interface StoredTurn extends SavedTurn {
  conversationId: string;
  n: number;
}

export interface EntryStatus {
  queueId: string;
  /**
   * Reads the app did not survive (a crash, not a reload): a file whose reading ended the app twice is not
   * read again unasked. (Before `reading` was kept, every read started and not committed counted here.)
   */
  reads: number;
  /** The read in progress, by which library session (one worker's life): left set, it was cut short. */
  reading?: { session: string; startedAt: number };
  /** Why it failed; the entry keeps its contents so Try again can read it again. */
  error?: SerializedError;
  /** Try again was pressed: read with relaxed limits. */
  insist?: boolean;
}

/** What a tab is told when the database changes under it. */
export interface DbHooks {
  /** Another tab opened a newer version of the app: this connection has been closed. */
  onVersionChange?(): void;
  /** The database is being deleted (`deleteDatabase` elsewhere, site data cleared): this connection has been closed. */
  onDeleted?(): void;
  /** The browser closed the connection abnormally (storage cleared or evicted under the page). */
  onTerminated?(): void;
  /** An older version of the app in another tab keeps this upgrade waiting. */
  onBlocked?(): void;
}

export type LibraryDb = IDBPDatabase<LibrarySchema>;

/** Opens (creating or upgrading) the library database. The only place that calls `openDB`. */
export async function openLibraryDb(name = DEFAULT_DB_NAME, hooks: DbHooks = {}): Promise<LibraryDb> {
  try {
    const db: LibraryDb = await openDB<LibrarySchema>(name, DB_VERSION, {
      upgrade(db, oldVersion, _newVersion, tx) {
        if (oldVersion < 1) {
          db.createObjectStore('documents', { keyPath: 'id' }).createIndex('by-path', 'path');
          db.createObjectStore('manifests', { keyPath: 'docId' });
          db.createObjectStore('blocks', { keyPath: ['docId', 'index'] });
          db.createObjectStore('chunks', { keyPath: 'id' });
          db.createObjectStore('queue', { keyPath: 'id' });
          db.createObjectStore('snapshots', { keyPath: 'name' });
        }
        if (oldVersion < 2) {
          tx.objectStore('documents').createIndex('by-queue', 'queueId');
          db.createObjectStore('entryStatus', { keyPath: 'queueId' });
          db.createObjectStore('originals');
        }
        if (oldVersion < 3) {
          db.createObjectStore('vectors', { keyPath: ['model', 'chunkId'] }).createIndex('by-chunk', 'chunkId');
          db.createObjectStore('settings');
        }
        if (oldVersion < 4) {
          db.createObjectStore('conversations', { keyPath: 'id' }).createIndex('by-updated', 'updatedAt');
          db.createObjectStore('conversationTurns', { keyPath: ['conversationId', 'n'] });
        }
        if (oldVersion < 5) db.createObjectStore('recognisedPages', { keyPath: ['queueId', 'page'] });
      },
      blocking(_currentVersion, blockedVersion) {
        // Another tab runs a newer version of the app, or the database is being deleted (no new version):
        // step aside so that can go ahead, and say which.
        db.close();
        if (blockedVersion === null) hooks.onDeleted?.();
        else hooks.onVersionChange?.();
      },
      terminated() {
        hooks.onTerminated?.();
      },
      blocked() {
        hooks.onBlocked?.();
      },
    });
    return db;
  } catch (err) {
    if ((err as { name?: string }).name === 'VersionError') {
      throw new DocQaError('schema-version', `the library was saved by a newer version of this app (schema newer than ${DB_VERSION}); reload to update the app`, { cause: err });
    }
    throw err;
  }
}
