import { EVENTS_CHANNEL, type LibraryApi } from '../core/library-api.ts';
import type { LibraryEvent } from '../core/types.ts';
import { LibraryStore } from '../store/library-store.ts';
import { openLibraryDb } from '../store/schema.ts';
import { Library } from './library.ts';
import { ParseWorkerClient } from './parse-worker-client.ts';

const CONTROL_CHANNEL = 'docqa-control';
const WRITER_LOCK = 'docqa-writer';

/**
 * Builds the worker's handler: opens the database, loads the index, and wires the tabs together.
 * One tab at a time holds the writer lock (Web Locks) and indexes the persisted queue; every tab
 * hears changes on a BroadcastChannel and brings its index up to date from the store. `notifyPage` sends
 * an event to this tab's page only.
 */
export function createLibraryHandler(notifyPage: (event: LibraryEvent) => void, dbName?: string): LibraryApi {
  const events = new BroadcastChannel(EVENTS_CHANNEL);
  const control = new BroadcastChannel(CONTROL_CHANNEL);
  const emit = (event: LibraryEvent) => events.postMessage(event);
  // Only this tab's page is told (other tabs' libraries hear their own `blocking`).
  const closed = (message: string) => notifyPage({ type: 'library-closed', message });
  // Set when a newer version of the app took the database: this tab stops writing and lets go of the lock.
  let superseded = false;
  let releaseWriter = () => {};
  const opening = (async () => {
    const db = await openLibraryDb(dbName, {
      onVersionChange: () => {
        superseded = true;
        releaseWriter();
        closed('DocQA was updated in another tab: reload this page to continue');
      },
      // Only while this tab's upgrade waits: the page clears the message once the library opens.
      onBlocked: () => notifyPage({ type: 'library-blocked', message: 'DocQA is open in another tab with an older version: close or reload that tab to finish updating' }),
    });
    // Files are read in a worker of their own, under a watchdog: a slow or hostile file never holds up questions.
    const preparer = new ParseWorkerClient(() => new Worker(new URL('../../workers/parse.worker.ts', import.meta.url), { type: 'module', name: 'parse' }));
    const library = new Library(new LibraryStore(db), emit, { preparer });
    await library.open();
    return library;
  })();
  // A library that cannot open (a database from a newer app version, storage disabled) fails every call
  // with that error, which the page shows; nothing else is attempted.
  opening.catch(() => undefined);

  void opening.then((library) => {
    let writer = false;
    let reconcileTimer: ReturnType<typeof setTimeout> | undefined;
    // Only other tabs' events arrive here (a channel never hears itself): a document they deleted, or
    // one the writer committed, is brought into this tab's index from the store.
    events.onmessage = (e: MessageEvent<LibraryEvent>) => {
      if (e.data.type !== 'changed' || superseded) return;
      clearTimeout(reconcileTimer);
      reconcileTimer = setTimeout(() => void library.reconcile(), 100);
    };
    control.onmessage = () => {
      if (writer) void library.processQueue();
    };
    void navigator.locks.request(WRITER_LOCK, async () => {
      if (superseded) return;
      const released = new Promise<void>((resolve) => (releaseWriter = resolve));
      writer = true;
      await library.reconcile();
      await library.startWriting();
      // Hold the lock for the life of this tab; the next tab waiting takes over when it closes. A tab
      // whose database was taken by a newer version of the app lets go at once: the newer tab indexes.
      await released;
      writer = false;
      library.stopWriting();
    });
  });

  return {
    async ready() {
      const library = await opening;
      return { chunks: library.indexedChunks };
    },
    async addFiles(files) {
      await (await opening).enqueue(files);
      control.postMessage('process');
    },
    listLibrary: async () => (await opening).listLibrary(),
    deleteDocument: async (docId) => (await opening).deleteDocument(docId),
    dismissQueued: async (id) => (await opening).dismissQueued(id),
    retryQueued: async (id) => (await opening).retryQueued(id),
    reportReaderMemory: async (bytes) => (await opening).reportReaderMemory(bytes),
    dismissFailed: async () => (await opening).dismissFailed(),
    setTags: async (docId, tags) => (await opening).setTags(docId, tags),
    ask: async (question, filter) => (await opening).ask(question, filter),
    getSource: async (request) => (await opening).getSource(request),
    setKeepOriginals: async (keep) => (await opening).setKeepOriginals(keep),
    getOriginal: async (docId) => (await opening).getOriginal(docId),
    async storageEstimate() {
      const estimate = await navigator.storage.estimate();
      const persisted = (await navigator.storage.persisted?.()) ?? false;
      return { usage: estimate.usage ?? 0, quota: estimate.quota ?? 0, persisted };
    },
  };
}
