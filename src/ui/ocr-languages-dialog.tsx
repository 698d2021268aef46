import { useRef } from 'preact/hooks';
import type { OcrLanguageEntry } from '../core/library-api.ts';
import { formatBytes } from './format.ts';
import { useModal } from './modal.ts';
import { addOcrLanguage, importOcrLanguage, ocrLanguageBusy, ocrLanguages, ocrLanguagesNote, ocrLanguagesOpen, removeOcrLanguage } from './ocr-languages-state.ts';

/** "English" or "French, English": the languages scans are read in, in the engine's order. */
export function scanLanguagesLine(): string {
  return (ocrLanguages.value?.readIn ?? ['English']).join(', ');
}

function facts(l: OcrLanguageEntry): string {
  if (l.source === 'built-in') return 'part of the app';
  if (!l.added) return `download ${formatBytes(l.downloadBytes ?? 0)}`;
  return `${l.from ? `from ${l.from} · ` : ''}${formatBytes(l.keptBytes)} kept in this browser`;
}

function LanguageRow({ l, busy }: { l: OcrLanguageEntry; busy: boolean }) {
  const badge = l.source === 'built-in' ? 'Built in' : l.added ? (l.source === 'imported' ? 'Imported' : 'Added') : undefined;
  return (
    <li class="model">
      <p class="model-name">
        <bdi>{l.name}</bdi>
        {badge && <span class="badge"> {badge}</span>}
      </p>
      <p class="model-facts">{facts(l)}</p>
      {l.source !== 'built-in' && (
        <p class="model-actions">
          {l.added ? (
            <button type="button" disabled={busy} aria-label={`Remove ${l.name}`} onClick={() => void removeOcrLanguage(l.code, l.name)}>
              Remove
            </button>
          ) : (
            <button type="button" disabled={busy} aria-label={`Add ${l.name}`} onClick={() => void addOcrLanguage(l.code, l.name)}>
              Add ({formatBytes(l.downloadBytes ?? 0)})
            </button>
          )}
        </p>
      )}
    </li>
  );
}

/**
 * The scan languages setting: English is built in; the offered languages are added (downloaded from this
 * app's site) only when the person chooses; any other Tesseract language is imported from a file.
 */
export function OcrLanguagesDialog() {
  const ref = useRef<HTMLDialogElement>(null);
  useModal(ref, ocrLanguagesOpen.value);
  const view = ocrLanguages.value;
  const busy = ocrLanguageBusy.value;
  return (
    <dialog ref={ref} aria-label="Scan languages" class="models" onClose={() => (ocrLanguagesOpen.value = false)}>
      <header>
        <h2>Scan languages</h2>
        <button type="button" onClick={() => (ocrLanguagesOpen.value = false)}>
          Close
        </button>
      </header>
      <p>
        Text in scanned PDFs and photos is recognised in the languages added here. Add the languages your scans are written in: letters
        such as é, ü or ñ are read correctly only in a language that has them. A language is downloaded from this app's own site only when
        you add it, then works offline. Scans read before a language was added keep their text until you read them again (the Library
        offers it).
      </p>
      {ocrLanguagesNote.value && (
        <p role="status" class="models-note">
          {ocrLanguagesNote.value}
        </p>
      )}
      {busy && <p role="status">{busy}</p>}
      {view ? (
        <>
          <p>Scanned pages are read in: {view.readIn.join(', ')}</p>
          <ul class="models-list" aria-label="Languages for scans">
            {view.languages.map((l) => (
              <LanguageRow key={l.code} l={l} busy={!!busy} />
            ))}
          </ul>
        </>
      ) : (
        <p>Loading…</p>
      )}
      <p>
        Another language: import its Tesseract file (for example <code>pol.traineddata</code> from tessdata_best or tessdata_fast).{' '}
        <label class="button">
          Import a language file
          <input
            type="file"
            accept=".traineddata,.gz"
            disabled={!!busy}
            onChange={(e) => {
              const file = e.currentTarget.files?.[0];
              e.currentTarget.value = '';
              if (file) void importOcrLanguage(file);
            }}
          />
        </label>
      </p>
    </dialog>
  );
}
