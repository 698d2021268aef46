import { signal } from '@preact/signals';
import type { ClosedReason, StorageEstimate } from '../core/types.ts';

/**
 * Where the library's storage stands, for the notices above everything else (storage-notices.tsx): whether
 * it has opened, why it waits or cannot be used, and how much of the browser's storage it uses.
 */

/** The library has opened (its worker answered `ready`). */
export const ready = signal(false);
/** Set when the library cannot be opened at all; shown instead of the app's controls' results. */
export const fatal = signal<string | undefined>(undefined);
/** Set when the library's storage was closed under this tab (see `ClosedReason`): the page offers a reload. */
export const closedReason = signal<ClosedReason | undefined>(undefined);
/** Why the library has not opened yet (an older app version in another tab blocks the upgrade); gone once it opens. */
export const waiting = signal<string | undefined>(undefined);
/** The browser's storage estimate for this site, read with each listing of the library. */
export const storage = signal<StorageEstimate | undefined>(undefined);
