import { useEffect } from 'preact/hooks';
import { AskPanel } from './ask-panel.tsx';
import { DropZone } from './drop-zone.tsx';
import { History } from './history.tsx';
import { formatBytes } from './format.ts';
import { AnswerModelsDialog } from './answer-models-dialog.tsx';
import { ModelsDialog } from './models-dialog.tsx';
import { LibraryPanel } from './library-panel.tsx';
import { SourceDialog } from './source-dialog.tsx';
import { loaded } from './library-state.ts';
import { keepOriginals, setKeepOriginals } from './preferences.ts';
import { startLibrary } from './start-library.ts';
import { storage } from './storage-state.ts';
import { StorageNotices } from './storage-notices.tsx';


/** The skip link moves focus into the question box itself, not just the page to it. */
function skipToQuestion(e: MouseEvent): void {
  const box = document.querySelector<HTMLInputElement>('#questions input[aria-label="Ask a question"]');
  if (!box) return;
  e.preventDefault();
  box.focus();
}

export function App() {
  useEffect(() => {
    void startLibrary();
  }, []);
  const s = storage.value;
  return (
    <>
      <a class="skip" href="#questions" onClick={skipToQuestion}>
        Skip to Ask a question
      </a>
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
      <StorageNotices />
      <main class="layout" aria-busy={!loaded.value}>
        <section class="left" aria-label="Documents">
          <DropZone />
          <LibraryPanel />
        </section>
        <section class="right" id="questions" aria-label="Questions">
          <AskPanel />
          <History />
        </section>
      </main>
      <SourceDialog />
      <ModelsDialog />
      <AnswerModelsDialog />
    </>
  );
}
