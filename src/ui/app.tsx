import { AskPanel } from './ask-panel.tsx';
import { DropZone } from './drop-zone.tsx';
import { History } from './history.tsx';
import { formatBytes } from './format.ts';
import { AnswerModelsDialog } from './answer-models-dialog.tsx';
import { ModelsDialog } from './models-dialog.tsx';
import { OcrLanguagesDialog, scanLanguagesLine } from './ocr-languages-dialog.tsx';
import { openOcrLanguages } from './ocr-languages-state.ts';
import { LibrariesDialog } from './libraries-dialog.tsx';
import { currentLibraryName } from './libraries-state.ts';
import { openLibraries } from './libraries-state.ts';
import { LibraryPanel } from './library-panel.tsx';
import { SourceDialog } from './source-dialog.tsx';
import { loaded } from './library-state.ts';
import { keepOriginals, setKeepOriginals } from './preferences.ts';
import { storage } from './storage-state.ts';
import { StorageNotices } from './storage-notices.tsx';
import { setTheme, theme, THEME_LABELS, type Theme } from './theme.ts';


/** The skip link moves focus into the question box itself, not just the page to it. */
function skipToQuestion(e: MouseEvent): void {
  const box = document.querySelector<HTMLInputElement>('#questions input[aria-label="Ask a question"]');
  if (!box) return;
  e.preventDefault();
  box.focus();
}

export function App() {
  const s = storage.value;
  return (
    <>
      <a class="skip" href="#questions" onClick={skipToQuestion}>
        Skip to Ask a question
      </a>
      <header class="top">
        <div class="top-line">
          <h1>DocQA</h1>
          <p class="tagline">Ask your documents. Nothing leaves this device.</p>
          <p class="current-library">
            Library: <strong><bdi>{currentLibraryName()}</bdi></strong>{' '}
            <button type="button" onClick={openLibraries}>
              Libraries
            </button>
          </p>
        </div>
        <details class="settings">
          <summary>Settings</summary>
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
          <p class="setting">
            Scanned pages are read in: {scanLanguagesLine()}{' '}
            <button type="button" onClick={openOcrLanguages}>
              Scan languages
            </button>
          </p>
          <label class="setting">
            Colours
            <select value={theme.value} onChange={(e) => setTheme(e.currentTarget.value as Theme)}>
              {Object.entries(THEME_LABELS).map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </label>
        </details>
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
      <OcrLanguagesDialog />
      <LibrariesDialog />
    </>
  );
}
