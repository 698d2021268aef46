import type { IncomingFile } from '../core/library-api.ts';

/** Splits "a/b/c.pdf" into folder "a/b" and name "c.pdf". */
function splitPath(path: string): { folder: string; name: string } {
  const i = path.lastIndexOf('/');
  return i < 0 ? { folder: '', name: path } : { folder: path.slice(0, i), name: path.slice(i + 1) };
}

/** Files from an `<input type="file">` (with `webkitdirectory`, each file knows its relative path). */
export function filesFromInput(list: FileList | null): IncomingFile[] {
  return [...(list ?? [])].map((file) => {
    const { folder } = splitPath(file.webkitRelativePath || file.name);
    return { name: file.name, folder, blob: file };
  });
}

function readAllEntries(reader: FileSystemDirectoryReader): Promise<FileSystemEntry[]> {
  return new Promise((resolve, reject) => {
    const all: FileSystemEntry[] = [];
    // readEntries returns at most 100 entries per call: call until it returns none.
    const next = () =>
      reader.readEntries((batch) => {
        if (!batch.length) resolve(all);
        else {
          all.push(...batch);
          next();
        }
      }, reject);
    next();
  });
}

async function walk(entry: FileSystemEntry, out: IncomingFile[]): Promise<void> {
  if (entry.isFile) {
    const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
    const { folder } = splitPath(entry.fullPath.replace(/^\//, ''));
    out.push({ name: file.name, folder, blob: file });
  } else if (entry.isDirectory) {
    for (const child of await readAllEntries((entry as FileSystemDirectoryEntry).createReader())) await walk(child, out);
  }
}

/**
 * Files from a drop, recursing into dropped folders. Entries must be taken from the event
 * synchronously; the folders are read afterwards.
 */
export function filesFromDrop(transfer: DataTransfer): Promise<IncomingFile[]> {
  const entries = [...transfer.items]
    .filter((item) => item.kind === 'file')
    .map((item) => ({ entry: item.webkitGetAsEntry?.() ?? null, file: item.getAsFile() }));
  return (async () => {
    const out: IncomingFile[] = [];
    for (const { entry, file } of entries) {
      if (entry) await walk(entry, out);
      else if (file) out.push({ name: file.name, folder: '', blob: file });
    }
    return out;
  })();
}
