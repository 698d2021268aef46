/** The library's linked folders, as the page calls them (part `folders` of `LibraryApi`, decision 0035). */

/**
 * A folder kept linked to the library through the File System Access API: its directory handle is kept in
 * the library's database (in this browser profile only: a handle does not travel in a library file), so
 * Sync reads it again without the picker.
 */
export interface FolderLink {
  /** The folder's name: the top folder of its documents' paths ("Contracts" → "Contracts/2024/lease.pdf"). */
  name: string;
  handle: FileSystemDirectoryHandle;
  /** When it was linked (ms since the epoch). */
  linkedAt: number;
  /** When it was last read through (ms since the epoch). */
  syncedAt?: number;
}

/** The library's linked folders. */
export interface FolderLinksApi {
  list(): Promise<FolderLink[]>;
  /**
   * Keeps a picked folder linked. The same folder picked again keeps its link; another folder of the same
   * name is refused ('folder-refused'): its documents' paths would be taken for the first one's.
   */
  link(handle: FileSystemDirectoryHandle, now: number): Promise<FolderLink>;
  /** Forgets the link; the documents read from the folder stay. */
  unlink(name: string): Promise<void>;
  /** Records that the folder was read through (after its files were handed to the queue). */
  synced(name: string, now: number): Promise<void>;
}
