import { workerBytes, type MemoryMeasurement } from '../core/memory.ts';
import type { LibraryClient } from './library-client.ts';

/** How often the parse worker's memory is measured while files are being read. */
const EVERY_MS = 5000;

type Measurable = Performance & { measureUserAgentSpecificMemory?: () => Promise<MemoryMeasurement> };

/**
 * Measures the parse worker's memory while files are being read, where the browser can (Chromium, when
 * cross-origin isolated; only a page may measure, not a worker), and reports it to the library worker,
 * which stops a read that grows past its limit. Elsewhere the size caps and the time watchdog still hold.
 */
export function watchReaderMemory(api: LibraryClient, busy: () => boolean): void {
  const perf = performance as Measurable;
  if (!globalThis.crossOriginIsolated || typeof perf.measureUserAgentSpecificMemory !== 'function') return;
  const tick = async () => {
    try {
      if (busy()) await api.queue.reportReaderMemory(workerBytes(await perf.measureUserAgentSpecificMemory!(), 'parse.worker'));
    } catch (err) {
      // A measurement can be refused (the page is in the background, say): the next one may work.
      console.warn('memory measurement failed', err);
    }
    setTimeout(() => void tick(), EVERY_MS);
  };
  setTimeout(() => void tick(), EVERY_MS);
}
