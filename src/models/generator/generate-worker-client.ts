/** The typed client of the generate worker (`workers/generate.worker.ts`, API in `generate-handler.ts`). */
import { proxy } from 'comlink';
import { LazyWorker } from '../host/lazy-worker.ts';
import type { LoadProgress } from '../model-source.ts';
import type { GenerateApi, GeneratorLoadRequest, LoadedGenerator, RemoteGenerateRequest } from './generate-handler.ts';
import type { GeneratorPort } from './remote-generator.ts';

export function spawnGenerateWorker(): Worker {
  return new Worker(new URL('../../../workers/generate.worker.ts', import.meta.url), { type: 'module', name: 'generate' });
}

export class GenerateWorkerClient implements GeneratorPort {
  private readonly worker: LazyWorker<GenerateApi>;

  constructor(spawn: () => Worker = spawnGenerateWorker) {
    this.worker = new LazyWorker<GenerateApi>('generate', spawn);
  }

  load(request: GeneratorLoadRequest, onProgress?: (event: LoadProgress) => void): Promise<LoadedGenerator> {
    return this.worker.call((api) => api.load(request, onProgress ? proxy(onProgress) : undefined));
  }

  countTokens(text: string): Promise<number> {
    return this.worker.call((api) => api.countTokens(text));
  }

  generate(run: number, request: RemoteGenerateRequest, onPiece: (piece: string) => void): Promise<void> {
    return this.worker.call((api) => api.generate(run, request, proxy(onPiece)));
  }

  stop(run: number): Promise<void> {
    return this.worker.call((api) => api.stop(run));
  }

  unload(): Promise<void> {
    return this.worker.call((api) => api.unload());
  }
}
