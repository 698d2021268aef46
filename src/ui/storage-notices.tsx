import { dismissLost, lost } from './library-state.ts';
import { closedReason, fatal, storage, waiting } from './storage-state.ts';
import { unfinishedImportNotes } from './library-file-state.ts';
import { applyUpdate, appUpdate } from './app-update.ts';

/** "3 December 2026, 14:02": when the library was last seen. */
function formatWhen(ms: number): string {
  return new Date(ms).toLocaleString(undefined, { day: 'numeric', month: 'long', year: 'numeric', hour: '2-digit', minute: '2-digit' });
}

/**
 * What the person must know about the library's storage, above everything else: why it cannot be used
 * (with a Reload when the browser closed or deleted it under the page), why it waits, or that the
 * browser cleared a library this browser had seen, with whether storage is now persistent.
 */
export function StorageNotices() {
  const alert = fatal.value ?? waiting.value;
  const cleared = lost.value;
  const s = storage.value;
  return (
    <>
      {alert && (
        <div role="alert" class="fatal">
          <p>{alert}</p>
          {closedReason.value && closedReason.value !== 'updated' && (
            <button type="button" onClick={() => location.reload()}>
              Reload
            </button>
          )}
        </div>
      )}
      {cleared && !alert && (
        <div role="alert" class="fatal lost">
          <p>
            The browser cleared this site's stored library ({cleared.documents} document{cleared.documents === 1 ? '' : 's'}, last used {formatWhen(cleared.lastSeen)}): add the
            files again.
            {s && !s.persisted && ' Storage for this site is not persistent, so the browser may clear it again when space runs low; installing the app or bookmarking the site makes that less likely.'}
          </p>
          <button type="button" onClick={dismissLost}>
            Dismiss
          </button>
        </div>
      )}
      {appUpdate.value && (
        <div role="status" class="update">
          <p>
            {appUpdate.value === 'ready' ? 'A new version of DocQA is ready.' : 'DocQA was updated in another tab.'} Reloading this page starts it; anything being indexed
            carries on after the reload.
          </p>
          <button type="button" onClick={() => void applyUpdate()}>
            Reload to update
          </button>
        </div>
      )}
      {unfinishedImportNotes.value.length > 0 && (
        <div role="status" class="fatal lost">
          {unfinishedImportNotes.value.map((note) => (
            <p key={note}>{note}</p>
          ))}
          <button type="button" onClick={() => (unfinishedImportNotes.value = [])}>
            Dismiss
          </button>
        </div>
      )}
    </>
  );
}
