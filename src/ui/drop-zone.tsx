import { useState } from 'preact/hooks';
import { filesFromDrop, filesFromInput, learnSizes } from './collect-files.ts';
import { canLinkFolders, pickAndLinkFolder } from './folder-links-state.ts';
import { formatEta } from './format.ts';
import { LinkedFolders } from './linked-folders.tsx';
import { fileNameOf, PrefixIsolated } from './isolate.tsx';
import { activity, addFiles, queue, type QueueStatus } from './indexing-state.ts';
import { items, loaded } from './library-state.ts';
import { closedReason } from './storage-state.ts';


/**
 * The progress line: "Loading the library…" until the list is read; the queue's progress while the
 * writer reports it; files still waiting (a queue resumed after a restart, before the writer's first
 * report, or indexed by another tab); "Ready" only when nothing waits.
 */
function progressText(q: QueueStatus | undefined): string {
  if (closedReason.value) return 'Indexing stopped: the library cannot be used until the page is reloaded';
  if (!loaded.value) return 'Loading the library…';
  if (q) return `Indexing: ${q.done} of ${q.total} files done${q.etaMs !== undefined ? `, ${formatEta(q.etaMs)}` : ''}`;
  const waiting = items.value.filter((i) => i.kind === 'queued').length;
  return waiting ? `Indexing: ${waiting} file${waiting === 1 ? '' : 's'} waiting` : 'Ready';
}

export function DropZone() {
  const [over, setOver] = useState(false);
  const q = queue.value;
  return (
    <div
      role="region"
      aria-label="Drop documents here"
      class={over ? 'drop over' : 'drop'}
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        if (e.dataTransfer) void filesFromDrop(e.dataTransfer).then(addFiles);
      }}
    >
      <p>Drop files or folders here: PDF (scanned too), Word (.docx), HTML, Markdown, text, and photos or scans of pages (PNG, JPEG, WebP, TIFF).</p>
      <div class="pickers">
        <label class="button">
          Add documents
          <input
            type="file"
            multiple
            aria-label="Add documents"
            accept=".pdf,.docx,.html,.htm,.md,.markdown,.txt,.rst,.png,.jpg,.jpeg,.webp,.tif,.tiff"
            onChange={(e) => {
              const input = e.currentTarget;
              void learnSizes(filesFromInput(input.files))
                .then(addFiles)
                .finally(() => (input.value = ''));
            }}
          />
        </label>
        <label class="button">
          Add a folder
          <input
            type="file"
            multiple
            aria-label="Add a folder"
            {...{ webkitdirectory: true }}
            onClick={(e) => {
              // Where the browser links folders, its folder picker replaces the input's: the folder stays linked.
              if (!canLinkFolders()) return;
              e.preventDefault();
              void pickAndLinkFolder();
            }}
            onChange={(e) => {
              const input = e.currentTarget;
              void learnSizes(filesFromInput(input.files))
                .then(addFiles)
                .finally(() => (input.value = ''));
            }}
          />
        </label>
      </div>
      <LinkedFolders />
      <p role="status" class="progress">
        {progressText(q)}
      </p>
      {activity.value.length > 0 && (
        <ul class="activity" aria-label="Activity">
          {activity.value.map((m, i) => (
            <li key={`${i}-${m.text}`}>
              {m.group?.lines ? (
                <details>
                  <summary>{m.text}</summary>
                  <ul>
                    {m.group.lines.map((line, j) => (
                      <li key={j}>
                        <bdi>{line}</bdi>
                      </li>
                    ))}
                  </ul>
                </details>
              ) : m.endsWith && m.text.endsWith(m.endsWith) ? (
                <>
                  <PrefixIsolated text={m.text.slice(0, -m.endsWith.length)} names={m.path ? [m.path, fileNameOf(m.path)] : []} />
                  <bdi>{m.endsWith}</bdi>
                </>
              ) : (
                <PrefixIsolated text={m.text} names={m.path ? [m.path, fileNameOf(m.path)] : []} />
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
