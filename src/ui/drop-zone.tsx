import { useState } from 'preact/hooks';
import { filesFromDrop, filesFromInput } from './collect-files.ts';
import { fileNameOf, PrefixIsolated } from './isolate.tsx';
import { activity, addFiles, queue } from './state.ts';

function formatEta(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 60 ? `about ${s} s left` : `about ${Math.round(s / 60)} min left`;
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
      <p>Drop files or folders here: PDF, Word (.docx), HTML, Markdown, text.</p>
      <div class="pickers">
        <label class="button">
          Add documents
          <input
            type="file"
            multiple
            aria-label="Add documents"
            accept=".pdf,.docx,.html,.htm,.md,.markdown,.txt"
            onChange={(e) => {
              const input = e.currentTarget;
              void addFiles(filesFromInput(input.files)).finally(() => (input.value = ''));
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
            onChange={(e) => {
              const input = e.currentTarget;
              void addFiles(filesFromInput(input.files)).finally(() => (input.value = ''));
            }}
          />
        </label>
      </div>
      <p role="status" class="progress">
        {q ? `Indexing: ${q.done} of ${q.total} files done${q.etaMs !== undefined ? `, ${formatEta(q.etaMs)}` : ''}` : 'Ready'}
      </p>
      {activity.value.length > 0 && (
        <ul class="activity" aria-label="Activity">
          {activity.value.map((m, i) => (
            <li key={`${i}-${m.text}`}>
              <PrefixIsolated text={m.text} names={m.path ? [m.path, fileNameOf(m.path)] : []} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
