// The client side of the model host, over a MessageChannel standing in for the worker: progress comes
// back through the callback, chosen files cross as plain data with their folder paths, and a worker that
// dies fails the call in flight with the words the restart logic looks for, after which the next call
// starts a fresh worker.
import { expose } from 'comlink';
import { describe, expect, it } from 'vitest';
import { asModelId } from '../../src/core/ids.ts';
import { ModelWorkerClient } from '../../src/models/host/model-worker-client.ts';
import { isWorkerRestart } from '../../src/models/host/model-loading.ts';
import type { HostedModel, LoadedModel, LoadProgress, ModelHostApi } from '../../src/models/host/protocol.ts';

const MODEL: HostedModel = { id: asModelId('fake'), label: 'Fake', repo: 'fake/model', revision: 'main', files: [{ path: 'config.json', bytes: 2, approximate: false }] };

const LOADED: LoadedModel = { modelId: MODEL.id, device: 'cpu', threads: 1, notice: 'CPU (onnxruntime-node)', stored: [], loadMs: 1 };

/** A worker's API that never answers `unload` (so a death can come while it is in flight). */
function fakeApi(): ModelHostApi<HostedModel> {
  return {
    async load(_request, onProgress) {
      await onProgress?.({ type: 'file', file: 'config.json', loaded: 1, total: 2 });
      await onProgress?.({ type: 'ready' });
      return LOADED;
    },
    stopLoading: async () => undefined,
    unload: () => new Promise<void>(() => {}),
    takeDeviceNotice: async () => undefined,
    listCached: async () => [],
    deleteCached: async () => 0,
    importFiles: async (model, files) => ({ repo: model.repo, revision: model.revision, files: files.map((f) => ({ path: f.path, bytes: f.blob.size })), bytes: 0, skipped: [] }),
  };
}

/** A MessagePort with the two Worker methods the client uses, and a way to make it die. */
function fakeWorker(): Worker & { die(): void } {
  const { port1, port2 } = new MessageChannel();
  expose(fakeApi(), port1);
  return Object.assign(port2, {
    terminate: () => port2.close(),
    die: () => port2.dispatchEvent(Object.assign(new Event('error', { cancelable: true }), { message: 'out of memory' })),
  }) as unknown as Worker & { die(): void };
}

describe('model worker client', () => {
  it('loads with progress through the callback, and sends chosen files with their folder paths', async () => {
    const client = new ModelWorkerClient<HostedModel, LoadedModel, ModelHostApi<HostedModel>>('fake', fakeWorker);
    const events: LoadProgress[] = [];
    expect(await client.load({ model: MODEL, source: { kind: 'hub' } }, (e) => events.push(e))).toEqual(LOADED);
    expect(events).toEqual([{ type: 'file', file: 'config.json', loaded: 1, total: 2 }, { type: 'ready' }]);
    const chosen = new File(['{}'], 'config.json');
    Object.defineProperty(chosen, 'webkitRelativePath', { value: 'my-model/config.json' });
    const result = await client.importFiles(MODEL, [chosen, { path: 'my-model/tokenizer.json', blob: new Blob(['{}']) }]);
    expect(result.files).toEqual([
      { path: 'my-model/config.json', bytes: 2 },
      { path: 'my-model/tokenizer.json', bytes: 2 },
    ]);
    client.terminate();
  });

  it('drops a progress report that arrives after the load settled (it crosses on a port of its own)', async () => {
    let late: Promise<unknown> | undefined;
    const worker = () => {
      const { port1, port2 } = new MessageChannel();
      expose(
        {
          ...fakeApi(),
          async load(_request: unknown, onProgress?: (event: LoadProgress) => unknown) {
            // Sent after the reply, as a report queued on the proxy's port can be delivered.
            late = new Promise((resolve) => setTimeout(() => resolve(onProgress?.({ type: 'file', file: 'config.json', loaded: 1, total: 2 })), 20));
            return LOADED;
          },
        },
        port1,
      );
      return Object.assign(port2, { terminate: () => port2.close() }) as unknown as Worker;
    };
    const client = new ModelWorkerClient<HostedModel, LoadedModel, ModelHostApi<HostedModel>>('fake', worker);
    const events: LoadProgress[] = [];
    expect(await client.load({ model: MODEL, source: { kind: 'hub' } }, (e) => events.push(e))).toEqual(LOADED);
    await late;
    expect(events).toEqual([]);
    client.terminate();
  });

  it('fails the call in flight when its worker dies, and starts a fresh worker for the next call', async () => {
    const started: Array<ReturnType<typeof fakeWorker>> = [];
    const client = new ModelWorkerClient<HostedModel, LoadedModel, ModelHostApi<HostedModel>>('fake', () => {
      const worker = fakeWorker();
      started.push(worker);
      return worker;
    });
    const inFlight = client.unload().catch((err: unknown) => err);
    await new Promise((resolve) => setTimeout(resolve, 10));
    started[0]!.die();
    const error = await inFlight;
    expect(error).toMatchObject({ code: 'internal', message: 'fake worker stopped (out of memory): load the model again' });
    expect(isWorkerRestart(error)).toBe(true);
    expect(await client.load({ model: MODEL, source: { kind: 'hub' } })).toEqual(LOADED);
    expect(started).toHaveLength(2);
    client.terminate();
  });
});
