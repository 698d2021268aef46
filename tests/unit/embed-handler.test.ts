// The embed worker's handler in-process (Node, onnxruntime-node) against the hub-layout test server over
// real HTTP, with a Map-backed Cache: download with progress, cached files reused with no request,
// loading with the server stopped, a download cut halfway (clear error, nothing kept, retry works), the
// cache-only source after a folder import, list and delete. The browser test runs the same path in Chromium.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbedHandler, type EmbedApi } from '../../src/models/encoder/embed-handler.ts';
import type { LoadProgress } from '../../src/models/encoder/embedder.ts';
import { localModel } from '../../src/models/catalogue.ts';
import { generateTinyModel } from '../../tools/models/tiny-models.ts';
import { FakeCache } from '../support/fake-cache.ts';
import { startHubServer, type HubServer } from '../support/hub-server.ts';
import { refusal } from '../support/model-assertions.ts';

const REPO = 'docqa-test/tiny-encoder';
const MODEL = localModel({ folder: REPO, dims: 32, pooling: 'mean' });
const FILES = generateTinyModel('tiny-encoder');

let hub: HubServer;
beforeAll(async () => {
  hub = await startHubServer(new Map([[REPO, FILES]]));
});
afterAll(() => hub.close());

const node = async () => ({ inBrowser: false, crossOriginIsolated: false, hardwareConcurrency: 1 });
const handler = (cache: FakeCache) => createEmbedHandler({ fetch: globalThis.fetch, openCache: async () => cache, platform: node });
const fromHub = (api: EmbedApi, events: LoadProgress[] = []) => api.load({ model: MODEL, source: { kind: 'mirror', baseUrl: hub.url } }, (e) => events.push(e));

describe('embed handler (Node, real HTTP)', () => {
  const cache = new FakeCache();
  const api = handler(cache);

  it('downloads with progress, keeps every file, and embeds', async () => {
    hub.resetCounts();
    const events: LoadProgress[] = [];
    const loaded = await fromHub(api, events);
    expect(loaded).toMatchObject({ dims: 32, device: 'cpu' });
    expect(loaded.stored.sort()).toEqual(['config.json', 'onnx/model.onnx', 'tokenizer.json', 'tokenizer_config.json']);
    expect(events.at(-1)).toEqual({ type: 'ready' });
    const json = events.filter((e) => e.type === 'file' && e.file === 'tokenizer.json').at(-1);
    expect(json).toMatchObject({ loaded: FILES.get('tokenizer.json')!.length, total: FILES.get('tokenizer.json')!.length });
    const q = await api.embedQuery('when is the rent due');
    expect(q).toHaveLength(32);
    const batch = await api.embedPassages(['a b c', 'the rent is due'], { batchSize: 2 });
    expect(batch).toMatchObject({ dims: 32, count: 2 });
    expect(batch.data).toHaveLength(64);
    expect(await api.countTokens(['hello world'], 'passage')).toEqual([4]);
    const listed = await api.listCached();
    const total = [...FILES.values()].reduce((n, b) => n + b.length, 0);
    expect(listed).toEqual([expect.objectContaining({ repo: REPO, revision: 'main', bytes: total })]);
  });

  it('loads again with no request, and with the server stopped', async () => {
    hub.resetCounts();
    const again = await fromHub(api);
    expect(again.stored).toEqual([]);
    expect(hub.requestCount()).toBe(0);
    await hub.stop();
    try {
      await fromHub(api);
      expect(Array.from(await api.embedQuery('offline'))).toHaveLength(32);
    } finally {
      await hub.start();
    }
  });

  it('a download cut halfway fails clearly, keeps nothing of that file, and a retry succeeds', async () => {
    await api.deleteCached(REPO);
    hub.cut(`${REPO}/onnx/model.onnx`);
    const err = await refusal(fromHub(api));
    expect(err.code).toBe('model-download-failed');
    expect(err.message).toMatch(/the download of onnx\/model\.onnx stopped after [\d,]+ of 277,036 bytes/);
    const kept = (await api.listCached())[0]?.files.map((f) => f.path) ?? [];
    expect(kept).not.toContain('onnx/model.onnx');
    hub.cut(undefined);
    hub.resetCounts();
    const retried = await fromHub(api);
    expect(retried.stored).toContain('onnx/model.onnx');
    expect(hub.requests.get(`${REPO}/config.json`) ?? 0).toBe(0); // the files kept before the cut are reused
  });

  it('an unreachable mirror says so', async () => {
    const err = await refusal(handler(new FakeCache()).load({ model: MODEL, source: { kind: 'mirror', baseUrl: 'http://127.0.0.1:9/' } }));
    expect(err.code).toBe('model-download-failed');
    expect(err.message).toContain('could not reach 127.0.0.1:9');
  });

  it('imports a folder, then loads from the cache alone; a missing file is named', async () => {
    const fresh = handler(new FakeCache());
    const files = [...FILES].map(([path, bytes]) => ({ path: `tiny-encoder/${path}`, blob: new Blob([bytes.slice()]) }));
    const imported = await fresh.importFiles(MODEL, files);
    expect(imported.files).toHaveLength(4);
    hub.resetCounts();
    const loaded = await fresh.load({ model: MODEL, source: { kind: 'cache' } });
    expect(loaded.stored).toEqual([]);
    expect(hub.requestCount()).toBe(0);
    expect(await fresh.embedQuery('imported')).toHaveLength(32);
    await fresh.deleteCached(REPO);
    const err = await refusal(fresh.load({ model: MODEL, source: { kind: 'cache' } }));
    expect(err.code).toBe('model-files-missing');
    expect(err.message).toContain('model files kept on this device');
  });
});
