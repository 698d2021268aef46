// The real model download path in Chromium: the embed worker (through its client, on the test-only
// harness page) loads the generated tiny encoder from a hub-layout mirror over HTTP, keeps the files in
// the Cache API, and reuses them with no request and with the mirror stopped. A download cut halfway
// fails with a clear message and keeps nothing of that file; list, delete and folder import.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoadedModel } from '../../src/models/encoder/embed-handler.ts';
import type { LoadProgress, ModelSource } from '../../src/models/encoder/embedder.ts';
import type { CachedModel, ImportResult } from '../../src/models/model-cache.ts';
import { generateTinyModel } from '../../tools/models/tiny-models.ts';
import type { HarnessModel } from '../harness/embed-harness.ts';
import { buildHarness, openHarness, type OpenHarness } from '../support/harness.ts';
import { startHubServer, type HubServer } from '../support/hub-server.ts';

const REPO = 'docqa-test/tiny-encoder';
const MODEL: HarnessModel = { repo: REPO, dims: 32 };
const FILES = generateTinyModel('tiny-encoder');
const TOTAL = [...FILES.values()].reduce((n, b) => n + b.length, 0);

type Failure = { error: { code: string; message: string } };
type Loaded = { loaded: LoadedModel; events: LoadProgress[] };
const failed = (r: unknown): r is Failure => typeof r === 'object' && r !== null && 'error' in r;
function ok<T>(r: T | Failure): T {
  if (failed(r)) throw new Error(`harness call failed: ${r.error.code}: ${r.error.message}`);
  return r;
}

