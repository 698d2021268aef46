import { DocQaError } from '../core/errors.ts';
import type { FolderLink, FolderLinksApi } from '../core/folder-links-api.ts';

/** Where the links are kept: the library database's settings store. */
interface LinkSettings {
  get(key: string): Promise<unknown>;
  update(key: string, change: (value: unknown) => unknown): Promise<unknown>;
}

const KEY = 'folder-links';

function isLink(value: unknown): value is FolderLink {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<FolderLink>;
  return typeof v.name === 'string' && typeof v.linkedAt === 'number' && typeof v.handle === 'object' && v.handle !== null;
}

const linksIn = (stored: unknown): FolderLink[] => (Array.isArray(stored) ? stored.filter(isLink) : []);

/**
 * The library's linked folders (see {@link FolderLinksApi}), kept under one settings key as a list of
 * directory handles with their names and times, each change read and written in one transaction (two tabs
 * linking at once both keep theirs). Kept in the library's database, so every tab sees the same links and
 * deleting the library forgets them; never exported (a handle names a folder on this device, for this
 * browser profile).
 */
export function folderLinksPart(settings: () => Promise<LinkSettings>): FolderLinksApi {
  const change = async (edit: (links: FolderLink[]) => FolderLink[]) => {
    await (await settings()).update(KEY, (stored) => edit(linksIn(stored)));
  };
  return {
    list: async () => linksIn(await (await settings()).get(KEY)),
    async link(handle, now) {
      const named = linksIn(await (await settings()).get(KEY)).find((l) => l.name === handle.name);
      if (named && !(await named.handle.isSameEntry(handle))) {
        throw new DocQaError('folder-refused', `another folder named "${handle.name}" is already linked to this library: unlink it first, or rename one of the two folders`);
      }
      // The same folder picked again keeps its link, with the new handle (it carries the permission just given).
      const link: FolderLink = named ? { ...named, handle } : { name: handle.name, handle, linkedAt: now };
      await change((links) => [...links.filter((l) => l.name !== link.name), link]);
      return link;
    },
    unlink: (name) => change((links) => links.filter((l) => l.name !== name)),
    synced: (name, now) => change((links) => links.map((l) => (l.name === name ? { ...l, syncedAt: now } : l))),
  };
}
