import { signal } from '@preact/signals';
import { personalMessage } from '../core/errors.ts';
import type { QueueId } from '../core/ids.ts';
import type { IncomingFile } from '../core/library-api.ts';
import type { LibraryItem, ReadingStage } from '../core/types.ts';
import { addingNote, addNotes, type ActivityNote } from './activity.ts';
import { libraryApi } from './library-connection.ts';

/** Files being added and read: each file's progress, the queue's, the Activity list, and the queue's actions. */

export interface QueueStatus {
  done: number;
  total: number;
  etaMs?: number;
}

/** A file being read: its percentage, and its stage when the percentage says too little (OCR's page). */
export interface FileProgress {
  percent: number;
  stage?: ReadingStage;
}

/** Each file being read's progress, by queue id. */
export const percents = signal<Record<string, FileProgress>>({});
/** The queue's progress while files wait or are read; undefined once it is empty. */
export const queue = signal<QueueStatus | undefined>(undefined);
/** The Activity list's lines, newest last (see activity.ts). */
export const activity = signal<ActivityNote[]>([]);

/** Counts drops, so that each drop's repeated notices get a summary line of their own. */
let dropSeq = 0;

/** The number of the latest drop (0 before the first): the group its repeated notices share. */
export function currentDrop(): number {
  return dropSeq;
}

/** Adds a line to the Activity list. */
export function noteActivity(text: string, path?: string): void {
  activity.value = addNotes(activity.value, [{ text, path }]);
}

/**
 * Adds dropped or picked files to the library's queue, saying so in the Activity list. `wholeFolders`: the
 * files are these linked folders read through whole (see `AddOptions`). False when they could not be added.
 */
export async function addFiles(files: IncomingFile[], wholeFolders: string[] = []): Promise<boolean> {
  const api = libraryApi();
  if (!api || (!files.length && !wholeFolders.length)) return false;
  dropSeq++;
  // A linked folder's sync says what it changed instead ("Contracts: 1 added, 40 unchanged").
  if (files.length && !wholeFolders.length) activity.value = addNotes(activity.value, [addingNote(files.length)]);
  try {
    // A folder picked or dropped comes whole: one the library holds already is synced.
    await api.queue.add(files, { syncFolders: true, wholeFolders });
    return true;
  } catch (err) {
    noteActivity(`The files could not be added: ${personalMessage(err)}`);
    return false;
  }
}

/** Try again on a failed file: it is queued again and read with relaxed limits. */
export async function retryItem(item: LibraryItem): Promise<void> {
  const api = libraryApi();
  if (!api || !item.queueId) return;
  try {
    const ok = await api.queue.retry(item.queueId as QueueId);
    noteActivity(ok ? `${item.path}: trying again` : `${item.path}: its contents were not kept; add the file again`, item.path);
  } catch (err) {
    noteActivity(`${item.path} could not be tried again: ${personalMessage(err)}`, item.path);
  }
}

/** Read again: the documents a newer reader reads better are queued to be read again from their kept files. */
export async function readDocumentsAgain(): Promise<void> {
  const api = libraryApi();
  if (!api) return;
  try {
    const n = await api.queue.readAgain();
    dropSeq++;
    if (n) activity.value = addNotes(activity.value, [{ text: `Reading ${n} document${n === 1 ? '' : 's'} again`, adding: n }]);
  } catch (err) {
    noteActivity(`The documents could not be read again: ${personalMessage(err)}`);
  }
}

/** Clears the failed files from the list. */
export async function dismissFailed(): Promise<void> {
  const api = libraryApi();
  if (!api) return;
  const n = await api.queue.dismissFailed();
  noteActivity(`Cleared ${n} failed file${n === 1 ? '' : 's'} from the list`);
}
