import { DEFAULT_LIBRARY_ID, EVENTS_CHANNEL, libraryScoped, type LibraryApi, type PageLink } from '../core/library-api.ts';
import { isLibraryId, libraryDbName, LibraryRegistry } from '../store/library-registry.ts';
import { librariesPart } from './libraries-part.ts';
import { archivePart } from './archive-part.ts';
import type { LibraryEvent } from '../core/types.ts';
import { EmbedWorkerClient } from '../models/encoder/embed-worker-client.ts';
import { deleteCachedModel, listCachedModels, MODEL_CACHE_NAME } from '../models/model-cache.ts';
import { LibraryStore } from '../store/library-store.ts';
import { openLibraryDb } from '../store/schema.ts';
import { SettingsStore } from '../store/settings-store.ts';
import { folderLinksPart } from './folder-links.ts';
import { VectorStore } from '../store/vector-store.ts';
import { DocQaError } from '../core/errors.ts';
import type { ClosedReason } from '../core/types.ts';
import { closedMessage } from './closed-message.ts';
import { createLibrary, type Library } from './library.ts';
import { LibraryModels } from './library-models.ts';
import { serveParts } from './library-surface.ts';
import { ocrLanguageSettings } from './ocr-language-settings.ts';
import { OCR_LANGUAGE_CACHE_NAME } from '../ingest/ocr/language-store.ts';
import { locateOcrAssets } from '../ingest/ocr/ocr-assets.ts';
import { CONTROL_CHANNEL, joinTabs, WRITER_LOCK, type ControlMessage } from './tab-control.ts';
import { ParseWorkerClient } from './parse-worker-client.ts';
import { RerankWorkerClient } from '../models/cross-encoder/rerank-worker-client.ts';
import { GenerateWorkerClient } from '../models/generator/generate-worker-client.ts';
import { AnswerSetup } from '../models/setup/answer-setup.ts';
import { createWebLlmFacts } from '../models/webllm/webllm-caches.ts';
import { SemanticSetup, type EmbedHost } from '../models/setup/semantic-setup.ts';

/**
 * Chunks per embedding call in the browser: on WASM, 8 (batch 32 was no faster than 1 in `npm run bench
 * -- embed`, and a question waits behind at most one batch); on WebGPU, 32 (GPUs gain from batches;
 * published figures: WebGPU is 28-61× faster than WASM at batch 32 × 512 tokens).
 */
const BROWSER_EMBED_BATCH = { wasm: 8, webgpu: 32 };

/**
 * Builds the worker's handler: opens the database, builds the library and the model set-ups, wires the
 * tabs together (`tab-control.ts`) and serves the library's parts to the page (`library-surface.ts`).
 * `notifyPage` sends an event to this tab's page only.
 */
