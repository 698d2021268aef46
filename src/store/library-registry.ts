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
    return this.writeNamed(undefined, (listed) => ({ id, name: freeName(name, listed), createdAt: now, importing: { startedAt: now } }));
  }

  /** Lists an imported library, now complete (renamed if a library took its name meanwhile). */
  async finishImport(id: string): Promise<LibraryEntry> {
    return this.writeNamed(id, (listed, entry) => {
      if (!entry?.importing) throw new DocQaError('internal', 'the library being imported is no longer known');
      const { importing: _done, ...done } = entry;
      return { ...done, name: freeName(entry.name, listed) };
    });
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
    return this.writeNamed(undefined, (listed) => ({ id: crypto.randomUUID(), name: checkName(name, listed), createdAt: now }));
  }

  async rename(id: string, name: string): Promise<void> {
    await this.writeNamed(id, (listed, entry) => {
      if (!entry) throw gone();
      return { ...entry, name: checkName(name, listed, id) };
    });
  }

  /**
   * Removes a library from the list, then deletes its database (which waits until every tab that has it
   * open has closed it: their `blocking` handler does, and tells their page). The last library is kept.
   */
  async delete(id: string): Promise<void> {
    // The count and the removal in one transaction: two tabs deleting the last two libraries keep one.
    const tx = this.db.transaction('libraries', 'readwrite');
    const all = await tx.store.getAll();
    const entry = all.find((l) => l.id === id);
    const refusal = !entry ? gone() : all.filter((l) => !l.importing).length <= 1 ? new DocQaError('invalid-setting', `"${entry.name}" is the only library: create another one before deleting it`) : undefined;
    // A refusal writes nothing: the transaction ends with no request.
    if (refusal) throw refusal;
    await Promise.all([tx.store.delete(id), tx.done]);
    await deleteDatabase(libraryDbName(id), entry!.name);
  }

  close(): void {
    this.db.close();
  }

  /**
   * Writes the entry `make` returns, given the listed libraries and the entry `id` names: the names read
   * and the entry written in one transaction, so two tabs naming a library at the same moment never both
   * take the same name.
   */
  private async writeNamed(id: string | undefined, make: (listed: readonly LibraryEntry[], entry: LibraryEntry | undefined) => LibraryEntry): Promise<LibraryEntry> {
    const tx = this.db.transaction('libraries', 'readwrite');
    const all = await tx.store.getAll();
    // When `make` refuses, nothing is written: the transaction ends with no request.
    const entry = make(
      all.filter((l) => !l.importing),
      all.find((l) => l.id === id),
    );
    await Promise.all([tx.store.put(entry), tx.done]);
    return entry;
  }
}

const gone = () => new DocQaError('invalid-setting', 'that library no longer exists (it was deleted, perhaps in another tab)');

/** `name` trimmed (a default when empty), with " (2)", " (3)"… when a listed library has it. */
function freeName(name: string, listed: readonly LibraryEntry[]): string {
  const base = name.replace(/\s+/g, ' ').trim().slice(0, MAX_LIBRARY_NAME - 6) || 'Imported library';
  const taken = new Set(listed.map((l) => l.name.toLocaleLowerCase()));
  let candidate = base;
  for (let n = 2; taken.has(candidate.toLocaleLowerCase()); n++) candidate = `${base} (${n})`;
  return candidate;
}

/** The name trimmed; refused when empty, too long, or another library's (in any case). */
function checkName(name: string, listed: readonly LibraryEntry[], id?: string): string {
  const trimmed = name.replace(/\s+/g, ' ').trim();
  if (!trimmed) throw new DocQaError('invalid-setting', 'a library needs a name');
  if (trimmed.length > MAX_LIBRARY_NAME) throw new DocQaError('invalid-setting', `a library name has at most ${MAX_LIBRARY_NAME} characters`);
  const clash = listed.find((l) => l.id !== id && l.name.toLocaleLowerCase() === trimmed.toLocaleLowerCase());
  if (clash) throw new DocQaError('invalid-setting', `a library named "${clash.name}" already exists: choose another name`);
  return trimmed;
}

function deleteDatabase(name: string, libraryName: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const request = indexedDB.deleteDatabase(name);
    request.onsuccess = () => resolve();
    request.onerror = () => reject(new DocQaError('internal', `the data of "${libraryName}" could not be deleted: ${request.error?.message ?? 'unknown error'}`));
  });
}
