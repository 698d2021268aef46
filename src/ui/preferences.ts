import { signal } from '@preact/signals';
import { libraryApi } from './library-connection.ts';

/** The person's choices remembered in this browser (localStorage): how questions are asked, whether originals are kept. */

const ASK_OPTIONS_KEY = 'docqa.askOptions';
const storedAskOptions = (): { expand?: boolean; multiHop?: boolean } => {
  try {
    return JSON.parse(globalThis.localStorage?.getItem(ASK_OPTIONS_KEY) ?? '{}') ?? {};
  } catch {
    return {};
  }
};
/** "Search several phrasings" (default off), remembered in this browser. */
export const expandQueries = signal(storedAskOptions().expand === true);
/** "Look further (multi-hop)" (default off), remembered in this browser. */
export const lookFurther = signal(storedAskOptions().multiHop === true);

/** Turns "Search several phrasings" (`expand`) or "Look further" (`multiHop`) on or off, remembered in this browser. */
export function setAskOption(option: 'expand' | 'multiHop', on: boolean): void {
  (option === 'expand' ? expandQueries : lookFurther).value = on;
  globalThis.localStorage?.setItem(ASK_OPTIONS_KEY, JSON.stringify({ expand: expandQueries.value, multiHop: lookFurther.value }));
}

const KEEP_ORIGINALS_KEY = 'docqa.keepOriginals';
/** "Keep original files" (default on), remembered in this browser; the library worker is told at start and on change. */
export const keepOriginals = signal(globalThis.localStorage?.getItem(KEEP_ORIGINALS_KEY) !== 'false');

/** Turns "Keep original files" on or off, for the documents added from now on. */
export async function setKeepOriginals(keep: boolean): Promise<void> {
  keepOriginals.value = keep;
  localStorage.setItem(KEEP_ORIGINALS_KEY, String(keep));
  await libraryApi()?.documents.setKeepOriginals(keep);
}
