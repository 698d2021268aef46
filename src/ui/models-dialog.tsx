import { useEffect, useRef, useState } from 'preact/hooks';
import { useModal } from './modal.ts';
import type { ModelEntry } from '../core/library-api.ts';
import { filesFromDrop, filesFromInput } from './collect-files.ts';
import { formatBytes } from './format.ts';
import { deleteModel, importModel, models, modelsNote, modelsOpen, refreshModels, semantic, setMirror, stopModel, useModel } from './models-state.ts';
import { DownloadProgress } from './download-progress.tsx';
import { LoadFailure } from './model-row-state.tsx';

function languages(m: ModelEntry): string {
  if (m.languages.includes('multilingual')) return 'about 100 languages';
  return m.languages.length ? m.languages.join(', ') : 'languages not stated';
}

/** One model: what it is, what it costs, and what can be done with it. */
function ModelRow({ m, busy }: { m: ModelEntry; busy: boolean }) {
  const size = `${m.approximate ? 'about ' : ''}${formatBytes(m.downloadBytes)}`;
  const s = semantic.value;
  const loading = s.state === 'loading' && s.model === m.label;
  const failed = s.state === 'failed' && s.model === m.label && !m.inUse;
  return (
    <li class="model">
      <p class="model-name">
        <bdi>{m.label}</bdi>
        {m.inUse && <span class="badge"> In use</span>}
        {loading && <span class="loading-badge"> Loading…</span>}
      </p>
      {failed && <LoadFailure label={m.label} code={s.code} message={s.message} busy={busy} onRetry={() => void useModel(m.id, m.label)} />}
      {m.goodFor && <p class="model-good-for">{m.goodFor}</p>}
      <p class="model-facts">
        {languages(m)} · {m.cachedBytes ? `${formatBytes(m.cachedBytes)} kept in this browser` : `download ${size}`}
        {m.vectors > 0 && ` · ${m.vectors.toLocaleString('en')} passages prepared`}
      </p>
      {(m.retrieval || m.dims !== undefined) && (
        <details class="model-figures">
          <summary>Technical details</summary>
          {[m.dims !== undefined ? `${m.dims} dimensions` : undefined, m.retrieval ? `published figure: ${m.retrieval}` : undefined].filter(Boolean).join(' · ')}
        </details>
      )}
      <p class="model-actions">
        {!m.inUse && !failed && (
          <button type="button" disabled={busy} aria-label={`${m.cachedBytes || m.imported ? 'Use' : 'Download and use'} ${m.label}`} onClick={() => void useModel(m.id, m.label)}>
            {m.cachedBytes || m.imported ? 'Use' : `Download and use (${size})`}
          </button>
        )}
        {m.inUse && (
          <button type="button" disabled={busy} aria-label={`Stop using ${m.label}`} onClick={() => void stopModel(m.id, m.label, m.kind)}>
            Stop using
          </button>
        )}
        {(m.cachedBytes > 0 || m.vectors > 0) && (
          <button type="button" disabled={busy} aria-label={`Delete ${m.label}`} onClick={() => void deleteModel(m.id, m.label)}>
            Delete
          </button>
        )}
      </p>
    </li>
  );
}

/** Per-file and total download progress, while a model downloads. */
function Download() {
  const d = semantic.value.state === 'loading' ? semantic.value.download : undefined;
  if (!d) return null;
  return <DownloadProgress model={semantic.value.model} download={d} name="Download progress" totalName="Model download, total" />;
}

/**
 * The model manager: the catalogue with each model's size, languages and published figure; download
 * (only when the person chooses it), use, stop, delete and the space used; a mirror URL for
 * air-gapped sites, and importing a model folder.
 */
export function ModelsDialog() {
  const ref = useRef<HTMLDialogElement>(null);
  const view = models.value;
  const [mirror, setMirrorText] = useState('');
  const [over, setOver] = useState(false);
  const busy = semantic.value.state === 'loading';
  useModal(ref, modelsOpen.value);
  useEffect(() => setMirrorText(view?.settings.mirror ?? ''), [view?.settings.mirror]);
  // Counts of prepared passages and kept files change as a model loads and the library is embedded.
  const state = semantic.value.state;
  useEffect(() => {
    if (modelsOpen.value) void refreshModels().catch(() => undefined);
  }, [state]);
  const used = view?.models.reduce((sum, m) => sum + m.cachedBytes, 0) ?? 0;
  return (
    <dialog ref={ref} aria-label="Semantic search models" class="models" onClose={() => (modelsOpen.value = false)}>
      <header>
        <h2>Semantic search</h2>
        <button type="button" onClick={() => (modelsOpen.value = false)}>
          Close
        </button>
      </header>
      <p>
        Semantic search also finds passages that say what you asked in other words. It needs a model, downloaded once into this browser
        (nothing is downloaded until you choose one). Your documents never leave this device.
      </p>
      {modelsNote.value && (
        <p role="status" class="models-note">
          {modelsNote.value}
        </p>
      )}
      <Download />
      {view ? (
        <>
          <h3>Search by meaning (embedding models)</h3>
          <ul class="models-list" aria-label="Embedding models">
            {view.models
              .filter((m) => m.kind === 'embedding')
              .map((m) => (
                <ModelRow key={m.id} m={m} busy={busy} />
              ))}
          </ul>
          <h3>Reranking (optional)</h3>
          <p class="hint">
            A reranker reads the question together with each of the 40 best passages and puts them in order of relevance: better
            sources, at the cost of a few seconds per question on a processor without WebGPU.
          </p>
          <ul class="models-list" aria-label="Reranking models">
            {view.models
              .filter((m) => m.kind === 'reranker')
              .map((m) => (
                <ModelRow key={m.id} m={m} busy={busy} />
              ))}
          </ul>
        </>
      ) : (
        <p>Loading…</p>
      )}
      <p>Space used by models: {formatBytes(used)}</p>
      <form
        class="mirror"
        onSubmit={(e) => {
          e.preventDefault();
          void setMirror(mirror.trim() || undefined);
        }}
      >
        <label>
          Download models from (a mirror on this app's own site; empty for huggingface.co){' '}
          <input type="url" aria-label="Model mirror address" placeholder="https://huggingface.co" value={mirror} onInput={(e) => setMirrorText(e.currentTarget.value)} />
        </label>{' '}
        <button type="submit">Save address</button>
      </form>
      <p
        class={`model-drop${over ? ' over' : ''}`}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(e) => {
          e.preventDefault();
          setOver(false);
          if (e.dataTransfer) void filesFromDrop(e.dataTransfer).then(importModel);
        }}
      >
        Drop a model folder here (config.json, tokenizer.json, onnx/), or{' '}
        <label class="button">
          Import a model folder
          <input
            type="file"
            multiple
            {...{ webkitdirectory: true }}
            onChange={(e) => {
              const files = filesFromInput(e.currentTarget.files);
              e.currentTarget.value = '';
              void importModel(files);
            }}
          />
        </label>
      </p>
    </dialog>
  );
}
