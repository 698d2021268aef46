import { wrap, type Remote } from 'comlink';
import { installErrorTransfer } from '../core/error-transfer.ts';
import { DEFAULT_LIBRARY_ID, EVENTS_CHANNEL, libraryScoped, type LibraryApi } from '../core/library-api.ts';
import type { LibraryEvent } from '../core/types.ts';

/**
 * The page's typed handle on the library worker: `ready` and `storageEstimate`, and each part of the
 * surface (`documents`, `queue`, `ask`, `conversations`, `models`, `answerModels`), whose methods return
 * promises (`client.documents.list()`).
 */
export type LibraryClient = { readonly [K in keyof LibraryApi]: Remote<LibraryApi[K]> };

/**
 * The page's typed handle on the worker of library `libraryId`, plus the stream of that library's events
 * from every tab.
 */
export function connectLibrary(onEvent: (event: LibraryEvent) => void, libraryId = DEFAULT_LIBRARY_ID): LibraryClient {
  installErrorTransfer();
  // The worker learns its library from its name (`workers/library.worker.ts`).
  const name = libraryId === DEFAULT_LIBRARY_ID ? 'library' : `library:${libraryId}`;
  const worker = new Worker(new URL('../../workers/library.worker.ts', import.meta.url), { type: 'module', name });
  const events = new BroadcastChannel(libraryScoped(EVENTS_CHANNEL, libraryId));
  events.onmessage = (e: MessageEvent<LibraryEvent>) => onEvent(e.data);
  // Events meant for this tab alone come straight from its worker, beside Comlink's replies.
  worker.addEventListener('message', (e: MessageEvent<LibraryEvent | { id?: unknown }>) => {
    if (e.data && 'type' in e.data && (e.data.type === 'library-closed' || e.data.type === 'library-blocked' || e.data.type === 'embedding' || e.data.type === 'answer-model')) onEvent(e.data);
  });
  // Comlink reaches a nested object by path (`documents.list` is one call), but its `Remote` types a
  // property that is not a function as a promise of its value: the parts are typed here as the proxies
  // they are.
  return wrap<LibraryApi>(worker) as unknown as LibraryClient;
}
