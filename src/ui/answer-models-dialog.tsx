import { useEffect, useRef } from 'preact/hooks';
import { useModal } from './modal.ts';
import type { AnswerModelEntry } from '../core/library-api.ts';
import { answerModels, answerModelsNote, answerModelsOpen, answerModelStatus, deleteAnswerModel, importAnswerFolder, importAnswerModel, refreshAnswerModels, stopAnswerModel, useAnswerModel } from './answer-models-state.ts';
import { filesFromInput } from './collect-files.ts';
import { formatBytes } from './format.ts';
import { DownloadProgress } from './download-progress.tsx';
import { LoadFailure } from './model-row-state.tsx';

const NO_MODEL = 'Quote the documents (no model)';

function languages(m: AnswerModelEntry): string {
  return m.languages.length ? m.languages.join(', ') : 'languages not stated';
}

function where(m: AnswerModelEntry): string {
  if (m.kind === 'wasm') return "runs on this device's CPU, slower";
  return `runs on the graphics card (WebGPU)${m.vramMB ? `, about ${formatBytes(m.vramMB * 1024 * 1024)} of its memory` : ''}`;
}

/** One answer model: what it is, what it costs, and what can be done with it. */
function AnswerModelRow({ m, busy }: { m: AnswerModelEntry; busy: boolean }) {
  const size = `about ${formatBytes(m.downloadBytes)}`;
  const s = answerModelStatus.value;
  const loading = s?.state === 'loading' && s.model === m.label;
  const failed = s?.state === 'extractive' && s.reason === 'failed' && s.modelId === m.id;
  return (
    <li class="model">
      <p class="model-name">
        <bdi>{m.label}</bdi>
        {m.inUse && <span class="badge"> In use</span>}
        {loading && <span class="loading-badge"> Loading…</span>}
      </p>
      {m.goodFor && <p class="model-good-for">{m.goodFor}</p>}
      {failed && <LoadFailure label={m.label} code={s.code} message={s.message} busy={busy} onRetry={() => void useAnswerModel(m.id, m.label)} importHint="import the model's folder or a .gguf file (below)" />}
      <p class="model-facts">
        {languages(m)} · {where(m)} · {m.cachedBytes ? `${formatBytes(m.cachedBytes)} kept in this browser` : `download ${size}`}
      </p>
      <p class="model-actions">
        {!m.inUse && !loading && !failed && (
          <button type="button" disabled={busy} aria-label={`${m.cachedBytes ? 'Use' : 'Download and use'} ${m.label}`} onClick={() => void useAnswerModel(m.id, m.label)}>
            {m.cachedBytes ? 'Use' : `Download and use (${size})`}
          </button>
        )}
        {(m.inUse || loading) && (
          <button type="button" aria-label={`Stop using ${m.label}`} onClick={() => void stopAnswerModel(m.label)}>
            Stop using
          </button>
        )}
        {m.cachedBytes > 0 && (
          <button type="button" disabled={busy} aria-label={`Delete ${m.label}`} onClick={() => void deleteAnswerModel(m.id, m.label)}>
            Delete
          </button>
        )}
      </p>
    </li>
  );
}

/** Per-file and total progress while an answer model downloads. */
function AnswerDownload() {
  const s = answerModelStatus.value;
  const d = s?.state === 'loading' ? s.download : undefined;
  if (!s || !d) return null;
  return <DownloadProgress model={s.model} download={d} name="Answer model download progress" totalName="Answer model download, total" />;
}

/**
 * The answer-model chooser: the extractive answer (the default), the models that run on the processor
 * (WASM: ONNX and GGUF, and GGUF files imported from disk), and the WebLLM models this device's GPU can
 * run; download only when the person chooses one, with its size; progress; stop using; delete; import
 * a .gguf file; the space used.
 */
export function AnswerModelsDialog() {
  const ref = useRef<HTMLDialogElement>(null);
  const view = answerModels.value;
  const status = answerModelStatus.value;
  const busy = status?.state === 'loading';
  useModal(ref, answerModelsOpen.value);
  // Kept sizes change once a download finishes or fails.
  useEffect(() => {
    if (answerModelsOpen.value) void refreshAnswerModels().catch(() => undefined);
  }, [status?.state]);
  const used = view?.models.reduce((sum, m) => sum + m.cachedBytes, 0) ?? 0;
  const inUse = view?.models.find((m) => m.inUse);
  const wasm = view?.models.filter((m) => m.kind === 'wasm') ?? [];
  const gpu = view?.models.filter((m) => m.kind === 'webllm') ?? [];
  return (
    <dialog ref={ref} aria-label="Answer models" class="models" onClose={() => (answerModelsOpen.value = false)}>
      <header>
        <h2>Who writes the answers</h2>
        <button type="button" onClick={() => (answerModelsOpen.value = false)}>
          Close
        </button>
      </header>
      <p>
        A language model can write answers in sentences, citing your documents. It is downloaded once into this browser (nothing is
        downloaded until you choose one) and runs on this device: your documents never leave it. Questions are answered by quoting
        your documents while a model downloads.
      </p>
      {answerModelsNote.value && (
        <p role="status" class="models-note">
          {answerModelsNote.value}
        </p>
      )}
      <AnswerDownload />
      {view ? (
        <>
          {view.webgpu.note && <p class="hint webgpu-note">{view.webgpu.note}</p>}
          <ul class="models-list" aria-label="Answer models">
            <li class="model">
              <p class="model-name">
                {NO_MODEL}
                {!inUse && <span class="badge"> In use</span>}
              </p>
              <p class="model-facts">The answer quotes the passages that answer the question, word for word: instant, nothing to download.</p>
              {inUse && (
                <p class="model-actions">
                  <button type="button" aria-label={`Use ${NO_MODEL}`} onClick={() => void stopAnswerModel(inUse.label)}>
                    Use
                  </button>
                </p>
              )}
            </li>
            {wasm.map((m) => (
              <AnswerModelRow key={m.id} m={m} busy={busy} />
            ))}
            {gpu.map((m) => (
              <AnswerModelRow key={m.id} m={m} busy={busy} />
            ))}
          </ul>
        </>
      ) : (
        <p>Loading…</p>
      )}
      <p class="model-import">
        <label>
          Import a GGUF model file{' '}
          <input
            type="file"
            accept=".gguf"
            disabled={busy}
            onChange={(e) => {
              const file = e.currentTarget.files?.[0];
              e.currentTarget.value = '';
              if (file) void importAnswerModel(file);
            }}
          />
        </label>
        <span class="hint"> A .gguf file you already have (LM Studio, Ollama and GPT4All keep them): an instruct model of up to 2 GB. It is kept in this browser and runs on the processor; nothing is downloaded.</span>
      </p>
      <p class="model-import">
        <label class="button">
          Import a model folder
          <input
            type="file"
            multiple
            disabled={busy}
            {...{ webkitdirectory: true }}
            onChange={(e) => {
              const files = filesFromInput(e.currentTarget.files);
              e.currentTarget.value = '';
              void importAnswerFolder(files);
            }}
          />
        </label>
        <span class="hint"> A model folder for transformers.js (config.json, tokenizer.json, onnx/), such as one of the models above copied from another computer, or a folder holding one .gguf file.</span>
      </p>
      <p>Space used by answer models: {formatBytes(used)}</p>
    </dialog>
  );
}