describe('model download in Chromium (embed worker, hub-layout mirror)', () => {
  let hub: HubServer;
  let app: OpenHarness;
  const mirror = (): ModelSource => ({ kind: 'mirror', baseUrl: hub.url });
  const load = (source: ModelSource = mirror(), model = MODEL, threads?: number) =>
    app.page.evaluate(([m, s, t]) => window.harness.load(m, s, 'auto', t), [model, source, threads] as const) as Promise<Loaded | Failure>;
  const listed = async () => ok((await app.page.evaluate(() => window.harness.listCached())) as CachedModel[] | Failure);
  const embedQuery = async (text: string) => ok((await app.page.evaluate((t) => window.harness.embedQuery(t), text)) as number[] | Failure);
  const reloadPage = async () => {
    await app.page.reload();
    await app.page.waitForSelector('body[data-ready="true"]');
  };

  beforeAll(async () => {
    await buildHarness();
    hub = await startHubServer(new Map([[REPO, FILES]]));
    app = await openHarness();
  });
  afterAll(async () => {
    // Nothing but the harness and the mirror was asked for anything (no CDN for ONNX Runtime's WASM).
    const allowed = [app?.origin, new URL(hub.url).origin];
    expect(app?.requests.filter((u) => !allowed.some((o) => o && u.startsWith(o)) && !u.startsWith('blob:') && !u.startsWith('data:'))).toEqual([]);
    await app?.close();
    await hub?.close();
  });

  it('downloads on WASM (with the reason), per-file and total progress reaching 100 %, and keeps every file', async () => {
    expect(await app.page.evaluate(() => window.harness.crossOriginIsolated())).toBe(true);
    const { loaded, events } = ok(await load());
    expect(loaded.device).toBe('wasm');
    // Two threads on a 2-core machine, and the count said where it is more than one.
    expect(loaded.notice).toMatch(/^WASM(?: \([2-4] threads\))?: (this browser has no WebGPU|no WebGPU adapter|the WebGPU adapter is a software fallback)$/);
    expect(loaded.stored.sort()).toEqual([...FILES.keys()].sort());
    for (const [file, bytes] of FILES) {
      const last = events.filter((e) => e.type === 'file' && e.file === file).at(-1);
      expect(last, file).toEqual({ type: 'file', file, loaded: bytes.length, total: bytes.length });
      expect(events).toContainEqual({ type: 'file-done', file });
    }
    const totals = events.filter((e) => e.type === 'total');
    expect(totals.at(-1)).toEqual({ type: 'total', loaded: TOTAL, total: TOTAL });
    expect(events.at(-1)).toEqual({ type: 'ready' });
    const q = await embedQuery('when is the rent due');
    expect(q).toHaveLength(32);
  });

  it('loads again from the cache with zero requests, and in a fresh page with the mirror stopped', async () => {
    hub.resetCounts();
    expect(ok(await load()).loaded.stored).toEqual([]);
    expect(hub.requestCount()).toBe(0);
    await hub.stop();
    try {
      await reloadPage(); // a fresh worker: nothing in memory, only the Cache API
      const { loaded } = ok(await load());
      expect(loaded.stored).toEqual([]);
      const q = await embedQuery('offline question');
      expect(q).toHaveLength(32);
      expect(q.every(Number.isFinite)).toBe(true);
      expect(Math.hypot(...q)).toBeCloseTo(1, 5);
    } finally {
      await hub.start();
    }
  });

  it('a download cut halfway fails with a clear message, keeps nothing of that file, and a retry succeeds', async () => {
    ok(await app.page.evaluate((r) => window.harness.deleteCached(r), REPO));
    hub.cut(`${REPO}/onnx/model.onnx`);
    const cut = await load();
    expect(failed(cut) && cut.error.code).toBe('model-download-failed');
    expect(failed(cut) && cut.error.message).toMatch(/^model files: the download of onnx\/model\.onnx stopped after [\d,]+ of 277,036 bytes \(.+\); nothing partial was kept: load the model again$/);
    const kept = (await listed()).find((m) => m.repo === REPO)?.files.map((f) => f.path) ?? [];
    expect(kept).not.toContain('onnx/model.onnx');
    expect(kept).toContain('config.json'); // whole files downloaded before the cut are kept

    hub.cut(undefined);
    hub.resetCounts();
    const { loaded } = ok(await load());
    expect(loaded.stored).toEqual(['onnx/model.onnx']);
    expect(hub.requests.get(`${REPO}/config.json`) ?? 0).toBe(0);
    expect(await embedQuery('after the retry')).toHaveLength(32);
  });

  it('lists the cached model with its bytes; delete frees them and the next load downloads again', async () => {
    const model = (await listed()).find((m) => m.repo === REPO);
    expect(model?.bytes).toBe(TOTAL);
    expect(model?.files).toContainEqual({ path: 'onnx/model.onnx', bytes: FILES.get('onnx/model.onnx')!.length });
    expect(await app.page.evaluate((r) => window.harness.deleteCached(r), REPO)).toBe(TOTAL);
    expect((await listed()).find((m) => m.repo === REPO)).toBeUndefined();
    hub.resetCounts();
    expect(ok(await load()).loaded.stored).toHaveLength(FILES.size);
    expect(hub.requests.get(`${REPO}/onnx/model.onnx`)).toBeGreaterThanOrEqual(1);
  });

  it('imports a chosen folder, then loads it from the cache alone with the mirror stopped', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'model-folder-'));
    try {
      for (const [path, bytes] of FILES) {
        await mkdir(dirname(join(dir, 'tiny-encoder', path)), { recursive: true });
        await writeFile(join(dir, 'tiny-encoder', path), bytes);
      }
      await writeFile(join(dir, 'tiny-encoder', 'README.md'), '# not needed');
      await app.page.getByLabel('Model folder').setInputFiles(join(dir, 'tiny-encoder'));
      const imported: HarnessModel = { repo: 'someone/imported-encoder', dims: 32 };
      const result = ok((await app.page.evaluate((m) => window.harness.importChosenFolder(m), imported)) as ImportResult | Failure);
      expect(result.bytes).toBe(TOTAL);
      expect(result.skipped).toEqual(['README.md']);
      await hub.stop();
      try {
        await reloadPage();
        const { loaded } = ok(await load({ kind: 'cache' }, imported));
        expect(loaded.stored).toEqual([]);
        expect(await embedQuery('imported model')).toHaveLength(32);
        const missing = await load({ kind: 'cache' }, { repo: 'someone/never-imported', dims: 32 });
        expect(failed(missing) && missing.error).toMatchObject({ code: 'model-files-missing' });
      } finally {
        await hub.start();
      }
      expect(hub.requestCount('someone/imported-encoder')).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('runs ONNX Runtime on WASM threads from the bundled worker (a fresh worker, 2 threads)', async () => {
    await reloadPage();
    const { loaded } = ok(await load(mirror(), MODEL, 2));
    expect(loaded).toMatchObject({ threads: 2, notice: expect.stringMatching(/^WASM \(2 threads\): /) });
    const q = await embedQuery('two threads');
    expect(q.every(Number.isFinite)).toBe(true);
    expect(q).toHaveLength(32);
  });

  it('storage full: the model still loads and works, and says it was not kept for offline use', async () => {
    for (const repo of [REPO, 'someone/imported-encoder']) await app.page.evaluate((r) => window.harness.deleteCached(r), repo);
    const cdp = await app.session.context.newCDPSession(app.page);
    await cdp.send('Storage.overrideQuotaForOrigin', { origin: app.origin, quotaSize: 150_000 });
    try {
      const { loaded } = ok(await load());
      expect(loaded.notKept).toEqual({ code: 'storage-full', message: `model files: ${REPO} could not be kept for offline use: storage full: delete documents or free disk space` });
      expect(loaded.stored).not.toContain('onnx/model.onnx');
      expect(await embedQuery('storage full')).toHaveLength(32);
      // Nothing of the model may be kept at all (ONNX Runtime's 27 MB binary, kept earlier, already fills the quota).
      expect((await listed()).find((m) => m.repo === REPO)?.files.map((f) => f.path) ?? []).not.toContain('onnx/model.onnx');
    } finally {
      await cdp.send('Storage.overrideQuotaForOrigin', { origin: app.origin });
    }
  });
});
