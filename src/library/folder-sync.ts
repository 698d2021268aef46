/**
 * Folder sync without the File System Access API: a folder dropped (or picked) again is compared with
 * what the library holds from it, and only the difference is applied. A file at the same path with the same
 * size and last-modified time is unchanged and is not read at all; a new path is added; a path whose size or
 * time differs is read again (and replaces the stored version, or is found to have the same bytes); a
 * stored document of that folder whose path is not in the drop was removed from the folder and is deleted.
 * Loose files (no folder) are never compared: they are only added. Pure.
 */

/** What tells a file's version without reading it. */
export interface Fingerprint {
  size: number;
  /** Last-modified time (ms); a file or document without one is never taken as unchanged. */
  modified?: number;
}

export interface FolderDiff {
  add: string[];
  change: string[];
  unchanged: string[];
  remove: string[];
}

/** The folder a path came with: its first segment ("Contracts/2024/lease.pdf" → "Contracts"); none for a loose file. */
export function topFolder(path: string): string | undefined {
  const slash = path.indexOf('/');
  return slash > 0 ? path.slice(0, slash) : undefined;
}

const same = (a: Fingerprint, b: Fingerprint) => a.size === b.size && a.modified !== undefined && a.modified === b.modified;

/**
 * The difference between the stored documents (path → fingerprint; several documents may share a path when
 * loose files of the same name were added, a path counts once) and a drop (path → fingerprint). The
 * folders compared are those of the drop's paths, and `whole` (a folder read whole that may be empty now).
 */
export function folderDiff(stored: ReadonlyMap<string, Fingerprint>, dropped: ReadonlyMap<string, Fingerprint>, whole: Iterable<string> = []): FolderDiff {
  const folders = new Set([...[...dropped.keys()].map(topFolder).filter((f): f is string => f !== undefined), ...whole]);
  const diff: FolderDiff = { add: [], change: [], unchanged: [], remove: [] };
  for (const [path, print] of dropped) {
    const before = stored.get(path);
    if (!before) diff.add.push(path);
    else if (same(before, print)) diff.unchanged.push(path);
    else diff.change.push(path);
  }
  for (const path of stored.keys()) {
    const folder = topFolder(path);
    if (folder !== undefined && folders.has(folder) && !dropped.has(path)) diff.remove.push(path);
  }
  return diff;
}

/** "2 added, 1 changed, 1 removed, 40 unchanged" (parts that are 0 left out; "nothing changed" for none). */
export function describeDiff(diff: FolderDiff): string {
  const parts = [
    diff.add.length && `${diff.add.length} added`,
    diff.change.length && `${diff.change.length} changed`,
    diff.remove.length && `${diff.remove.length} removed`,
  ].filter(Boolean);
  const unchanged = diff.unchanged.length ? `${diff.unchanged.length} unchanged` : '';
  if (!parts.length) return unchanged ? `nothing changed (${unchanged}, not read again)` : 'nothing changed';
  return [...parts, unchanged].filter(Boolean).join(', ');
}
