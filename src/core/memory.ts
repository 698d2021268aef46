/** The parts of `performance.measureUserAgentSpecificMemory()`'s result used here. */
export interface MemoryMeasurement {
  bytes: number;
  breakdown: ReadonlyArray<{ bytes: number; attribution: ReadonlyArray<{ url?: string; scope?: string }> }>;
}

/**
 * Bytes the browser attributes to workers whose script URL contains `script` (e.g. "parse.worker").
 * An entry shared with other contexts counts whole: the limit is a backstop, not an account.
 */
export function workerBytes(measurement: MemoryMeasurement, script: string): number {
  let total = 0;
  for (const entry of measurement.breakdown) {
    if (entry.attribution.some((a) => a.scope === 'DedicatedWorkerGlobalScope' && a.url?.includes(script))) total += entry.bytes;
  }
  return total;
}
