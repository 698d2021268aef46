import { signal } from '@preact/signals';
import { proxy } from 'comlink';
import type { ArchiveProgress, ImportedLibrary } from '../core/library-api.ts';
import { archiveFileName } from '../core/archive-name.ts';
import { DocQaError, personalMessage } from '../core/errors.ts';
import { savePicker } from './file-system-access.ts';
import { formatBytes, plural } from './format.ts';
import { announceLibraryChange, currentLibraryName, refreshLibraries } from './libraries-state.ts';
import { libraryApi } from './library-connection.ts';

/**
 * Export and import of library files as the Libraries dialog shows them: what runs and how far it has got,
 * what the last one did, and imports a closed tab left unfinished (said once at start).
 */
export const libraryFileBusy = signal<{ kind: 'export' | 'import'; progress?: ArchiveProgress } | undefined>(undefined);
/** What the last export or import did, or why it failed. */
export const libraryFileNote = signal<string | undefined>(undefined);
/** The library the last import created, offered to open. */
export const lastImported = signal<ImportedLibrary | undefined>(undefined);
/** Unfinished imports removed at start, said above the page until dismissed. */
export const unfinishedImportNotes = signal<string[]>([]);

/** "Exporting: 1,200 of 3,000 documents", "Checking the file: 40 %"… */
export function progressLine(busy: NonNullable<typeof libraryFileBusy.value>): string {
  const p = busy.progress;
  if (!p) return busy.kind === 'export' ? 'Exporting…' : 'Reading the file…';
  const of = `${p.done.toLocaleString()} of ${p.total.toLocaleString()}`;
  switch (p.stage) {
    case 'documents':
      return `Exporting: ${of} documents`;
    case 'conversations':
      return `Exporting: ${of} conversations`;
    case 'checking':
      return `Checking the file: ${p.total ? Math.floor((100 * p.done) / p.total) : 100} %`;
    case 'writing':
      return `Importing: ${of} documents`;
  }
}

const onProgress = (kind: 'export' | 'import') => proxy((progress: ArchiveProgress) => void (libraryFileBusy.value = { kind, progress }));

/** Hands a Blob to the browser as a download named `name`. */
function save(file: Blob, name: string): void {
  const url = URL.createObjectURL(file);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  // The download has started from the URL by now; a minute is ample for the browser to take it.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

async function run(kind: 'export' | 'import', work: () => Promise<string>): Promise<void> {
  const api = libraryApi();
  if (!api || libraryFileBusy.value) return;
  libraryFileBusy.value = { kind };
  libraryFileNote.value = undefined;
  let note: string;
  try {
    note = await work();
  } catch (err) {
    const why = personalMessage(err);
    note = (err as { code?: string }).code === 'cancelled' ? `${why[0]!.toUpperCase()}${why.slice(1)}.` : `${kind === 'export' ? 'Export failed' : 'This file was not imported'}: ${why}.`;
  }
  await refreshLibraries().catch(() => undefined);
  if (kind === 'import') announceLibraryChange();
  libraryFileBusy.value = undefined;
  libraryFileNote.value = note;
}

/**
 * Writes the open library to one file: straight into the file the person chooses where the browser has a
 * save dialog (nothing of it is held in memory, and a failed export leaves that file as it was), else as a
 * download of the whole file once written.
 */
export function exportLibraryFile(includeOriginals: boolean): Promise<void> {
  const pick = savePicker();
  // The note that follows is about this export: an earlier import's "Open it" goes with its note.
  lastImported.value = undefined;
  return run('export', async () => {
    let target: FileSystemFileHandle | undefined;
    if (pick) {
      try {
        target = await pick({ suggestedName: archiveFileName(currentLibraryName()), types: [{ description: 'DocQA library', accept: { 'application/zip': ['.zip'] } }] });
      } catch (err) {
        if ((err as { name?: string }).name === 'AbortError') throw new DocQaError('cancelled', 'export cancelled: no file was chosen');
        throw err;
      }
    }
    const done = await libraryApi()!.archive.export({ includeOriginals, target }, onProgress('export'));
    if (done.file) save(done.file, done.fileName);
    const originals = includeOriginals ? `, ${plural(done.originals, 'original file')}` : '';
    return `Saved ${done.fileName} (${formatBytes(done.bytes)}): ${plural(done.documents, 'document')}, ${plural(done.conversations, 'conversation')}${originals}.`;
  });
}

/** Creates a new library from a library file. */
export function importLibraryFile(file: File): Promise<void> {
  lastImported.value = undefined;
  return run('import', async () => {
    const done = await libraryApi()!.archive.import(file, onProgress('import'));
    lastImported.value = done;
    const vectors = done.vectors ? ' Its search vectors came with it.' : ' Its passages will be embedded for semantic search when it is opened with a model chosen.';
    return `Imported "${done.library.name}" from ${file.name}: ${plural(done.documents, 'document')}, ${plural(done.conversations, 'conversation')}.${vectors}`;
  });
}

export function cancelLibraryFile(): void {
  void libraryApi()?.archive.cancel();
}

/** Removes imports a closed tab or a crash left unfinished, and says so. */
export async function sweepUnfinishedImports(): Promise<void> {
  const said = (await libraryApi()?.archive.sweepUnfinishedImports()) ?? [];
  if (said.length) unfinishedImportNotes.value = said;
}
