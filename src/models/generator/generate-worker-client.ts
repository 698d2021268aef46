/**
 * The typed client of the generate worker (`workers/generate.worker.ts`, API in `generate-handler.ts`):
 * the model host's client (`models/host/model-worker-client.ts`) with the generator's calls, the port a
 * {@link remoteGenerator} streams through.
 */
import { proxy } from 'comlink';
import type { GeneratorModelEntry } from '../generator-catalogue.ts';
import { ModelWorkerClient } from '../host/model-worker-client.ts';
import type { GenerateApi, LoadedGenerator, RemoteGenerateRequest } from './generate-handler.ts';
import type { GeneratorPort } from './remote-generator.ts';

export function spawnGenerateWorker(): Worker {
  return new Worker(new URL('../../../workers/generate.worker.ts', import.meta.url), { type: 'module', name: 'generate' });
}

export class GenerateWorkerClient extends ModelWorkerClient<GeneratorModelEntry, LoadedGenerator, GenerateApi> implements GeneratorPort {
  constructor(spawn: () => Worker = spawnGenerateWorker) {
    super('generate', spawn);
  }

  countTokens(text: string): Promise<number> {
    return this.call((api) => api.countTokens(text));
  }

  generate(run: number, request: RemoteGenerateRequest, onPiece: (piece: string) => void): Promise<void> {
    return this.call((api) => api.generate(run, request, proxy(onPiece)));
  }

  stop(run: number): Promise<void> {
    return this.call((api) => api.stop(run));
  }
}