export function createLibraryHandler(notifyPage: (event: LibraryEvent) => void, libraryId: string = DEFAULT_LIBRARY_ID): LibraryApi {
  // Tabs meet only the tabs of the same library.
  const events = new BroadcastChannel(libraryScoped(EVENTS_CHANNEL, libraryId));
  const control = new BroadcastChannel(libraryScoped(CONTROL_CHANNEL, libraryId));
  // Until the library has opened and follows the other tabs (joinTabs), a change one announces is noted.
  let changedWhileOpening = false;
  events.onmessage = (e: MessageEvent<LibraryEvent>) => {
    if (e.data?.type === 'changed') changedWhileOpening = true;
  };
  let registry: Promise<LibraryRegistry> | undefined;
  const libraries = () => (registry ??= LibraryRegistry.open());
  const emit = (event: LibraryEvent) => events.postMessage(event);
  const tell = (message: ControlMessage) => control.postMessage(message);
  // This worker's life: recorded with each read it starts, and by the page when it unloads.
  const session = crypto.randomUUID();
  let page: PageLink | undefined;
  // Set when the database was closed under this tab (a newer app version, deleted, terminated): this tab
  // stops writing, lets go of the lock, and every later call fails with this error.
  let closedBy: DocQaError | undefined;
  let releaseWriter = () => {};
  let opened: Library | undefined;
  // Only this tab's page is told (other tabs' libraries hear their own events).
  const close = (reason: ClosedReason) => {
    if (closedBy) return;
    closedBy = opened?.close(reason) ?? new DocQaError('storage-closed', closedMessage(reason));
    releaseWriter();
    notifyPage({ type: 'library-closed', reason, message: closedBy.message });
  };
  const opening = (async () => {
    // A library deleted in another tab (or an id from nowhere) is not created again, empty.
    if (!isLibraryId(libraryId) || !(await (await libraries()).get(libraryId))) {
      throw new DocQaError('storage-closed', 'this library no longer exists: it was deleted, perhaps in another tab');
    }
    const db = await openLibraryDb(libraryDbName(libraryId), {
      onVersionChange: () => close('updated'),
      onDeleted: () => close('deleted'),
      onTerminated: () => close('terminated'),
      // Only while this tab's upgrade waits: the page clears the message once the library opens.
      onBlocked: () => notifyPage({ type: 'library-blocked', message: 'DocQA is open in another tab with an older version: close or reload that tab to finish updating' }),
    });
    // Files are read in a worker of their own, under a watchdog: a slow or hostile file never holds up questions.
    const preparer = new ParseWorkerClient(() => new Worker(new URL('../../workers/parse.worker.ts', import.meta.url), { type: 'module', name: 'parse' }));
    // The models the library answers with; the set-ups below load them into it.
    const models = new LibraryModels();
    const library = createLibrary(new LibraryStore(db), emit, {
      models,
      preparer,
      embedding: { batchSize: BROWSER_EMBED_BATCH, notifyPage },
      session,
      // Asked when a read is found cut short: the page keeps the sessions that ended with a page unload.
      endedCleanly: async (s) => (await page?.endedCleanly(s)) ?? false,
      onQueued: () => tell({ type: 'files-queued' }),
    });
    opened = library;
    await library.open();
    // Embeddings are computed in a worker of their own (started by this one), loaded only once a model is chosen.
    const embedWorker = new EmbedWorkerClient();
    const host: EmbedHost = {
      load: (request, onProgress) => embedWorker.load(request, onProgress),
      embedChunks: (texts) => embedWorker.embedChunks(texts),
      embedQuery: (text) => embedWorker.embedQuery(text),
      takeDeviceNotice: () => embedWorker.takeDeviceNotice(),
      unload: () => embedWorker.unload(),
      // Read here, from the Cache API this worker shares with the embed worker: listing models must not
      // start the embed worker (and load transformers.js) in a tab that never uses one.
      listCached: async () => listCachedModels(await caches.open(MODEL_CACHE_NAME)),
      deleteCached: (repo, revision) => embedWorker.deleteCached(repo, revision),
      importFiles: (model, files) => embedWorker.importFiles(model, files),
    };
    // Reranking runs in a worker of its own: a question never waits behind a batch of background embedding.
    const rerankWorker = new RerankWorkerClient();
    const semantic = new SemanticSetup({
      library,
      models,
      embed: host,
      rerank: rerankWorker,
      settings: new SettingsStore(db),
      vectors: new VectorStore(db),
      origin: self.location.origin,
      announce: () => tell({ type: 'semantic-settings' }),
    });
    // A model chosen earlier is loaded from the browser's model cache; questions meanwhile use keywords.
    void semantic.start().catch((err: unknown) => console.warn('semantic search not started', err));
    // The model that writes answers, if one is set up (else answers quote the documents).
    const answers = new AnswerSetup({
      models,
      settings: new SettingsStore(db),
      host: new GenerateWorkerClient(),
      files: {
        list: async () => listCachedModels(await caches.open(MODEL_CACHE_NAME)),
        delete: async (repo) => deleteCachedModel(await caches.open(MODEL_CACHE_NAME), repo),
      },
      webllm: createWebLlmFacts(),
      announce: () => tell({ type: 'answer-setting' }),
      onStatus: (status) => notifyPage({ type: 'answer-model', status }),
    });
    void answers.start().catch((err: unknown) => console.warn('answer model not started', err));
    return { library, semantic, answers, db };
  })();
  // A library that cannot open (a database from a newer app version, storage disabled) fails every call
  // with that error, which the page shows; nothing else is attempted.
  opening.catch(() => undefined);

  void opening.then(({ library, semantic, answers }) => {
    ({ releaseWriter } = joinTabs(events, control, {
      library,
      writerLock: libraryScoped(WRITER_LOCK, libraryId),
      // Another tab changed the settings: follow them (load or drop the model).
      onSemanticSettings: () => void semantic.start().catch((err: unknown) => console.warn('semantic search not restarted', err)),
      onAnswerSetting: () => void answers.start().catch((err: unknown) => console.warn('answer model not restarted', err)),
      superseded: () => closedBy !== undefined,
      changedBeforeJoining: () => changedWhileOpening,
    }));
  });
  // Every call fails with the reason once the database was closed under this tab.
  const open = async () => {
    const parts = await opening;
    if (closedBy) throw closedBy;
    return parts;
  };

  return {
    async ready(link) {
      page = link;
      const { library } = await open();
      return { chunks: library.indexedChunks, session };
    },
    async storageEstimate() {
      const estimate = await navigator.storage.estimate();
      const persisted = (await navigator.storage.persisted?.()) ?? false;
      return { usage: estimate.usage ?? 0, quota: estimate.quota ?? 0, persisted };
    },
    ...serveParts(open),
    // Not a part of the library: the languages are kept once for the browser profile.
    libraries: librariesPart(libraryId, libraries, async () => (await navigator.storage.estimate()).usage ?? 0),
    archive: archivePart({
      libraryId,
      db: async () => (await open()).db,
      registry: libraries,
      openDb: (name) => openLibraryDb(name),
      available: async () => {
        const { usage, quota } = await navigator.storage.estimate();
        return quota === undefined ? undefined : Math.max(0, quota - (usage ?? 0));
      },
      locks: navigator.locks,
    }),
    folders: folderLinksPart(async () => new SettingsStore((await open()).db)),
    ocrLanguages: ocrLanguageSettings({ open: () => caches.open(OCR_LANGUAGE_CACHE_NAME), langPath: locateOcrAssets().langPath }),
  };
}
