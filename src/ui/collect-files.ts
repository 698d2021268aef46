import type { IncomingFile } from '../core/library-api.ts';
import { yieldToPage } from './yield-to-page.ts';

/** Splits "a/b/c.pdf" into folder "a/b" and name "c.pdf". */
function splitPath(path: string): { folder: string; name: string } {
  const i = path.lastIndexOf('/');
  return i < 0 ? { folder: '', name: path } : { folder: path.slice(0, i), name: path.slice(i + 1) };
}

/** The longest a slice of work on picked or dropped files runs before the page gets its turn (input, drawing), in ms. */
const SLICE_MS = 20;

/**
 * Calls `each` on every item, in slices of about {@link SLICE_MS}, yielding to the page between them,
 * so that thousands of files never block it.
 */
async function inSlices<T>(items: readonly T[], each: (item: T) => void): Promise<void> {
  let start = performance.now();
  for (const item of items) {
    each(item);
    if (performance.now() - start > SLICE_MS) {
      await yieldToPage();
      start = performance.now();
    }
  }
}

/**
 * Reads each file's size and last-modified time (folder sync compares them), in slices; returns the same
 * files, with `modified` set. Reason: a file picked from disk does not
 * know its size and date until asked, and the browser asks for them synchronously, about half a
 * millisecond per file; sending the files to the library worker asks for all of them at once (3,000
 * files: over 2 s of a frozen page). Asked here, a slice at a time, they are known when the files are
 * sent, and sending them is quick.
 */
export async function learnSizes(files: IncomingFile[]): Promise<IncomingFile[]> {
  await inSlices(files, (f) => {
    void f.blob.size;
    if (f.blob instanceof File) f.modified = f.blob.lastModified;
  });
  return files;
}

/**
 * Files from an `<input type="file">` (with `webkitdirectory`, each file knows its relative path). Pass
 * many through {@link learnSizes} before sending them anywhere.
 */
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
 * Files from a drop, recursing into dropped folders. Items must be taken from the event synchronously;
 * the folders are read afterwards, and the files' sizes learnt in slices ({@link learnSizes}).
 *
 * An item's entry (file or folder) is asked for only when its file has no type. Reason: the browser
 * answers `webkitGetAsEntry` synchronously, about half a millisecond per item, inside the drop event
 * (3,000 dropped files: over 1.5 s of a frozen page); `getAsFile` is cheap. A folder has no type, and a
 * document has one from its extension (.pdf, .docx, .html, .md, .txt), so nearly every file skips the
 * lookup. A folder named like a document ("report.pdf") is taken as a file and fails as one, visibly.
 */
export function filesFromDrop(transfer: DataTransfer): Promise<IncomingFile[]> {
  const entries = [...transfer.items]
    .filter((item) => item.kind === 'file')
    .map((item) => {
      const file = item.getAsFile();
      return { entry: file?.type ? null : (item.webkitGetAsEntry?.() ?? null), file };
    });
  return (async () => {
    const out: IncomingFile[] = [];
    for (const { entry, file } of entries) {
      if (entry) await walk(entry, out);
      else if (file) out.push({ name: file.name, folder: '', blob: file });
    }
    return learnSizes(out);
  })();
}
