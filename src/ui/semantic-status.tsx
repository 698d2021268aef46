import type { EmbeddingEvent } from '../core/types.ts';
import { formatBytes, formatEta } from './format.ts';
import { deviceInWords, failureInWords } from './model-failure.ts';
import { openModels, semantic } from './models-state.ts';

/** One line on what answers are searched with: keywords only, or keywords and meaning (and how far embedding is). */
export function semanticLine(s: EmbeddingEvent): string {
  const count = (n: number) => n.toLocaleString('en');
  switch (s.state) {
    case 'off':
      return 'Keyword search only: semantic search (finding passages by meaning) is not set up.';
    case 'loading': {
      const d = s.download;
      if (d && d.total > 0 && d.loaded < d.total) return `Downloading ${s.model}: ${formatBytes(d.loaded)} of ${formatBytes(d.total)}. Keyword search works meanwhile.`;
      return `Loading ${s.model}… Keyword search works meanwhile.`;
    }
    case 'embedding': {
      const doc = s.doc ? ` (now ${s.doc.path})` : '';
      const eta = s.etaMs !== undefined ? `, ${formatEta(s.etaMs)}` : '';
      return `Preparing semantic search: ${count(s.done)} of ${count(s.total)} passages${doc}${eta}. Passages not ready yet are found by keywords.`;
    }
    case 'ready':
      return `Semantic search on (${s.model}): ${count(s.done)} passages.${s.device ? ` ${deviceInWords(s.device)}` : ''}`;
    case 'failed':
      return `Semantic search could not start${s.model ? ` with ${s.model}` : ''}: ${failureInWords(s.code)} Search works by keywords meanwhile.`;
  }
}

/** The line, with the reranker in use named at the end. */
export function statusLine(s: EmbeddingEvent): string {
  const line = semanticLine(s);
  return s.reranker && s.state !== 'loading' ? `${line} Reranked by ${s.reranker}.` : line;
}

/** The status line under the question box, with the button that opens the model manager. */
export function SemanticStatus() {
  const s = semantic.value;
  return (
    <p class={`semantic-status ${s.state}`} role="status">
      <span>{statusLine(s)}</span>{' '}
      <button type="button" class="link" onClick={openModels}>
        {s.state === 'off' ? 'Set up semantic search' : 'Semantic search models'}
      </button>
    </p>
  );
}
