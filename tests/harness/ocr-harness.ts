/**
 * Test-only page script (built by `vite.harness.config.ts` into `dist-harness/`, never into the app): reads
 * files with the app's own parse worker (`workers/parse.worker.ts`: parse, OCR, chunk), one or several at
 * once, for the OCR benchmark (`bench/ocr.ts`). `window.harness.read(files, workers)` hands the files out
 * to `workers` workers in turn and returns the wall time and the pages read.
 */
import { proxy, wrap } from 'comlink';
import { installErrorTransfer } from '../../src/core/error-transfer.ts';
import type { DocId } from '../../src/core/ids.ts';
import { DEFAULT_CHUNK_OPTIONS } from '../../src/ingest/chunk.ts';
import type { ParseApi } from '../../src/ingest/parse-handler.ts';
import { DEFAULT_READ_LIMITS } from '../../src/ingest/read-limits.ts';

installErrorTransfer();

interface ReadResult {
  ms: number;
  pages: number;
  recognised: number;
  errors: string[];
}

const fromBase64 = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));

async function read(files: Array<{ name: string; base64: string }>, workers: number): Promise<ReadResult> {
  const started = performance.now();
  const queue = files.map((f) => ({ name: f.name, blob: new Blob([fromBase64(f.base64)]) }));
  let pages = 0;
  let recognised = 0;
  const errors: string[] = [];
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      const worker = new Worker(new URL('../../workers/parse.worker.ts', import.meta.url), { type: 'module', name: `parse-${w}` });
      const api = wrap<ParseApi>(worker);
      try {
        for (let file = queue.shift(); file; file = queue.shift()) {
          try {
            const prepared = await api.prepare(
              { name: file.name, folder: '', blob: file.blob, docId: `bench-${file.name}` as DocId, addedAt: 0, chunk: DEFAULT_CHUNK_OPTIONS, limits: DEFAULT_READ_LIMITS },
              proxy(() => undefined),
            );
            pages += prepared.doc.pages ?? 0;
            recognised += (prepared.doc.recognisedPages ?? []).reduce((n, [a, b]) => n + b - a + 1, 0);
          } catch (err) {
            errors.push(`${file.name}: ${err instanceof Error ? err.message : String(err)}`);
          }
        }
      } finally {
        worker.terminate();
      }
    }),
  );
  return { ms: performance.now() - started, pages, recognised, errors };
}

(window as unknown as { harness: unknown }).harness = { read };
document.body.dataset.ready = 'true';
