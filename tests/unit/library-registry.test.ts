// The list of libraries (decision 0033): the library that existed before is "My library" with its data
// where it was; names are checked; delete removes the library's whole database and keeps the last one.
import { afterEach, describe, expect, it } from 'vitest';
import { IDBFactory } from 'fake-indexeddb';
import { DEFAULT_LIBRARY_ID } from '../../src/core/library-api.ts';
import { librariesPart } from '../../src/library/libraries-part.ts';
import { isLibraryId, libraryDbName, LibraryRegistry } from '../../src/store/library-registry.ts';
import { openLibraryDb } from '../../src/store/schema.ts';

const databases = async () => (await indexedDB.databases()).map((d) => d.name).sort();

describe('the list of libraries', () => {
  afterEach(() => {
    // A fresh browser profile for each test.
    globalThis.indexedDB = new IDBFactory();
  });

  it('lists the library that existed before as "My library", its database untouched', async () => {
    const db = await openLibraryDb();
    await db.put('settings', 'kept', 'probe');
    db.close();
    const registry = await LibraryRegistry.open();
    expect(await registry.list()).toEqual([{ id: DEFAULT_LIBRARY_ID, name: 'My library', createdAt: 0 }]);
    expect(libraryDbName(DEFAULT_LIBRARY_ID)).toBe('docqa');
    const again = await openLibraryDb(libraryDbName(DEFAULT_LIBRARY_ID));
    expect(await again.get('settings', 'probe')).toBe('kept');
    again.close();
    registry.close();
  });

  it('creates, renames and deletes libraries, each in a database of its own, refusing bad names', async () => {
    const registry = await LibraryRegistry.open();
    const made = await registry.create('  Case   2041 ', 1_000);
    expect(made.name).toBe('Case 2041');
    expect(isLibraryId(made.id)).toBe(true);
    expect(isLibraryId('../docqa')).toBe(false);
    const db = await openLibraryDb(libraryDbName(made.id));
    await db.put('settings', 1, 'probe');
    db.close();
    expect(await databases()).toEqual(['docqa-libraries', `docqa-library-${made.id}`]);
    await expect(registry.create('case 2041')).rejects.toThrow('a library named "Case 2041" already exists: choose another name');
    await expect(registry.create('   ')).rejects.toThrow('a library needs a name');
    await expect(registry.create('x'.repeat(81))).rejects.toThrow('a library name has at most 80 characters');
    await registry.rename(made.id, 'Smith v. Jones');
    await expect(registry.rename(DEFAULT_LIBRARY_ID, 'smith V. jones')).rejects.toThrow('already exists');
    expect((await registry.list()).map((l) => l.name)).toEqual(['My library', 'Smith v. Jones']);
    await registry.delete(DEFAULT_LIBRARY_ID);
    await expect(registry.delete(made.id)).rejects.toThrow('"Smith v. Jones" is the only library: create another one before deleting it');
    await expect(registry.rename(DEFAULT_LIBRARY_ID, 'Back')).rejects.toThrow('that library no longer exists');
    registry.close();
  });

  it('deletes a library with all its data, but not the one open in this tab', async () => {
    const registry = await LibraryRegistry.open();
    const other = await registry.create('Course');
    const db = await openLibraryDb(libraryDbName(other.id));
    await db.put('settings', 'x'.repeat(10_000), 'probe');
    db.close();
    let usage = 50_000;
    const part = librariesPart(DEFAULT_LIBRARY_ID, async () => registry, async () => usage);
    expect((await part.list()).map((l) => [l.name, l.current])).toEqual([
      ['My library', true],
      ['Course', false],
    ]);
    await expect(part.delete(DEFAULT_LIBRARY_ID)).rejects.toThrow('this library is open in this tab: open another library first');
    const deleting = part.delete(other.id);
    usage = 40_000;
    expect(await deleting).toEqual({ freedBytes: 10_000 });
    expect(await databases()).toEqual(['docqa-libraries']);
    expect((await part.list()).map((l) => l.name)).toEqual(['My library']);
    registry.close();
  });

  it('gives two libraries named at the same moment (two tabs, two registries) two names', async () => {
    const [a, b] = [await LibraryRegistry.open(), await LibraryRegistry.open()];
    const made = await Promise.allSettled([a.create('Course'), b.create('course')]);
    expect(made.map((m) => m.status).sort()).toEqual(['fulfilled', 'rejected']);
    // Two imports of the same file finishing together: each gets a name of its own.
    const [x, y] = [await a.beginImport('Notes'), await b.beginImport('Notes')];
    const listed = await Promise.all([a.finishImport(x.id), b.finishImport(y.id)]);
    expect(listed.map((l) => l.name).sort()).toEqual(['Notes', 'Notes (2)']);
    // A rename racing a create to the same name: one of them is refused.
    const [z] = [await a.create('Draft')];
    const raced = await Promise.allSettled([a.rename(z.id, 'Final'), b.create('Final')]);
    expect(raced.map((m) => m.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect((await a.list()).map((l) => l.name).filter((n) => n === 'Final')).toHaveLength(1);
    // Two tabs deleting the last two libraries at once: one library is kept.
    for (const l of await a.list()) if (l.name !== 'Course' && l.name !== 'Notes') await a.delete(l.id);
    const [course, notes] = await a.list();
    const deleted = await Promise.allSettled([a.delete(course!.id), b.delete(notes!.id)]);
    expect(deleted.map((m) => m.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(await a.list()).toHaveLength(1);
    a.close();
    b.close();
  });
});
