import { DEFAULT_LIBRARY_ID } from '../core/library-api.ts';

/**
 * Which library this tab opens. Kept for the tab (sessionStorage, which a reload keeps and other tabs do
 * not see), so that two tabs switching at the same moment each open the library they chose, and for the
 * browser (localStorage), so that a new tab or the next visit opens the library last chosen. Read once: a
 * tab's library is fixed until it opens another (which loads the page again).
 */
const CURRENT_KEY = 'docqa.library';
let opened: string | undefined;

export function currentLibraryId(): string {
  opened ??= globalThis.sessionStorage?.getItem(CURRENT_KEY) || globalThis.localStorage?.getItem(CURRENT_KEY) || DEFAULT_LIBRARY_ID;
  return opened;
}

/** Opens another library in this tab: its worker starts for it (the page loads again, in about a second). */
export function openLibrary(id: string): void {
  sessionStorage.setItem(CURRENT_KEY, id);
  localStorage.setItem(CURRENT_KEY, id);
  location.reload();
}
