import { computed, signal } from '@preact/signals';
import type { AnswerModelsView, IncomingFile } from '../core/library-api.ts';
import type { AnswerModelStatus } from '../core/types.ts';
import { libraryApi } from './library-connection.ts';

/** What writes this tab's answers, or why they quote the documents (the library worker's `answer-model` events). */
export const answerModelStatus = signal<AnswerModelStatus | undefined>(undefined);
/** The model writing answers (its label), when one is loaded: the page then offers phrasings and hops. */
export const answerModel = computed(() => {
  const s = answerModelStatus.value;
  return s?.state === 'ready' ? s.model : undefined;
});

/** The answer-model chooser's list, read when it opens and after each action. */
export const answerModels = signal<AnswerModelsView | undefined>(undefined);
/** The answer-model chooser is open. */
export const answerModelsOpen = signal(false);
/** What the chooser's last action did or why it failed (shown in the dialog, polite). */
export const answerModelsNote = signal<string | undefined>(undefined);

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

export async function refreshAnswerModels(): Promise<void> {
  const api = libraryApi();
  if (!api) return;
  const view = await api.answerModels.list();
  answerModels.value = view;
  answerModelStatus.value = view.status;
}

export function openAnswerModels(): void {
  answerModelsOpen.value = true;
  answerModelsNote.value = undefined;
  void refreshAnswerModels().catch(() => undefined);
}

/**
 * Runs a chooser action; its failure is said in the dialog (`failed`, when given: a model that did not
 * load is explained on its own row, with Try again), and the list is read again either way.
 */
async function act(run: () => Promise<unknown>, done: string, failed?: string): Promise<void> {
  answerModelsNote.value = undefined;
  try {
    await run();
    answerModelsNote.value = done;
  } catch (err) {
    answerModelsNote.value = failed ?? message(err);
  } finally {
    await refreshAnswerModels().catch(() => undefined);
  }
}

/** Downloads (what is not kept yet) and loads the model; answers quote the documents until it is ready. */
export const useAnswerModel = (id: string, label: string) => act(() => libraryApi()!.answerModels.use(id), `${label} writes the answers now`, `${label} could not be loaded: answers quote your documents.`);
export const stopAnswerModel = (label: string) => act(() => libraryApi()!.answerModels.stop(), `${label} is off: answers quote your documents`);
export const deleteAnswerModel = (id: string, label: string) => act(() => libraryApi()!.answerModels.delete(id), `${label}: its files were deleted`);

/** Runs an import, saying in the dialog that it is checked, then what came of it (the reason when refused). */
async function importing(checking: string, run: () => Promise<{ label: string }>): Promise<void> {
  answerModelsNote.value = checking;
  try {
    const { label } = await run();
    answerModelsNote.value = `${label} writes the answers now`;
  } catch (err) {
    answerModelsNote.value = message(err);
  } finally {
    await refreshAnswerModels().catch(() => undefined);
  }
}

/** Imports a model folder chosen by the person (an ONNX export or one .gguf file). */
export async function importAnswerFolder(files: IncomingFile[]): Promise<void> {
  if (files.length) await importing('Checking the folder…', () => libraryApi()!.answerModels.importFolder(files));
}

/** Imports a `.gguf` file chosen by the person. */
export function importAnswerModel(file: File): Promise<void> {
  return importing(`Checking ${file.name}…`, () => libraryApi()!.answerModels.importGguf(file));
}
