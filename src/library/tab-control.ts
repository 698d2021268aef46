import type { LibraryEvent } from '../core/types.ts';
import type { Library } from './library.ts';

/** BroadcastChannel on which the library workers of a site's tabs tell each other what to do. */
export const CONTROL_CHANNEL = 'docqa-control';
/** Web Lock held by the one tab that indexes the queue (the writer). */
export const WRITER_LOCK = 'docqa-writer';

/** What one tab's library worker tells the others. */
export type ControlMessage =
  /** The semantic-search settings changed: load or drop the models they name. */
  | { type: 'semantic-settings' }
  /** The answer-model setting changed: load or drop the model it names. */
  | { type: 'answer-setting' }
  /** Files were queued: the writer tab indexes them. */
  | { type: 'files-queued' };

const CONTROL_TYPES: ReadonlySet<string> = new Set<ControlMessage['type']>(['semantic-settings', 'answer-setting', 'files-queued']);

/** Whether a message on the control channel is one this version knows (another version's is ignored). */
export function isControlMessage(data: unknown): data is ControlMessage {
  return typeof data === 'object' && data !== null && CONTROL_TYPES.has((data as { type?: unknown }).type as string);
}

/** What a tab does when another tab's worker speaks. */
export interface TabListeners {
  library: Library;
  /** Another tab changed the semantic-search settings. */
  onSemanticSettings: () => void;
  /** Another tab changed the answer-model setting. */
  onAnswerSetting: () => void;
  /** Whether this tab's database was closed under it (it then follows nothing). */
  superseded: () => boolean;
  /** The writer lock of this library's tabs; default the default library's. */
  writerLock?: string;
  /**
   * Whether another tab changed the documents after this tab's library opened (its reconcile at opening
   * may have missed it) and before this tab followed the others' events: caught up on joining.
   */
  changedBeforeJoining?: () => boolean;
}

/**
 * Wires a tab's library to the others: one tab at a time holds the writer lock (Web Locks) and indexes
 * the persisted queue; every tab hears the others' events and brings its index up to date from the store.
 * Returns how to let go of the writer lock (when the database was closed under this tab).
 */
export function joinTabs(events: BroadcastChannel, control: BroadcastChannel, listeners: TabListeners): { releaseWriter: () => void } {
  const { library, superseded } = listeners;
  let writer = false;
  let releaseWriter = () => {};
  let reconcileTimer: ReturnType<typeof setTimeout> | undefined;
  let vectorsTimer: ReturnType<typeof setTimeout> | undefined;
  // Only other tabs' events arrive here (a channel never hears itself): a document they deleted, or
  // one the writer committed, is brought into this tab's index from the store.
  const changedElsewhere = () => {
    // The question's reading reads the documents again at once; the index catches up a moment later.
    library.documentsChangedElsewhere();
    clearTimeout(reconcileTimer);
    reconcileTimer = setTimeout(() => void library.reconcile(), 100);
  };
  events.onmessage = (e: MessageEvent<LibraryEvent>) => {
    // The writer tab stored more vectors: this tab adds them to its dense index (at most once a second).
    if (e.data.type === 'embedding' && !writer && !superseded()) {
      vectorsTimer ??= setTimeout(() => {
        vectorsTimer = undefined;
        library.semantic.wake();
      }, 1000);
      return;
    }
    if (e.data.type !== 'changed' || superseded()) return;
    changedElsewhere();
  };
  if (listeners.changedBeforeJoining?.() && !superseded()) changedElsewhere();
  control.onmessage = (e: MessageEvent<unknown>) => {
    if (!isControlMessage(e.data)) return;
    const message = e.data;
    if (message.type === 'semantic-settings') listeners.onSemanticSettings();
    else if (message.type === 'answer-setting') listeners.onAnswerSetting();
    else if (writer) void library.processQueue();
  };
  const write = async (tookOver: boolean) => {
    if (superseded()) return;
    const released = new Promise<void>((resolve) => (releaseWriter = resolve));
    writer = true;
    // The tab that wrote until now may have committed what this tab's index has not seen. (A lock free at
    // once had no writer since this tab opened: its reconcile at opening holds, and any change announced
    // since is caught up above.)
    if (tookOver) await library.reconcile();
    await library.startWriting({ tookOver });
    // Hold the lock for the life of this tab; the next tab waiting takes over when it closes. A tab
    // whose database was taken by a newer version of the app lets go at once: the newer tab indexes.
    await released;
    writer = false;
    library.stopWriting();
  };
  // Free at once: this tab starts the writing. Else it waits, and takes over when the writing tab goes.
  const writerLock = listeners.writerLock ?? WRITER_LOCK;
  void navigator.locks.request(writerLock, { ifAvailable: true }, async (lock) => {
    if (lock) return write(false);
    void navigator.locks.request(writerLock, () => write(true));
  });
  return { releaseWriter: () => releaseWriter() };
}
