import { signal } from '@preact/signals';
import type { OcrLanguagesView } from '../core/library-api.ts';
import { formatBytes } from './format.ts';
import { libraryApi } from './library-connection.ts';
import { scheduleRefresh } from './library-state.ts';

/**
 * The "Scan languages" setting as the page shows it: the languages OCR reads in, read from the library
 * worker (which keeps them for the whole browser profile and downloads one only when the person adds it).
 */

/** The list; undefined until read. */
export const ocrLanguages = signal<OcrLanguagesView | undefined>(undefined);
/** The dialog is open. */
export const ocrLanguagesOpen = signal(false);
/** What the last action did or why it failed (said in the dialog). */
export const ocrLanguagesNote = signal<string | undefined>(undefined);
/** What is being done now ("Adding French…"), said while it runs. */
export const ocrLanguageBusy = signal<string | undefined>(undefined);

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

export async function refreshOcrLanguages(): Promise<void> {
  const api = libraryApi();
  if (api) ocrLanguages.value = await api.ocrLanguages.list();
}

export function openOcrLanguages(): void {
  ocrLanguagesOpen.value = true;
  ocrLanguagesNote.value = undefined;
  void refreshOcrLanguages().catch(() => undefined);
}

async function act(busy: string, run: () => Promise<string>): Promise<void> {
  ocrLanguagesNote.value = undefined;
  ocrLanguageBusy.value = busy;
  let note: string;
  try {
    note = await run();
  } catch (err) {
    note = message(err);
  }
  // The list is read again before the note is said, so what the note says and the list agree at once.
  await refreshOcrLanguages().catch(() => undefined);
  // Scans read before a language was added are offered to be read again in the Library.
  scheduleRefresh();
  ocrLanguageBusy.value = undefined;
  ocrLanguagesNote.value = note;
}

const api = () => {
  const a = libraryApi();
  if (!a) throw new Error('the library is not open yet; try again in a moment');
  return a;
};
const NEXT = 'scanned pages added from now on are read in it too; the Library offers to read again those read before.';

/** Downloads an offered language from the app's own site and keeps it (the person chose to add it). */
export function addOcrLanguage(code: string, name: string): Promise<void> {
  return act(`Adding ${name}…`, async () => {
    const kept = await api().ocrLanguages.add(code);
    return `${kept.name} added (${formatBytes(kept.keptBytes)}): ${NEXT}`;
  });
}

/** Keeps a language file the person chose (`<code>.traineddata`, gzipped or not), after checking it. */
export function importOcrLanguage(file: File): Promise<void> {
  return act(`Checking ${file.name}…`, async () => {
    const kept = await api().ocrLanguages.importFile(file);
    return `${kept.name} added from ${file.name} (${formatBytes(kept.keptBytes)}): ${NEXT}`;
  });
}

/** Removes an added language; documents already read keep their text. */
export function removeOcrLanguage(code: string, name: string): Promise<void> {
  return act(`Removing ${name}…`, async () => {
    const freed = await api().ocrLanguages.remove(code);
    return `${name} removed (${formatBytes(freed)} freed). Documents already read keep their text.`;
  });
}
