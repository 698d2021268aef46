import type { LibraryEvent } from '../core/types.ts';
import { connectLibrary, type LibraryClient } from './library-client.ts';
import { currentLibraryId } from './current-library.ts';

/**
 * The page's one handle on the library worker, opened once at start (start-library.ts) and read by every
 * action that asks the library something; before then, and when the page never connects, it is undefined
 * and those actions do nothing.
 */
let api: LibraryClient | undefined;

/** The library worker's handle once the page has connected (for the model manager's actions). */
export function libraryApi(): LibraryClient | undefined {
  return api;
}

/** Connects to the library worker, `onEvent` hearing the library's events; the handle is kept for {@link libraryApi}. */
export function connectToLibrary(onEvent: (event: LibraryEvent) => void): LibraryClient {
  api = connectLibrary(onEvent, currentLibraryId());
  return api;
}
