import { folderLinks, setSyncOnOpen, syncFolder, syncingFolder, syncOnOpen, unlinkFolder, type LinkRow } from './folder-links-state.ts';

/** "synced at 14:05" today, "synced on 3 December" before. */
function syncedLine(row: LinkRow): string {
  if (syncingFolder.value === row.name) return 'syncing…';
  if (row.syncedAt === undefined) return 'not synced yet';
  const at = new Date(row.syncedAt);
  const today = at.toDateString() === new Date().toDateString();
  return today ? `synced at ${at.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })}` : `synced on ${at.toLocaleDateString(undefined, { day: 'numeric', month: 'long' })}`;
}

/**
 * The folders linked to the library (where the browser links folders): each with when it was last synced,
 * Sync and Unlink; and whether they are synced when the app opens.
 */
export function LinkedFolders() {
  const rows = folderLinks.value;
  if (!rows.length) return null;
  return (
    <section class="linked-folders" aria-label="Linked folders">
      <h3>Linked folders</h3>
      <ul>
        {rows.map((row) => (
          <li key={row.name}>
            <span class="linked-name">
              <bdi>{row.name}</bdi>
              <small>
                {' '}
                {syncedLine(row)}
                {row.access !== 'granted' && ' · the browser asks again before it is read'}
              </small>
            </span>
            <button type="button" aria-label={`Sync ${row.name}`} disabled={syncingFolder.value !== undefined} onClick={() => void syncFolder(row.name)}>
              Sync
            </button>
            <button type="button" aria-label={`Unlink ${row.name}`} onClick={() => void unlinkFolder(row.name)}>
              Unlink
            </button>
          </li>
        ))}
      </ul>
      <label>
        <input type="checkbox" checked={syncOnOpen.value} onChange={(e) => setSyncOnOpen(e.currentTarget.checked)} /> Sync linked folders when the app opens
      </label>
    </section>
  );
}
