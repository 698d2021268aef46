/**
 * The Libraries dialog's actions, served by whichever library this tab has open: the list lives apart
 * from any library (`store/library-registry.ts`). The page opens another library by starting its worker
 * for it (a reload), so a library is never switched under a running ingest or question.
 */
import { DocQaError } from '../core/errors.ts';
import type { LibrariesApi, LibraryEntryView } from '../core/library-api.ts';
import type { LibraryEntry, LibraryRegistry } from '../store/library-registry.ts';

/** Bytes the browser says this site uses now (0 where it cannot say). */
export type UsageEstimate = () => Promise<number>;

export function librariesPart(currentId: string, registry: () => Promise<LibraryRegistry>, usage: UsageEstimate): LibrariesApi {
  const view = (entry: LibraryEntry): LibraryEntryView => ({ ...entry, current: entry.id === currentId });
  return {
    async list() {
      return (await (await registry()).list()).map(view);
    },
    async create(name) {
      return view(await (await registry()).create(name));
    },
    async rename(id, name) {
      await (await registry()).rename(id, name);
    },
    async delete(id) {
      if (id === currentId) throw new DocQaError('invalid-setting', 'this library is open in this tab: open another library first, then delete it');
      const before = await usage();
      await (await registry()).delete(id);
      return { freedBytes: Math.max(0, before - (await usage())) };
    },
  };
}
