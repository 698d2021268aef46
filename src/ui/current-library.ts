import { DEFAULT_LIBRARY_ID } from '../core/library-api.ts';

/**
 * Which library this tab opens: remembered in this browser (localStorage), so a reload or the next visit
 * opens the library last opened. Tabs may have different libraries open; a new tab opens the last one chosen.
 */
const CURRENT_KEY = 'docqa.library';

export function currentLibraryId(): string {
  return globalThis.localStorage?.getItem(CURRENT_KEY) || DEFAULT_LIBRARY_ID;
}

/** Opens another library in this tab: its worker starts for it (the page loads again, in about a second). */
export function openLibrary(id: string): void {
  localStorage.setItem(CURRENT_KEY, id);
  location.reload();
}
