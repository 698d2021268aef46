import type { LibraryDb } from './schema.ts';

/**
 * Settings the library worker reads (the page's own preferences live in localStorage): kept in the
 * library database, so every tab's worker sees the same ones. Values are plain data; each reader checks
 * the shape it expects.
 */
export class SettingsStore {
  constructor(readonly db: LibraryDb) {}

  get(key: string): Promise<unknown> {
    return this.db.get('settings', key);
  }

  async put(key: string, value: unknown): Promise<void> {
    await this.db.put('settings', value, key);
  }
}
