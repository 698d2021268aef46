import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import { DocQaError } from '../core/errors.ts';
import type { BlockRecord, ChunkRecord, DocRecord, Manifest, QueueEntry } from '../core/types.ts';

/** Bump with an `oldVersion` branch in `upgrade` below; older apps refuse newer databases clearly. */
export const DB_VERSION = 1;
export const DEFAULT_DB_NAME = 'docqa';

export interface Snapshot {
  name: string;
  version: number;
  data: string;
  savedAt: number;
}

/** The one IndexedDB schema of the app. */
export interface LibrarySchema extends DBSchema {
  documents: { key: string; value: DocRecord; indexes: { 'by-path': string } };
  manifests: { key: string; value: Manifest };
  blocks: { key: [string, number]; value: BlockRecord };
  chunks: { key: string; value: ChunkRecord };
  /** Keys sort in drop order: zero-padded time, then position in the drop. */
  queue: { key: string; value: QueueEntry };
  snapshots: { key: string; value: Snapshot };
}

export type LibraryDb = IDBPDatabase<LibrarySchema>;

/** Opens (creating or upgrading) the library database. The only place that calls `openDB`. */
export async function openLibraryDb(name = DEFAULT_DB_NAME): Promise<LibraryDb> {
  try {
    return await openDB<LibrarySchema>(name, DB_VERSION, {
      upgrade(db, oldVersion) {
        if (oldVersion < 1) {
          db.createObjectStore('documents', { keyPath: 'id' }).createIndex('by-path', 'path');
          db.createObjectStore('manifests', { keyPath: 'docId' });
          db.createObjectStore('blocks', { keyPath: ['docId', 'index'] });
          db.createObjectStore('chunks', { keyPath: 'id' });
          db.createObjectStore('queue', { keyPath: 'id' });
          db.createObjectStore('snapshots', { keyPath: 'name' });
        }
      },
      blocking() {
        // Another tab runs a newer version of the app: let it upgrade.
      },
    });
  } catch (err) {
    if ((err as { name?: string }).name === 'VersionError') {
      throw new DocQaError('schema-version', `the library was saved by a newer version of this app (schema newer than ${DB_VERSION}); reload to update the app`);
    }
    throw err;
  }
}
