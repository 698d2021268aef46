import { useRef, useState } from 'preact/hooks';
import type { LibraryEntryView } from '../core/library-api.ts';
import { openLibrary } from './current-library.ts';
import { createLibrary, deleteLibrary, libraries, librariesNote, librariesOpen, renameLibrary } from './libraries-state.ts';
import { useModal } from './modal.ts';
import { cancelLibraryFile, exportLibraryFile, importLibraryFile, lastImported, libraryFileBusy, libraryFileNote, progressLine } from './library-file-state.ts';


function LibraryRow({ l, only }: { l: LibraryEntryView; only: boolean }) {
  const [renaming, setRenaming] = useState(false);
  const [name, setName] = useState(l.name);
  const [confirming, setConfirming] = useState(false);
  return (
    <li class="model">
      <p class="model-name">
        <bdi>{l.name}</bdi>
        {l.current && <span class="badge"> Open in this tab</span>}
      </p>
      {renaming ? (
        <form
          class="model-actions"
          onSubmit={(e) => {
            e.preventDefault();
            void renameLibrary(l.id, name).then((ok) => ok && setRenaming(false));
          }}
        >
          <input aria-label={`New name for ${l.name}`} value={name} maxLength={80} onInput={(e) => setName(e.currentTarget.value)} />
          <button type="submit">Save name</button>
          <button type="button" onClick={() => setRenaming(false)}>
            Cancel
          </button>
        </form>
      ) : confirming ? (
        <p class="model-actions" role="group" aria-label={`Delete ${l.name}?`}>
          Delete "<bdi>{l.name}</bdi>" with all its documents, passages and conversations?{' '}
          <button type="button" aria-label={`Yes, delete ${l.name}`} onClick={() => void deleteLibrary(l.id, l.name).then(() => setConfirming(false))}>
            Delete
          </button>
          <button type="button" onClick={() => setConfirming(false)}>
            Keep it
          </button>
        </p>
      ) : (
        <p class="model-actions">
          {!l.current && (
            <button type="button" aria-label={`Open ${l.name}`} onClick={() => openLibrary(l.id)}>
              Open
            </button>
          )}
          <button type="button" aria-label={`Rename ${l.name}`} onClick={() => (setName(l.name), setRenaming(true))}>
            Rename
          </button>
          {!l.current && !only && (
            <button type="button" aria-label={`Delete ${l.name}`} onClick={() => setConfirming(true)}>
              Delete
            </button>
          )}
        </p>
      )}
    </li>
  );
}

/** Several libraries: each with its own documents, index, vectors, conversations and model. */
export function LibrariesDialog() {
  const ref = useRef<HTMLDialogElement>(null);
  const [name, setName] = useState('');
  useModal(ref, librariesOpen.value);
  const list = libraries.value;
  return (
    <dialog ref={ref} aria-label="Libraries" class="models" onClose={() => (librariesOpen.value = false)}>
      <header>
        <h2>Libraries</h2>
        <button type="button" onClick={() => (librariesOpen.value = false)}>
          Close
        </button>
      </header>
      <p>
        Keep separate collections apart (a case, a course, a project): each library has its own documents, conversations and search
        model. Models and scan languages are downloaded once for all of them.
      </p>
      {librariesNote.value && (
        <p role="status" class="models-note">
          {librariesNote.value}
        </p>
      )}
      {list ? (
        <ul class="models-list" aria-label="Libraries">
          {list.map((l) => (
            <LibraryRow key={l.id} l={l} only={list.length === 1} />
          ))}
        </ul>
      ) : (
        <p>Loading…</p>
      )}
      <form
        class="model-actions"
        onSubmit={(e) => {
          e.preventDefault();
          void createLibrary(name).then((ok) => ok && setName(''));
        }}
      >
        <label>
          New library <input aria-label="New library name" value={name} maxLength={80} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <button type="submit">Create and open</button>
      </form>
      <LibraryFile />
    </dialog>
  );
}

/** Export this library to one file, or import one as a new library: to move it to another browser or keep a backup. */
function LibraryFile() {
  const [originals, setOriginals] = useState(false);
  const busy = libraryFileBusy.value;
  const imported = lastImported.value;
  return (
    <section aria-label="Library file">
      <h3>Move or back up</h3>
      <p>
        A library file holds this library's documents, passages, search vectors and conversations, to open in another browser or on another device, or to
        keep as a backup. Importing one creates a new library; nothing you have is changed.
      </p>
      {busy ? (
        <p role="status" class="model-actions">
          {progressLine(busy)}{' '}
          <progress max={busy.progress?.total || 1} value={busy.progress?.done ?? 0} aria-label={busy.kind === 'export' ? 'Export progress' : 'Import progress'} />{' '}
          <button type="button" onClick={cancelLibraryFile}>
            Cancel
          </button>
        </p>
      ) : (
        libraryFileNote.value && (
          <p role="status" class="models-note">
            {libraryFileNote.value}
            {imported && ' '}
            {imported && (
              <button type="button" aria-label={`Open ${imported.library.name}`} onClick={() => openLibrary(imported.library.id)}>
                Open it
              </button>
            )}
          </p>
        )
      )}
      <p class="model-actions">
        <label>
          <input type="checkbox" checked={originals} disabled={!!busy} onChange={(e) => setOriginals(e.currentTarget.checked)} /> Include original files (where kept)
        </label>{' '}
        <button type="button" disabled={!!busy} onClick={() => void exportLibraryFile(originals)}>
          Export this library
        </button>{' '}
        <label class="button">
          Import a library
          <input
            type="file"
            accept=".zip,application/zip"
            disabled={!!busy}
            onChange={(e) => {
              const file = e.currentTarget.files?.[0];
              e.currentTarget.value = '';
              if (file) void importLibraryFile(file);
            }}
          />
        </label>
      </p>
    </section>
  );
}
