import { batch, signal } from '@preact/signals';
import { personalMessage } from '../core/errors.ts';
import type { SourceRequest, SourceView } from '../core/types.ts';
import { askError } from './ask-state.ts';
import { libraryApi } from './library-connection.ts';

/** The block on show in the Source dialog, if it is open. */
export const source = signal<SourceView | undefined>(undefined);
/** The file the document on show in the Source dialog was read from, when it was kept. */
export const original = signal<Blob | undefined>(undefined);

/** Opens the Source dialog on the block a citation points into (see `sourceRequestOf`). */
export async function openSource(request: SourceRequest): Promise<void> {
  const api = libraryApi();
  if (!api) return;
  try {
    const [view, blob] = await Promise.all([api.documents.getSource(request), api.documents.getOriginal(request.docId).catch(() => undefined)]);
    batch(() => {
      original.value = blob;
      source.value = view;
    });
  } catch (err) {
    askError.value = personalMessage(err);
  }
}
