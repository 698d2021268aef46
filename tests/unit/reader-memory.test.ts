import { describe, expect, it } from 'vitest';
import type { DocQaError } from '../../src/core/errors.ts';
import { workerBytes } from '../../src/core/memory.ts';
import type { LibraryEvent } from '../../src/core/types.ts';
import type { PreparedDocument } from '../../src/ingest/prepare-document.ts';
import { createLibrary } from '../../src/library/library.ts';
import { inProcessPreparer, type Preparer } from '../../src/library/preparer.ts';
import { LibraryStore } from '../../src/store/library-store.ts';
import { openLibraryDb } from '../../src/store/schema.ts';

describe('memory of the parse worker', () => {
  it('is read from a measurement: entries attributed to the parse worker script', () => {
    // Shaped like Chromium's answer (page, library worker, parse worker, shared).
    const measurement = {
      bytes: 9_000_000,
      breakdown: [
        { bytes: 450_000, attribution: [{ url: 'http://localhost:4173/', scope: 'Window' }] },
        { bytes: 270_000, attribution: [{ url: 'http://localhost:4173/assets/library.worker-DkSxRuWA.js', scope: 'DedicatedWorkerGlobalScope' }] },
        { bytes: 8_000_000, attribution: [{ url: 'http://localhost:4173/assets/parse.worker-ByHhz1hZ.js', scope: 'DedicatedWorkerGlobalScope' }] },
        { bytes: 280_000, attribution: [] },
      ],
    };
    expect(workerBytes(measurement, 'parse.worker')).toBe(8_000_000);
    expect(workerBytes({ bytes: 0, breakdown: [] }, 'parse.worker')).toBe(0);
  });

  it('past the limit stops the read: the file fails with "too large to read here", keeps its bytes, and the queue goes on', async () => {
    const events: LibraryEvent[] = [];
    const real = inProcessPreparer();
    let stop: ((error: DocQaError) => void) | undefined;
    // A reader that never finishes hog.txt (as a runaway parse would) until it is stopped.
    const preparer: Preparer = {
      prepare: (request, onProgress) =>
        request.name === 'hog.txt' ? new Promise<PreparedDocument>((_, reject) => (stop = reject)) : real.prepare(request, onProgress),
      abort: (error) => stop?.(error),
    };
    const library = createLibrary(new LibraryStore(await openLibraryDb(`memory-${Date.now()}`)), (e) => events.push(e), { preparer, maxReaderBytes: 100 * 2 ** 20 });
    await library.open();
    await library.queue.add([
      { name: 'hog.txt', folder: '', blob: new Blob(['a file whose reading grows without end']) },
      { name: 'fine.md', folder: '', blob: new Blob(['# Fine\n\nThe otter sleeps in the reeds.']) },
    ]);
    const run = library.startWriting();
    await new Promise((resolve) => setTimeout(resolve, 20));
    library.queue.reportReaderMemory(50 * 2 ** 20);
    expect(events.some((e) => e.type === 'file-failed')).toBe(false);
    library.queue.reportReaderMemory(300 * 2 ** 20);
    await run;
    const failed = events.flatMap((e) => (e.type === 'file-failed' ? [e.error.message] : []));
    expect(failed).toEqual(['hog.txt: too large to read here: reading it took 300 MB of memory (the limit is 100 MB). Split it into smaller files, or press Try again to insist']);
    expect(events.flatMap((e) => (e.type === 'file-done' ? [`${e.path}: ${e.outcome}`] : []))).toEqual(['fine.md: indexed']);
    expect((await library.documents.list()).find((i) => i.name === 'hog.txt')).toMatchObject({ kind: 'failed', retriable: true });
  });
});
