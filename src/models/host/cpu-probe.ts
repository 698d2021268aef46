/**
 * How many cores this device gives the app now, measured rather than read from
 * `navigator.hardwareConcurrency`. The two differ in containers (a CPU quota of 2 on a 16-core host
 * reports 16), on busy machines and on phones whose big cores are few: and llama.cpp's threads spin at
 * every barrier, so more threads than free cores does not slow it a little, it stalls it (measured on a
 * 2-core machine: SmolLM2-135M answered in 30 s on 1 thread, 54 s on 2, and had written nothing after
 * 120 s on 4). The probe runs the same fixed work on one worker alone, then on `k` workers at once: on `c`
 * free cores the `k` take about `k / c` times as long as the one alone did.
 *
 * Pure: the workers are spawned by the caller (`workers/cpu-probe.worker.ts` runs {@link spin}).
 */

/** The end of a probe worker the caller spawns: it runs {@link spin} on each number it is sent. */
export interface ProbeWorker {
  postMessage(iterations: number): void;
  onmessage: ((event: { data: ProbeReply }) => void) | null;
  onerror: ((event: unknown) => void) | null;
  terminate(): void;
}

/** A probe worker's reply: the milliseconds its {@link spin} took on its own clock (only to size the work: the caller times the batches), and the result. */
export interface ProbeReply {
  ms: number;
  hash: number;
}

/** Integer work the JIT cannot drop (FNV-style hash of the counter): the probe's fixed unit of work. */
export function spin(iterations: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < iterations; i++) hash = Math.imul(hash ^ i, 16777619);
  return hash >>> 0;
}

/**
 * Cores from the probe's times: `aloneMs` of the work on one worker, `togetherMs` from handing the same
 * work to `k` workers at once to the last one's reply. Between 1 and `k`. The batch's wall time, not each
 * worker's own: on fewer cores than workers, some run while others wait, and only the whole batch shows it.
 *
 * @example
 * coresFrom(20, 4, 40) // → 2: four workers' work took twice one's, so two cores ran them
 */
export function coresFrom(aloneMs: number, k: number, togetherMs: number): number {
  if (!(k >= 1) || !(aloneMs > 0)) return 1;
  if (!(togetherMs > 0)) return k;
  return Math.min(k, Math.max(1, (k * aloneMs) / togetherMs));
}

export interface MeasureCoresOptions {
  /** How long the work takes on one worker alone, about (milliseconds). Default 25. */
  targetMs?: number;
  /** Most workers started. Default 8 (llama.cpp is given at most 4 threads). */
  maxWorkers?: number;
  /** Gives up after this long and answers 1 (milliseconds). Default 5,000. */
  timeoutMs?: number;
  /** The clock the batches are timed on (milliseconds). Default `performance.now`. */
  now?: () => number;
}

/**
 * Measures the free cores with up to `upTo` workers from `spawn` (see the module comment). A probe that
 * fails (a worker that does not start, or no reply within `timeoutMs`) answers 1: too few threads only
 * slows llama.cpp, too many stalls it.
 *
 * @example
 * const cores = await measureCores(() => new Worker(probeUrl, { type: 'module' }), navigator.hardwareConcurrency);
 */
export async function measureCores(spawn: () => ProbeWorker, upTo: number, options: MeasureCoresOptions = {}): Promise<number> {
  const k = Math.max(1, Math.min(Math.floor(upTo) || 1, options.maxWorkers ?? 8));
  if (k === 1) return 1;
  const targetMs = options.targetMs ?? 25;
  const workers: ProbeWorker[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('cpu probe: no reply in time')), options.timeoutMs ?? 5000);
  });
  const run = (worker: ProbeWorker, iterations: number) =>
    new Promise<number>((resolve, reject) => {
      worker.onmessage = (event) => resolve(event.data.ms);
      worker.onerror = (event) => reject(new Error(`cpu probe: a worker failed (${String((event as { message?: string })?.message ?? event)})`));
      worker.postMessage(iterations);
    });
  try {
    for (let i = 0; i < k; i++) workers.push(spawn());
    const measure = async () => {
      const first = workers[0]!;
      // Find the work that takes about targetMs alone; every worker then runs it once to warm its JIT.
      let iterations = 1 << 16;
      for (let round = 0; round < 24; round++) {
        const ms = await run(first, iterations);
        if (ms >= targetMs) break;
        iterations = Math.min(1 << 30, Math.ceil(iterations * Math.min(16, Math.max(2, targetMs / Math.max(ms, 0.05)))));
      }
      await Promise.all(workers.map((w) => run(w, iterations)));
      // The quicker of two runs alone (a run slowed by something else would count cores that are not there).
      const now = options.now ?? (() => performance.now());
      const timed = async (batch: ProbeWorker[]) => {
        const t0 = now();
        await Promise.all(batch.map((w) => run(w, iterations)));
        return now() - t0;
      };
      const alone = Math.min(await timed([first]), await timed([first]));
      // And the slower of two runs together: too many cores counted costs more than too few.
      return coresFrom(alone, k, Math.max(await timed(workers), await timed(workers)));
    };
    return await Promise.race([measure(), timeout]);
  } catch (err) {
    console.warn('cpu probe failed; llama.cpp gets one thread', err);
    return 1;
  } finally {
    clearTimeout(timer);
    for (const w of workers) w.terminate();
  }
}

/**
 * llama.cpp's threads on `cores` measured free cores (wllama's own rule, half the cores, at most 4, on
 * the measured count rather than the reported one); 1 without cross-origin isolation or the
 * multi-thread build.
 *
 * @example
 * llamaThreads(true, 7.6) // → 4
 * llamaThreads(true, 2.1) // → 1
 */
export function llamaThreads(canThread: boolean, cores: number): number {
  if (!canThread) return 1;
  return Math.max(1, Math.min(4, Math.floor(Math.round(cores) / 2)));
}
