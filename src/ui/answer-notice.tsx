import { useEffect } from 'preact/hooks';
import type { AnswerModelStatus } from '../core/types.ts';
import { answerModelStatus, openAnswerModels, refreshAnswerModels } from './answer-models-state.ts';
import { formatBytes } from './format.ts';
import { failureInWords } from './model-failure.ts';
import { ready } from './storage-state.ts';

/** One line on who writes the answers: a model, or the documents quoted, and why. */
export function answerNoticeLine(s: AnswerModelStatus): string {
  switch (s.state) {
    case 'ready':
      return `Answers are written by ${s.model}, citing your documents.`;
    case 'loading': {
      const d = s.download;
      if (d && d.total > 0 && d.loaded < d.total) return `Answers quote your documents while ${s.model} downloads: ${formatBytes(d.loaded)} of ${formatBytes(d.total)}.`;
      return `Answers quote your documents while ${s.model} loads.`;
    }
    case 'extractive':
      if (s.reason === 'failed') return `Answers quote your documents: ${s.model ?? 'the answer model'} could not be loaded. ${failureInWords(s.code, 'import the model from a folder in the answer models')}`;
      if (s.reason === 'no-webgpu') return 'Answers quote your documents: this browser cannot use the graphics card, and no answer model that runs on the processor is downloaded.';
      return 'Answers quote your documents: no model is chosen to write them.';
  }
}

/**
 * The line near the Answer area saying who writes answers (once, not with every answer), with the
 * button that opens the answer-model chooser.
 */
export function AnswerNotice() {
  const s = answerModelStatus.value;
  // The worker announces the status as it starts; a page that missed it asks once the library is ready.
  useEffect(() => {
    if (ready.value && !answerModelStatus.value) void refreshAnswerModels().catch(() => undefined);
  }, [ready.value]);
  if (!s) return null;
  return (
    <p class={`answer-notice ${s.state}`} role="status">
      <span>{answerNoticeLine(s)}</span>{' '}
      <button type="button" class="link" onClick={openAnswerModels}>
        {s.state === 'ready' ? 'Answer model' : 'Choose an answer model'}
      </button>
    </p>
  );
}
