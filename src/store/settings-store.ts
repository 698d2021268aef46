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

  /**
   * Reads and rewrites one value in a single transaction (`change` is synchronous), so two tabs changing
   * the same value at once each see the other's change. Returns what `change` returned.
   */
  async update(key: string, change: (value: unknown) => unknown): Promise<unknown> {
    const tx = this.db.transaction('settings', 'readwrite');
    const next = change(await tx.store.get(key));
    await Promise.all([tx.store.put(next, key), tx.done]);
    return next;
  }
}
