/** How a library file is named: the page suggests it in the save dialog, the worker names the download. */

/** A library file's extension. */
export const ARCHIVE_EXTENSION = '.docqa.zip';

/** A library name as a file name: letters, digits, spaces, dots, dashes and underscores. */
export function archiveFileName(libraryName: string): string {
  const safe = libraryName.replace(/[^\p{L}\p{N} ._-]+/gu, ' ').replace(/\s+/g, ' ').replace(/^[.\s]+/, '').trim().slice(0, 80) || 'library';
  return `${safe}${ARCHIVE_EXTENSION}`;
}
