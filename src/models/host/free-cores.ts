/**
 * The free cores of this device, measured in the browser by the app's CPU-probe workers
 * (`workers/cpu-probe.worker.ts`, see `cpu-probe.ts`): what sizes ONNX Runtime's WASM threads and
 * llama.cpp's. Each model worker measures once, from inside itself.
 */
import { measureCores, type ProbeWorker } from './cpu-probe.ts';

function spawnCpuProbe(): ProbeWorker {
  return new Worker(new URL('../../../workers/cpu-probe.worker.ts', import.meta.url), { type: 'module', name: 'cpu-probe' }) as unknown as ProbeWorker;
}

/** The free cores, with up to `upTo` probe workers (1 when the probe fails). */
export const measureFreeCores = (upTo: number): Promise<number> => measureCores(spawnCpuProbe, upTo);
