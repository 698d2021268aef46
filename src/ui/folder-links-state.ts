import { signal } from '@preact/signals';
import { personalMessage } from '../core/errors.ts';
import type { FolderLink } from '../core/folder-links-api.ts';
import { askReadAccess, directoryPicker, filesFromDirectory, FolderReadError, readAccess } from './file-system-access.ts';
import { addFiles, noteActivity } from './indexing-state.ts';
import { currentLibraryId } from './current-library.ts';
import { libraryApi } from './library-connection.ts';

/**
 * Folders linked to the library (File System Access API): picked once with "Add a folder", kept as
 * handles in the library's database, read through again with Sync (and when the app opens, where the
 * browser still lets the page read them). Each sync hands the folder's files, whole, to the queue, which
 * applies only the difference (`folder-sync.ts`).
 */

export interface LinkRow {
  name: string;
  syncedAt?: number;
  /** 'prompt': the browser asks again (after a restart) when Sync is pressed. */
  access: 'granted' | 'denied' | 'prompt';
}

/** The linked folders, as the Library panel lists them. */
export const folderLinks = signal<LinkRow[]>([]);
/** The folder being read through now, if any (one at a time). */
export const syncingFolder = signal<string | undefined>(undefined);

const SYNC_ON_OPEN_KEY = 'docqa.syncOnOpen';
/** "Sync linked folders when the app opens" (default on), remembered in this browser. */
export const syncOnOpen = signal(globalThis.localStorage?.getItem(SYNC_ON_OPEN_KEY) !== 'false');

export function setSyncOnOpen(on: boolean): void {
  syncOnOpen.value = on;
  localStorage.setItem(SYNC_ON_OPEN_KEY, String(on));
}

let handles = new Map<string, FileSystemDirectoryHandle>();

/** Whether this browser links folders (else "Add a folder" reads a folder once, and adding it again syncs it). */
export const canLinkFolders = (): boolean => directoryPicker() !== undefined;

/** Reads the links and whether each can be read now. */
export async function refreshFolderLinks(): Promise<FolderLink[]> {
  const api = libraryApi();
  if (!api) return [];
  const links = await api.folders.list();
  handles = new Map(links.map((l) => [l.name, l.handle]));
  folderLinks.value = await Promise.all(
    links.map(async (l) => ({ name: l.name, ...(l.syncedAt !== undefined && { syncedAt: l.syncedAt }), access: await readAccess(l.handle).catch(() => 'denied' as const) })),
  );
  return links;
}

/** Reads a linked folder through and hands its files to the queue; records the sync. False when nothing was done. */
async function readThrough(handle: FileSystemDirectoryHandle): Promise<boolean> {
  const api = libraryApi();
  if (!api || syncingFolder.value) return false;
  syncingFolder.value = handle.name;
  try {
    // One sync of the library at a time across tabs (two tabs opening at once): the second finds the first's
    // files waiting in the queue, and queues nothing twice.
    const locks = globalThis.navigator?.locks;
    const work = () => syncFiles(handle);
    return await (locks ? locks.request(`docqa-folder-sync:${currentLibraryId()}`, work) : work());
  } finally {
    syncingFolder.value = undefined;
    await refreshFolderLinks().catch(() => undefined);
  }
}

async function syncFiles(handle: FileSystemDirectoryHandle): Promise<boolean> {
  let files;
  try {
    files = await filesFromDirectory(handle);
  } catch (err) {
    const why = err instanceof FolderReadError ? err.message : personalMessage(err);
    noteActivity(`${handle.name} was not synced: ${why}. Nothing was changed; try Sync again.`, handle.name);
    return false;
  }
  if (!(await addFiles(files, [handle.name]))) return false;
  await libraryApi()?.folders.synced(handle.name, Date.now());
  return true;
}

/**
 * "Add a folder" where the browser links folders: the picker, then the folder is linked and read. Call it
 * from the click (the picker needs one).
 */
export async function pickAndLinkFolder(): Promise<void> {
  const api = libraryApi();
  const pick = directoryPicker();
  if (!api || !pick) return;
  let handle: FileSystemDirectoryHandle;
  try {
    handle = await pick({ id: 'docqa-folder', mode: 'read' });
  } catch (err) {
    // The person closed the picker.
    if (err instanceof DOMException && err.name === 'AbortError') return;
    noteActivity(`The folder could not be opened: ${personalMessage(err)}`);
    return;
  }
  try {
    await api.folders.link(handle, Date.now());
  } catch (err) {
    noteActivity(`${handle.name} was not added: ${personalMessage(err)}`, handle.name);
    return;
  }
  await readThrough(handle);
}

/** Sync on a linked folder: asks the browser for access again when it must (call it from the click), then reads it through. */
export async function syncFolder(name: string): Promise<void> {
  const handle = handles.get(name);
  if (!handle) return;
  let access: string;
  try {
    access = await askReadAccess(handle);
  } catch (err) {
    access = 'denied';
    noteActivity(`${name}: the browser did not let the page read it (${personalMessage(err)})`, name);
  }
  if (access !== 'granted') {
    noteActivity(`${name} was not synced: access to the folder was not allowed. Press Sync again to be asked, or Unlink it.`, name);
    await refreshFolderLinks().catch(() => undefined);
    return;
  }
  await readThrough(handle);
}

/** Forgets a linked folder; its documents stay. */
export async function unlinkFolder(name: string): Promise<void> {
  const api = libraryApi();
  if (!api) return;
  try {
    await api.folders.unlink(name);
    noteActivity(`${name} is no longer linked: its documents stay in the library; add the folder again to link it.`, name);
  } catch (err) {
    noteActivity(`${name} could not be unlinked: ${personalMessage(err)}`, name);
  }
  await refreshFolderLinks().catch(() => undefined);
}

/**
 * At start: the links are listed, and with "Sync linked folders when the app opens" on, each the page may
 * still read is read through, one after the other (a folder the browser asks about again waits for Sync).
 */
export async function startFolderLinks(): Promise<void> {
  const links = await refreshFolderLinks();
  if (!syncOnOpen.value) return;
  for (const link of links) {
    if ((await readAccess(link.handle).catch(() => 'denied')) === 'granted') await readThrough(link.handle);
  }
}
