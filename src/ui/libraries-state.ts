import { signal } from '@preact/signals';
import type { LibraryEntryView } from '../core/library-api.ts';
import { openLibrary } from './current-library.ts';
import { formatBytes } from './format.ts';
import { libraryApi } from './library-connection.ts';

/** The libraries (several libraries, decision 0033), read at start and after each action. */
export const libraries = signal<LibraryEntryView[] | undefined>(undefined);
/** The Libraries dialog is open. */
export const librariesOpen = signal(false);
/** What the last action did or why it failed (said in the dialog). */
export const librariesNote = signal<string | undefined>(undefined);

/** The library this tab has open, by name ("My library" until the list is read). */
export function currentLibraryName(): string {
  return libraries.value?.find((l) => l.current)?.name ?? 'My library';
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

export async function refreshLibraries(): Promise<void> {
  const api = libraryApi();
  if (api) libraries.value = await api.libraries.list();
}

/** Where tabs tell each other the list changed (created, renamed, deleted, imported). */
const CHANGES_CHANNEL = 'docqa-libraries';
let changes: BroadcastChannel | undefined;

/** Keeps this tab's list in step with the others': it is read again whenever another tab changes it. */
export function followLibraryChanges(): void {
  if (changes || typeof BroadcastChannel === 'undefined') return;
  changes = new BroadcastChannel(CHANGES_CHANNEL);
  changes.onmessage = () => void refreshLibraries().catch(() => undefined);
}

/** Tells the other tabs that the list changed (a channel does not deliver to its own sender). */
export function announceLibraryChange(): void {
  changes?.postMessage('changed');
}

export function openLibraries(): void {
  librariesOpen.value = true;
  librariesNote.value = undefined;
  void refreshLibraries().catch(() => undefined);
}

async function act(run: () => Promise<string | undefined>): Promise<boolean> {
  librariesNote.value = undefined;
  let note: string | undefined;
  let done = true;
  try {
    note = await run();
  } catch (err) {
    note = message(err);
    done = false;
  }
  // The list is read again before the note is said, so the two agree at once.
  await refreshLibraries().catch(() => undefined);
  if (done) announceLibraryChange();
  librariesNote.value = note;
  return done;
}

/** Creates a library and opens it. Returns whether it was created (the name may be refused). */
export function createLibrary(name: string): Promise<boolean> {
  return act(async () => {
    const created = await libraryApi()!.libraries.create(name);
    openLibrary(created.id);
    return undefined;
  });
}

export function renameLibrary(id: string, name: string): Promise<boolean> {
  return act(async () => {
    await libraryApi()!.libraries.rename(id, name);
    return 'Renamed.';
  });
}

export function deleteLibrary(id: string, name: string): Promise<boolean> {
  return act(async () => {
    const { freedBytes } = await libraryApi()!.libraries.delete(id);
    return `"${name}" deleted with all its documents and conversations (${formatBytes(freedBytes)} freed).`;
  });
}
