import { useEffect } from 'preact/hooks';
import { AskPanel } from './ask-panel.tsx';
import { DropZone } from './drop-zone.tsx';
import { LibraryPanel } from './library-panel.tsx';
import { SourceDialog } from './source-dialog.tsx';
import { fatal, keepOriginals, ready, setKeepOriginals, start, storage, waiting } from './state.ts';

function formatBytes(n: number): string {
  if (n < 1024 * 1024) return `${Math.round(n / 1024)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(1)} GB`;
}

export function App() {
  useEffect(() => {
    void start();
  }, []);
  const s = storage.value;
  const alert = fatal.value ?? waiting.value;
  return (
    <>
      <header class="top">
        <h1>DocQA</h1>
        <p class="tagline">Ask your documents. Nothing leaves this device.</p>
        {s && (
          <p class="storage">
            Storage: {formatBytes(s.usage)} used of {formatBytes(s.quota)} available
            {s.persisted ? ' (persistent)' : ' (may be cleared by the browser when space runs low)'}
          </p>
        )}
        <label class="setting">
          <input type="checkbox" checked={keepOriginals.value} onChange={(e) => void setKeepOriginals(e.currentTarget.checked)} /> Keep original files
          <span class="hint"> (to show PDF pages and open the file itself; uses more storage)</span>
        </label>
      </header>
      {alert && (
        <p role="alert" class="fatal">
          {alert}
        </p>
      )}
      <main class="layout" aria-busy={!ready.value}>
        <section class="left" aria-label="Documents">
          <DropZone />
          <LibraryPanel />
        </section>
        <section class="right" aria-label="Questions">
          <AskPanel />
        </section>
      </main>
      <SourceDialog />
    </>
  );
}
