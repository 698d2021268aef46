import { DocQaError } from '../core/errors.ts';
import type { AnswerModelsApi, AskApi, ConversationsApi, DocumentsApi, LibraryApi, ModelsApi, QueueApi, Served } from '../core/library-api.ts';
import type { AnswerSetup } from '../models/setup/answer-setup.ts';
import type { SemanticSetup } from '../models/setup/semantic-setup.ts';
import type { Library } from './library.ts';

/** What the worker's surface serves from, once the library is open. */
export interface OpenedLibrary {
  library: Library;
  /** Semantic search's models (the model manager). */
  semantic: SemanticSetup;
  /** The model that writes answers. */
  answers: AnswerSetup;
}

/**
 * A part of the surface for the page: each method called on it waits for `part` (a part of the opened
 * library) and is called on it, so a call made while the database opens waits, and one made once it was
 * closed under this tab fails with the reason (`part` rejects then). Comlink reaches it by path
 * (`documents.list`), so it is never sent whole: it has no `then`, and no other property.
 */
function whenOpen<T extends object>(part: () => Promise<Served<T>>): T {
  return new Proxy({} as T, {
    get: (_, name) => {
      if (typeof name !== 'string' || name === 'then') return undefined;
      return async (...args: unknown[]) => {
        const target = (await part()) as unknown as Record<string, unknown>;
        const method = target[name];
        if (typeof method !== 'function') throw new DocQaError('internal', `library worker: no method "${name}" here`);
        return (method as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

/** Asking, as the page calls it: the request in one object, the callbacks (Comlink proxies) beside it. */
function askPart(library: Library): Served<AskApi> {
  return {
    ask: ({ question, filter, ...rest }, onText, onStep) => library.asking.ask(question, filter, { ...rest, onText, onStep }),
    stop: () => library.asking.stop(),
    read: (question, filter, removed) => library.reader.read(question, filter, removed),
  };
}

/** The model manager's actions, on semantic search's set-up. */
function modelsPart({ library, semantic }: OpenedLibrary): Served<ModelsApi> {
  return {
    status: () => library.embeddingStatus,
    list: () => semantic.listModels(),
    use: (id) => semantic.useModel(id),
    stop: (id) => semantic.stopModel(id),
    delete: (id) => semantic.deleteModel(id),
    importFolder: (files) => semantic.importModel(files),
    setMirror: (url) => semantic.setMirror(url),
  };
}

/** The answer-model chooser's actions, on the answer set-up. */
function answerModelsPart(answers: AnswerSetup): Served<AnswerModelsApi> {
  return {
    status: () => answers.status,
    list: () => answers.list(),
    use: (id) => answers.use(id),
    stop: () => answers.stop(),
    delete: (id) => answers.delete(id),
    importGguf: (file) => answers.importGguf(file),
    importFolder: (files) => answers.importFolder(files),
  };
}

/**
 * The parts of the worker's surface (see {@link LibraryApi}): each a small object of the library (its
 * documents, queue and conversations as they are; asking and the two model set-ups through the few lines
 * above), reached once `open` resolves.
 */
export function serveParts(open: () => Promise<OpenedLibrary>): Omit<LibraryApi, 'ready' | 'storageEstimate' | 'ocrLanguages' | 'libraries' | 'archive' | 'folders'> {
  return {
    documents: whenOpen<DocumentsApi>(async () => (await open()).library.documents),
    queue: whenOpen<QueueApi>(async () => (await open()).library.queue),
    conversations: whenOpen<ConversationsApi>(async () => (await open()).library.conversations),
    ask: whenOpen<AskApi>(async () => askPart((await open()).library)),
    models: whenOpen<ModelsApi>(async () => modelsPart(await open())),
    answerModels: whenOpen<AnswerModelsApi>(async () => answerModelsPart((await open()).answers)),
  };
}
