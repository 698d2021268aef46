/**
 * The list of libraries (decision 0033): a small database of its own (`docqa-libraries`), one entry per
 * library, each library's data in a database of its own (`libraryDbName`). One database per library
 * makes delete one `deleteDatabase`, export one database's stores, upgrade per library, and a damaged or
 * evicted library never takes the others with it. The library that existed before (database `docqa`)
 * is the default one, "My library": it is listed the first time the list is opened, with nothing moved.
 */
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import { DEFAULT_LIBRARY_ID } from '../core/library-api.ts';
import { DocQaError } from '../core/errors.ts';
import { DEFAULT_DB_NAME } from './schema.ts';

export const REGISTRY_DB_NAME = 'docqa-libraries';
const REGISTRY_VERSION = 1;
/** Longest library name. */
export const MAX_LIBRARY_NAME = 80;

export interface LibraryEntry {
  id: string;
  name: string;
  createdAt: number;
  /**
   * Set while the library is being imported from a file: such an entry is not listed and cannot be opened,
   * so a crash mid-import leaves no half library in the list (the next start removes it).
   */
  importing?: { startedAt: number };
}

interface RegistrySchema extends DBSchema {
  libraries: { key: string; value: LibraryEntry };
}

/** The database a library's data lives in. */
export function libraryDbName(id: string): string {
  return id === DEFAULT_LIBRARY_ID ? DEFAULT_DB_NAME : `docqa-library-${id}`;
}

/** Library ids: the default one, or those {@link LibraryRegistry.create} makes (a UUID). */
export function isLibraryId(id: string): boolean {
  return id === DEFAULT_LIBRARY_ID || /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id);
}

export class LibraryRegistry {
  private constructor(private readonly db: IDBPDatabase<RegistrySchema>) {}

  static async open(): Promise<LibraryRegistry> {
    const db = await openDB<RegistrySchema>(REGISTRY_DB_NAME, REGISTRY_VERSION, {
      upgrade(db, oldVersion, _newVersion, tx) {
        if (oldVersion < 1) {
          db.createObjectStore('libraries', { keyPath: 'id' });
          // The library every profile had before there were several: its data stays where it is.
          void tx.objectStore('libraries').put({ id: DEFAULT_LIBRARY_ID, name: 'My library', createdAt: 0 });
        }
      },
      // A newer version of the app upgrades the list: let it.
      blocking() {
        db.close();
      },
    });
    return new LibraryRegistry(db);
  }

  /** The libraries that can be opened (not those being imported), oldest first. */
  async list(): Promise<LibraryEntry[]> {
    return (await this.db.getAll('libraries')).filter((l) => !l.importing).sort((a, b) => a.createdAt - b.createdAt || a.name.localeCompare(b.name));
  }

  /** A library that can be opened (not one being imported). */
  async get(id: string): Promise<LibraryEntry | undefined> {
    const entry = await this.db.get('libraries', id);
    return entry?.importing ? undefined : entry;
  }

  /**
   * Starts importing a library: an entry that is not listed until {@link finishImport}, named after
   * `name` (with " (2)", " (3)"… when a library already has that name).
   */
  async beginImport(name: string, id: string = crypto.randomUUID(), now = Date.now()): Promise<LibraryEntry> {
    const entry: LibraryEntry = { id, name: await this.freeName(name), createdAt: now, importing: { startedAt: now } };
    await this.db.put('libraries', entry);
    return entry;
  }

  /** Lists an imported library, now complete (renamed if a library took its name meanwhile). */
  async finishImport(id: string): Promise<LibraryEntry> {
    const entry = await this.db.get('libraries', id);
    if (!entry?.importing) throw new DocQaError('internal', 'the library being imported is no longer known');
    const { importing: _done, ...listed } = entry;
    const finished = { ...listed, name: await this.freeName(entry.name) };
    await this.db.put('libraries', finished);
    return finished;
  }

  /** Imports that never finished (a crash, a closed tab), or that are running now in some tab. */
  async unfinishedImports(): Promise<LibraryEntry[]> {
    return (await this.db.getAll('libraries')).filter((l) => l.importing);
  }

  /** Removes an unfinished import: its entry first, so it is never listed, then its database. */
  async abandonImport(id: string): Promise<void> {
    const entry = await this.db.get('libraries', id);
    if (!entry?.importing) return;
    await this.db.delete('libraries', id);
    await deleteDatabase(libraryDbName(id), entry.name);
  }

  async create(name: string, now = Date.now()): Promise<LibraryEntry> {
    const entry: LibraryEntry = { id: crypto.randomUUID(), name: await this.checkName(name), createdAt: now };
    await this.db.put('libraries', entry);
    return entry;
  }

  async rename(id: string, name: string): Promise<void> {
    const entry = await this.known(id);
    await this.db.put('libraries', { ...entry, name: await this.checkName(name, id) });
  }

  /**
   * Removes a library from the list, then deletes its database (which waits until every tab that has it
   * open has closed it: their `blocking` handler does, and tells their page). The last library is kept.
   */
  async delete(id: string): Promise<void> {
    const entry = await this.known(id);
    if ((await this.list()).length <= 1) throw new DocQaError('invalid-setting', `"${entry.name}" is the only library: create another one before deleting it`);
    await this.db.delete('libraries', id);
    await deleteDatabase(libraryDbName(id), entry.name);
  }

  close(): void {
    this.db.close();
  }

  private async known(id: string): Promise<LibraryEntry> {
    const entry = await this.db.get('libraries', id);
    if (!entry) throw new DocQaError('invalid-setting', 'that library no longer exists (it was deleted, perhaps in another tab)');
    return entry;
  }

  /** `name` trimmed (a default when empty), with " (2)", " (3)"… when a listed library has it. */
  private async freeName(name: string): Promise<string> {
    const base = name.replace(/\s+/g, ' ').trim().slice(0, MAX_LIBRARY_NAME - 6) || 'Imported library';
    const taken = new Set((await this.list()).map((l) => l.name.toLocaleLowerCase()));
    let candidate = base;
    for (let n = 2; taken.has(candidate.toLocaleLowerCase()); n++) candidate = `${base} (${n})`;
    return candidate;
  }

  /** The name trimmed; refused when empty, too long, or another library's (in any case). */
  private async checkName(name: string, id?: string): Promise<string> {
    const trimmed = name.replace(/\s+/g, ' ').trim();
    if (!trimmed) throw new DocQaError('invalid-setting', 'a library needs a name');
    if (trimmed.length > MAX_LIBRARY_NAME) throw new DocQaError('invalid-setting', `a library name has at most ${MAX_LIBRARY_NAME} characters`);
    const clash = (await this.list()).find((l) => l.id !== id && l.name.toLocaleLowerCase() === trimmed.toLocaleLowerCase());
    if (clash) throw new DocQaError('invalid-setting', `a library named "${clash.name}" already exists: choose another name`);
    return trimmed;
  }
}

function deleteDatabase(name: string, libraryName: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const request = indexedDB.deleteDatabase(name);
    request.onsuccess = () => resolve();
    request.onerror = () => reject(new DocQaError('internal', `the data of "${libraryName}" could not be deleted: ${request.error?.message ?? 'unknown error'}`));
  });
}
