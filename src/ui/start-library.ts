import { proxy } from 'comlink';
import { personalMessage } from '../core/errors.ts';
import { answerModelStatus } from './answer-models-state.ts';
import { flushDeletes } from './delete-state.ts';
import { percents, queue } from './indexing-state.ts';
import { connectToLibrary } from './library-connection.ts';
import { onLibraryEvent } from './library-events.ts';
import { refreshLibrary } from './library-state.ts';
import { endedCleanly, recordUnload } from './local-records.ts';
import { watchReaderMemory } from './memory-watch.ts';
import { semantic } from './models-state.ts';
import { refreshOcrLanguages } from './ocr-languages-state.ts';
import { followLibraryChanges, refreshLibraries } from './libraries-state.ts';
import { sweepUnfinishedImports } from './library-file-state.ts';
import { startFolderLinks } from './folder-links-state.ts';
import { currentLibraryId, openLibrary } from './current-library.ts';
import { keepOriginals } from './preferences.ts';
import { fatal, ready, waiting } from './storage-state.ts';

/** Connects to the library worker and loads the library. */
export async function startLibrary(): Promise<void> {
  const api = connectToLibrary(onLibraryEvent);
  await navigator.storage?.persist?.().catch(() => false);
  let session: string;
  try {
    ({ session } = await api.ready(proxy({ endedCleanly: (s: string) => endedCleanly(globalThis.localStorage, s) })));
  } catch (err) {
    // The library this browser last opened was deleted (in another tab): open the first one left.
    const first = await api.libraries.list().then((l) => l[0], () => undefined);
    if (first && first.id !== currentLibraryId()) return openLibrary(first.id);
    fatal.value = `The library could not be opened: ${personalMessage(err)}`;
    return;
  } finally {
    waiting.value = undefined;
  }
  ready.value = true;
  await api.documents.setKeepOriginals(keepOriginals.value);
  semantic.value = await api.models.status();
  // The worker announces the answer model's state as it changes; this is where it stands now.
  answerModelStatus.value ??= await api.answerModels.status().catch(() => undefined);
  void refreshOcrLanguages().catch(() => undefined);
  followLibraryChanges();
  void refreshLibraries().catch(() => undefined);
  // An import a closed tab or a crash left unfinished is removed, and said.
  void sweepUnfinishedImports().catch(() => undefined);
  // Linked folders are listed, and those the page may still read are synced (when the person wants that).
  void startFolderLinks().catch((err: unknown) => console.warn('linked folders not synced', err));
  addEventListener('pagehide', () => {
    // A reload or a closed tab, not a crash: a read this tab's library leaves unfinished is read again without blame.
    recordUnload(globalThis.localStorage, session);
    // Best effort: the worker usually finishes a delete posted as the page goes; else the document stays.
    void flushDeletes();
  });
  watchReaderMemory(api, () => queue.value !== undefined || Object.keys(percents.value).length > 0);
  await refreshLibrary();
}
