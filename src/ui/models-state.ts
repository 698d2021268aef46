import { signal } from '@preact/signals';
import type { ModelId } from '../core/ids.ts';
import type { IncomingFile, ModelsView } from '../core/library-api.ts';
import type { EmbeddingEvent } from '../core/types.ts';
import { libraryApi } from './library-connection.ts';

/** Semantic search's state (model, embedding progress), from the library worker's `embedding` events. */
export const semantic = signal<EmbeddingEvent>({ type: 'embedding', state: 'off', done: 0, total: 0 });

/** The model manager's list, read when it opens and after each action. */
export const models = signal<ModelsView | undefined>(undefined);
/** The model manager dialog is open. */
export const modelsOpen = signal(false);
/** What the last action of the model manager did or why it failed (shown in the dialog, polite). */
export const modelsNote = signal<string | undefined>(undefined);

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

export async function refreshModels(): Promise<void> {
  const api = libraryApi();
  if (!api) return;
  const view = await api.models.list();
  models.value = view;
  semantic.value = view.status;
}

export function openModels(): void {
  modelsOpen.value = true;
  modelsNote.value = undefined;
  void refreshModels();
}

/**
 * Runs a model manager action; its failure is said in the dialog (`failed`, when given: a model that did
 * not load is explained on its own row, with Try again), and the list is read again either way.
 */
async function act(run: () => Promise<unknown>, done?: string, failed?: string): Promise<void> {
  modelsNote.value = undefined;
  try {
    await run();
    if (done) modelsNote.value = done;
  } catch (err) {
    modelsNote.value = failed ?? message(err);
  } finally {
    await refreshModels().catch(() => undefined);
  }
}

export const useModel = (id: ModelId, label: string) =>
  act(() => libraryApi()!.models.use(id), `${label} is in use: your documents are being prepared for semantic search`, `${label} could not be loaded: search works by keywords.`);
export const stopModel = (id: ModelId, label: string, kind: 'embedding' | 'reranker') =>
  act(() => libraryApi()!.models.stop(id), kind === 'reranker' ? `${label} is off: answers keep the fused order` : 'Semantic search is off: answers use keyword search only');
export const deleteModel = (id: ModelId, label: string) => act(() => libraryApi()!.models.delete(id), `${label}: its files and vectors were deleted`);
export const setMirror = (url: string | undefined) => act(() => libraryApi()!.models.setMirror(url), url ? `Models will be downloaded from ${url}` : 'Models will be downloaded from huggingface.co');

export async function importModel(files: IncomingFile[]): Promise<void> {
  if (!files.length) return;
  await act(async () => {
    const id = await libraryApi()!.models.importFolder(files);
    modelsNote.value = `Imported ${id}: choose Use to turn it on`;
  });
}
