import { asChunkId, asDocId } from '../../src/core/ids.ts';
import type { Passage } from '../../src/core/types.ts';

/** A retrieved passage for generate tests: `window` of block `block` of `docName`, starting at `windowStart`. */
export function makePassage(window: string, options: Partial<Omit<Passage, 'window'>> & { docName?: string } = {}): Passage {
  const docName = options.docName ?? 'lease.md';
  const windowStart = options.windowStart ?? 0;
  return {
    chunkId: asChunkId(`c-${docName}-${options.block ?? 0}-${windowStart}`),
    score: 0.03,
    ranks: [],
    why: '',
    docId: asDocId(`d-${docName}`),
    docName,
    docPath: docName,
    docType: 'markdown',
    block: 0,
    label: 'Payment',
    windowStart,
    hitStart: 0,
    hitEnd: window.length,
    ...options,
    window,
  };
}
