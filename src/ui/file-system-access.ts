import type { IncomingFile } from '../core/library-api.ts';

/**
 * The parts of the File System Access API the app uses that TypeScript's DOM library does not declare
 * (Chromium-based browsers have them; Firefox and Safari do not, and keep the folder input).
 */
type Access = 'granted' | 'denied' | 'prompt';
interface PermissionAware {
  queryPermission?(descriptor: { mode: 'read' }): Promise<Access>;
  requestPermission?(descriptor: { mode: 'read' }): Promise<Access>;
}
type DirectoryPicker = (options?: { id?: string; mode?: 'read' }) => Promise<FileSystemDirectoryHandle>;

/** The browser's folder picker that returns a handle, where there is one. */
export function directoryPicker(): DirectoryPicker | undefined {
  const picker = (globalThis as { showDirectoryPicker?: DirectoryPicker }).showDirectoryPicker;
  return picker ? (options) => picker.call(globalThis, options) : undefined;
}

type SaveFilePicker = (options: { suggestedName: string; types: Array<{ description: string; accept: Record<string, string[]> }> }) => Promise<FileSystemFileHandle>;

/**
 * The browser's save dialog that returns a file handle, where there is one (the export is written into the
 * file chosen). Called on the window, as the folder picker is: the browser's own refuses an unbound call.
 */
export function savePicker(): SaveFilePicker | undefined {
  const picker = (globalThis as { showSaveFilePicker?: SaveFilePicker }).showSaveFilePicker;
  return picker ? (options) => picker.call(globalThis, options) : undefined;
}

/** Whether the page may read the folder now, without asking ('prompt': the browser asks on a click). */
export async function readAccess(handle: FileSystemDirectoryHandle): Promise<Access> {
  return (await (handle as PermissionAware).queryPermission?.({ mode: 'read' })) ?? 'granted';
}

/** Asks for read access (the browser shows its prompt: call it from a click). */
export async function askReadAccess(handle: FileSystemDirectoryHandle): Promise<Access> {
  const h = handle as PermissionAware;
  if ((await readAccess(handle)) === 'granted') return 'granted';
  return (await h.requestPermission?.({ mode: 'read' })) ?? 'denied';
}

/** A file of the folder could not be listed or opened: the folder is not synced at all. */
export class FolderReadError extends Error {
  constructor(
    readonly path: string,
    cause: unknown,
  ) {
    super(`${path} could not be read (${cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause)})`, { cause });
  }
}

/**
 * Every file of a linked folder, with its path under the folder's name ("Contracts/2024/lease.pdf"), size
 * and last-modified time; nothing is read but each file's size and date. Hidden folders (".git") are not
 * entered. Any entry that cannot be listed or opened stops the walk
 * with {@link FolderReadError}: a partial listing would be taken for files removed from the folder.
 */
export async function filesFromDirectory(root: FileSystemDirectoryHandle): Promise<IncomingFile[]> {
  const out: IncomingFile[] = [];
  const walk = async (dir: FileSystemDirectoryHandle, folder: string): Promise<void> => {
    let entries: Array<FileSystemDirectoryHandle | FileSystemFileHandle>;
    try {
      entries = [];
      for await (const entry of dir.values()) entries.push(entry);
    } catch (err) {
      throw new FolderReadError(folder, err);
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const path = `${folder}/${entry.name}`;
      if (entry.kind === 'directory') {
        // A hidden folder (".git") is never indexed (the queue leaves out hidden and system files): not entered.
        if (entry.name.startsWith('.')) continue;
        await walk(entry as FileSystemDirectoryHandle, path);
        continue;
      }
      let file: File;
      try {
        file = await (entry as FileSystemFileHandle).getFile();
      } catch (err) {
        throw new FolderReadError(path, err);
      }
      out.push({ name: file.name, folder, blob: file, modified: file.lastModified });
    }
  };
  await walk(root, root.name);
  return out;
}
