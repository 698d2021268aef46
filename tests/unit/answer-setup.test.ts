// The answer-model chooser's logic in the library worker (`models/setup/answer-setup.ts`, `answer-models.ts`),
// in Node with fake-indexeddb: the WASM model downloaded for real from a test hub (the generated tiny
// decoder laid out as the catalogue's Qwen2.5 entry) by the generate worker's code run in-process,
// the files kept in a stand-in Cache; WebLLM through a host whose "engine" is the scripted generator
// (no GPU here; web-llm itself is tested against a mocked engine in webllm-engine.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocQaError } from '../../src/core/errors.ts';
import type { AnswerModelStatus } from '../../src/core/types.ts';
import { createGenerateHandler } from '../../src/models/generator/generate-handler.ts';
import type { WebGpuDevice } from '../../src/models/webllm/webllm-models.ts';
import { AnswerSetup, type GenerateHost, type WebLlmFacts } from '../../src/models/setup/answer-setup.ts';
import { createWebLlmDeps, type ReloadableEngine } from '../../src/models/webllm/webllm-engine.ts';
import type { WebLlmDeps } from '../../src/models/webllm/webllm-generator.ts';
import type { AppConfig, ChatCompletionChunk } from '@mlc-ai/web-llm';
import { createLibrary } from '../../src/library/library.ts';
import { LibraryModels } from '../../src/library/library-models.ts';
import { deleteCachedModel, listCachedModels } from '../../src/models/model-cache.ts';
import { LibraryStore } from '../../src/store/library-store.ts';
import { openLibraryDb } from '../../src/store/schema.ts';
import { SettingsStore } from '../../src/store/settings-store.ts';
import { generateTinyModel } from '../../tools/models/tiny-models.ts';
import { generateTinyGguf } from '../../tools/models/tiny-gguf.ts';
import { FakeCache } from '../support/fake-cache.ts';
import { startHubServer, type HubServer } from '../support/hub-server.ts';

const QWEN = 'qwen2.5-0.5b-instruct';
const QWEN_LABEL = 'Qwen2.5 0.5B Instruct (runs without WebGPU)';
const NO_GPU: WebGpuDevice = { webgpu: false, features: [] };
const F16_GPU: WebGpuDevice = { webgpu: true, features: ['shader-f16'], limits: { maxStorageBufferBindingSize: 2 ** 31 }, deviceMemoryGB: 8 };

let hub: HubServer;
beforeAll(async () => {
  const files = generateTinyModel('tiny-decoder');
  const weights = files.get('onnx/model.onnx')!;
  hub = await startHubServer(new Map([['onnx-community/Qwen2.5-0.5B-Instruct', new Map([...files].filter(([p]) => p !== 'onnx/model.onnx').concat([['onnx/model_quantized.onnx', weights]]))]]));
});
afterAll(() => hub.close());

/**
 * WebLLM as the app runs it: facts read in the library worker (the GPU, the bytes kept) and web-llm's
 * engine in the generate worker's handler, here a mocked `MLCEngine` whose replies come from `reply`.
 * `load` runs inside its reload (`unloaded` resolves when the load is stopped, as web-llm's reload
 * returns once `unload()` aborted its downloads).
 */
function scriptedWebLlm(device: WebGpuDevice, load?: (unloaded: Promise<void>) => Promise<void>, reply: () => string = () => 'The rent is due on the first day of each month [1].') {
  const calls = { loads: [] as string[], unloads: 0, deleted: [] as string[] };
  const facts: WebLlmFacts = {
    device: async () => device,
    cachedBytes: async (m) => (calls.loads.includes(m.id) && !calls.deleted.includes(m.id) ? m.downloadBytes : 0),
  };
  const deps = createWebLlmDeps({
    appConfig: { model_list: [] } as unknown as AppConfig,
    makeEngine: () => {
      let unloaded = () => {};
      const engine: ReloadableEngine = {
        async reload(id) {
          calls.loads.push(id);
          await load?.(new Promise((resolve) => (unloaded = resolve)));
        },
        chat: {
          completions: {
            create: async () =>
              (async function* () {
                yield { id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta: { content: reply() }, finish_reason: null, logprobs: null }] } as ChatCompletionChunk;
              })(),
          },
        },
        interruptGenerate: () => undefined,
        async unload() {
          calls.unloads++;
          unloaded();
        },
      };
      return engine;
    },
    deleteModel: async (id) => void calls.deleted.push(id),
  });
  return { webllm: { facts, deps }, calls };
}

async function setUp(webllm: { facts: WebLlmFacts; deps: WebLlmDeps }, name: string, wrap: (host: GenerateHost) => GenerateHost = (h) => h) {
  const db = await openLibraryDb(`answer-${name}-${Date.now()}`);
  const models = new LibraryModels();
  const library = createLibrary(new LibraryStore(db), () => undefined, { models });
  await library.open();
  await library.startWriting();
  await library.queue.add([{ name: 'lease.md', folder: '', blob: new Blob(['# Lease\n\nThe tenant pays the rent on the first day of each month.\n']) }]);
  await library.processQueue();
  const cache = new FakeCache();
  const settings = new SettingsStore(db);
  const statuses: AnswerModelStatus[] = [];
  let announced = 0;
  const setup = new AnswerSetup({
    models,
    settings,
    host: wrap(createGenerateHandler({ openCache: async () => cache, webllm: webllm.deps })),
    files: { list: () => listCachedModels(cache), delete: (repo) => deleteCachedModel(cache, repo) },
    webllm: webllm.facts,
    announce: () => void announced++,
    onStatus: (s) => statuses.push(s),
  });
  await setup.start();
  return { library, setup, settings, cache, statuses, announced: () => announced };
}

describe('AnswerSetup', () => {
  it('without WebGPU: lists the WASM models with their sizes and no WebLLM model, and says why answers quote', async () => {
    const { setup, library } = await setUp(scriptedWebLlm(NO_GPU).webllm, 'list');
    const view = await setup.list();
    expect(view.webgpu.available).toBe(false);
    expect(view.webgpu.note).toMatch(/^This browser cannot use the graphics card/);
    expect(view.models.map((m) => [m.id, m.kind, m.cachedBytes, m.inUse])).toEqual([
      [QWEN, 'wasm', 0, false],
      ['smollm2-135m-instruct-q4_1', 'wasm', 0, false],
    ]);
    expect(view.models[0]!.downloadBytes).toBeGreaterThan(500_000_000);
    expect(view.models[1]!.downloadBytes).toBe(98_362_432);
    expect(view.status).toEqual({ state: 'extractive', reason: 'no-webgpu' });
    const answer = await library.asking.ask('When is the rent paid?');
    expect(answer.generatedBy).toBeUndefined();
    expect(hub.requestCount()).toBe(0);
  });

  it('with WebGPU: offers the models the device can run (f16 variants with shader-f16, f32 without)', async () => {
    const f16 = await (await setUp(scriptedWebLlm(F16_GPU).webllm, 'gpu16')).setup.list();
    expect(f16.webgpu).toEqual({ available: true });
    const gpu = f16.models.filter((m) => m.kind === 'webllm');
    expect(gpu.length).toBeGreaterThan(0);
    expect(gpu.every((m) => m.id.includes('q4f16'))).toBe(true);
    expect(f16.status).toEqual({ state: 'extractive', reason: 'none' });
    const f32 = await (await setUp(scriptedWebLlm({ ...F16_GPU, features: [] }).webllm, 'gpu32')).setup.list();
    const gpu32 = f32.models.filter((m) => m.kind === 'webllm');
    expect(gpu32.length).toBeGreaterThan(0);
    expect(gpu32.every((m) => m.id.includes('q4f32'))).toBe(true);
  });

  it('downloads the WASM model from the mirror, writes answers with it, stops, and deletes its files', async () => {
    const { setup, library, settings, statuses, announced } = await setUp(scriptedWebLlm(NO_GPU).webllm, 'wasm');
    await settings.put('semantic', { mirror: hub.url });
    hub.resetCounts();
    await setup.use(QWEN);
    expect(announced()).toBe(1);
    expect(hub.requestCount('onnx-community/Qwen2.5-0.5B-Instruct')).toBeGreaterThan(0);
    expect(statuses.some((s) => s.state === 'loading' && s.download !== undefined && s.download.total > 0)).toBe(true);
    expect(setup.status).toEqual({ state: 'ready', model: QWEN_LABEL });
    expect((await library.asking.ask('When is the rent paid?')).generatedBy).toBe(QWEN_LABEL);
    const used = await setup.list();
    expect(used.models[0]).toMatchObject({ inUse: true, cachedBytes: expect.any(Number) });
    expect(used.models[0]!.cachedBytes).toBeGreaterThan(0);

    await setup.stop();
    // The files are kept: choosing nothing is the reason now, not a missing download.
    expect(setup.status).toEqual({ state: 'extractive', reason: 'none' });
    expect((await library.asking.ask('When is the rent paid?')).generatedBy).toBeUndefined();

    await setup.delete(QWEN);
    expect((await setup.list()).models[0]).toMatchObject({ inUse: false, cachedBytes: 0 });
    expect(setup.status).toEqual({ state: 'extractive', reason: 'no-webgpu' });
  });

  it('a model that fails to load leaves answers quoting the documents, with the reason', async () => {
    const { setup, library, settings } = await setUp(scriptedWebLlm(NO_GPU).webllm, 'fail');
    await settings.put('semantic', { mirror: hub.url });
    hub.cut('onnx-community/Qwen2.5-0.5B-Instruct/onnx/model_quantized.onnx');
    try {
      const failure = await setup.use(QWEN).catch((err: unknown) => err);
      expect(failure).toBeInstanceOf(DocQaError);
      expect(setup.status).toMatchObject({ state: 'extractive', reason: 'failed', model: QWEN_LABEL, message: (failure as Error).message, code: (failure as DocQaError).code, modelId: QWEN });
      const answer = await library.asking.ask('When is the rent paid?');
      expect(answer.found).toBe(true);
      expect(answer.generatedBy).toBeUndefined();
      // Nothing stays chosen or "in use": a restart (a reload) does not try it again nor show its error.
      expect((await setup.read()).generator).toBeUndefined();
      expect((await setup.list()).models.find((m) => m.id === QWEN)).toMatchObject({ inUse: false });
      await setup.start();
      expect(setup.status).toMatchObject({ state: 'extractive' });
      expect(setup.status).not.toMatchObject({ reason: 'failed' });
    } finally {
      hub.cut(undefined);
    }
    // Try again, with the connection back: it loads and is in use.
    await setup.use(QWEN);
    expect(setup.status).toEqual({ state: 'ready', model: QWEN_LABEL });
    expect((await setup.list()).models.find((m) => m.id === QWEN)).toMatchObject({ inUse: true });
  });

  it('a WebLLM model: loads in the generate worker, writes answers, unloads on stop, and its files can be deleted', async () => {
    const { webllm, calls } = scriptedWebLlm(F16_GPU);
    const { setup, library } = await setUp(webllm, 'webllm');
    const offered = (await setup.list()).models.find((m) => m.kind === 'webllm')!;
    await setup.use(offered.id);
    expect(calls.loads).toEqual([offered.id]);
    expect(setup.status).toEqual({ state: 'ready', model: offered.label });
    expect((await library.asking.ask('When is the rent paid?')).generatedBy).toBe(offered.label);
    await setup.delete(offered.id);
    expect(calls.unloads).toBe(1);
    expect(calls.deleted).toEqual([offered.id]);
    expect(setup.status).toEqual({ state: 'extractive', reason: 'none' });
    // A model this device cannot run is refused before anything is downloaded.
    await expect(setup.use('Llama-3.2-3B-Instruct-q4f32_1-MLC-not-offered')).rejects.toMatchObject({ code: 'model-unsupported' });
    expect(calls.loads).toEqual([offered.id]);
  });

  it('choosing quotes while a WebLLM model downloads stops the download; questions were answered by quoting meanwhile', async () => {
    let started: () => void = () => {};
    const loading = new Promise<void>((resolve) => (started = resolve));
    const { webllm, calls } = scriptedWebLlm(F16_GPU, (unloaded) => {
      started();
      return unloaded;
    });
    const { setup, library } = await setUp(webllm, 'abort');
    const offered = (await setup.list()).models.find((m) => m.kind === 'webllm')!;
    const choosing = setup.use(offered.id);
    await loading;
    expect(setup.status).toMatchObject({ state: 'loading', model: offered.label });
    expect((await library.asking.ask('When is the rent paid?')).generatedBy).toBeUndefined();
    await setup.stop();
    await choosing;
    expect(setup.status).toEqual({ state: 'extractive', reason: 'none' });
    // web-llm's downloads were ended (its engine unloaded mid-load).
    expect(calls.unloads).toBeGreaterThanOrEqual(1);
  });

  it('a WebLLM model lost while writing (the GPU device was lost): that answer says so, the next ones quote, and the notice says why', async () => {
    const { webllm, calls } = scriptedWebLlm(F16_GPU, undefined, () => {
      throw Object.assign(new Error('Device was lost'), { name: 'DeviceLostError' });
    });
    const { setup, library } = await setUp(webllm, 'lost');
    const offered = (await setup.list()).models.find((m) => m.kind === 'webllm')!;
    await setup.use(offered.id);
    await expect(library.asking.ask('When is the rent paid?')).rejects.toMatchObject({ code: 'gpu-out-of-memory' });
    const lostMessage = `${offered.label} ran out of GPU memory (the device was lost): close other tabs or choose a smaller model`;
    await expect.poll(() => setup.status).toEqual({ state: 'extractive', reason: 'failed', model: offered.label, message: lostMessage });
    expect(calls.unloads).toBe(1);
    const next = await library.asking.ask('When is the rent paid?');
    expect(next.found).toBe(true);
    expect(next.generatedBy).toBeUndefined();
  });

  it('the generate worker stopped while writing (out of memory): that answer says so, the next ones quote, and the notice says why', async () => {
    const stoppedMessage = 'generate worker stopped (out of memory?): load the model again';
    const { webllm } = scriptedWebLlm(F16_GPU);
    let died = false;
    // As the worker's client reports it (`models/host/lazy-worker.ts`): every call fails once the worker is gone.
    const dying = (host: GenerateHost): GenerateHost =>
      Object.assign(Object.create(host) as GenerateHost, {
        generate: (run: number, request: Parameters<GenerateHost['generate']>[1], onPiece: (piece: string) => void) =>
          died ? Promise.reject(new DocQaError('internal', stoppedMessage)) : host.generate(run, request, onPiece),
      });
    const { setup, library } = await setUp(webllm, 'died', dying);
    const offered = (await setup.list()).models.find((m) => m.kind === 'webllm')!;
    await setup.use(offered.id);
    expect((await library.asking.ask('When is the rent paid?')).generatedBy).toBe(offered.label);
    died = true;
    await expect(library.asking.ask('When is the rent paid?')).rejects.toMatchObject({ code: 'internal', message: stoppedMessage });
    await expect.poll(() => setup.status).toEqual({ state: 'extractive', reason: 'failed', model: offered.label, message: stoppedMessage });
    const next = await library.asking.ask('When is the rent paid?');
    expect(next.found).toBe(true);
    expect(next.generatedBy).toBeUndefined();
  });

  it('imports a model folder: refuses one with no chat template or no weights (nothing listed), keeps an ONNX export and writes answers with it, no download', async () => {
    const { setup, library, cache } = await setUp(scriptedWebLlm(NO_GPU).webllm, 'folder');
    const tiny = generateTinyModel('tiny-decoder');
    const folderOf = (files: Map<string, Uint8Array>, root = 'My Decoder') =>
      [...files].map(([path, bytes]) => {
        const parts = `${root}/${path}`.split('/');
        return { name: parts.at(-1)!, folder: parts.slice(0, -1).join('/'), blob: new Blob([bytes as Uint8Array<ArrayBuffer>]) };
      });
    const withoutTemplate = new Map(tiny);
    const tokenizerConfig = JSON.parse(new TextDecoder().decode(tiny.get('tokenizer_config.json')!)) as Record<string, unknown>;
    delete tokenizerConfig.chat_template;
    withoutTemplate.set('tokenizer_config.json', new TextEncoder().encode(JSON.stringify(tokenizerConfig)));
    await expect(setup.importFolder(folderOf(withoutTemplate))).rejects.toThrow(/has no chat template .*base model/);
    const noWeights = new Map([...tiny].filter(([p]) => !p.endsWith('.onnx')));
    await expect(setup.importFolder(folderOf(noWeights))).rejects.toThrow(/has no onnx\/model_quantized\.onnx/);
    expect(cache.entries.size).toBe(0);
    expect((await setup.list()).models.some((m) => m.id.startsWith('onnx:'))).toBe(false);

    hub.resetCounts();
    const imported = await setup.importFolder(folderOf(tiny));
    expect(imported).toEqual({ id: 'onnx:My-Decoder', label: 'My Decoder (imported)' });
    expect(setup.status).toEqual({ state: 'ready', model: 'My Decoder (imported)' });
    expect((await library.asking.ask('When is the rent paid?')).generatedBy).toBe('My Decoder (imported)');
    expect(hub.requestCount()).toBe(0);
    expect((await setup.list()).models.find((m) => m.id === 'onnx:My-Decoder')).toMatchObject({ kind: 'wasm', inUse: true, cachedBytes: expect.any(Number) });
    await setup.delete('onnx:My-Decoder');
    expect((await setup.list()).models.some((m) => m.id === 'onnx:My-Decoder')).toBe(false);
    expect(cache.entries.size).toBe(0);

    // A folder named like a catalogue model's repository, with its weights file, fills that model's files.
    const asQwen = new Map([...tiny].filter(([p]) => p !== 'onnx/model.onnx').concat([['onnx/model_quantized.onnx', tiny.get('onnx/model.onnx')!]]));
    expect(await setup.importFolder(folderOf(asQwen, 'Downloads/Qwen2.5-0.5B-Instruct'))).toEqual({ id: QWEN, label: QWEN_LABEL });
    expect(setup.status).toEqual({ state: 'ready', model: QWEN_LABEL });
    expect(hub.requestCount()).toBe(0);
    expect((await setup.list()).models.filter((m) => m.id === QWEN)).toHaveLength(1);
  });

  it('imports a .gguf file: refuses one that is not GGUF or a base model (nothing kept), keeps and lists a chat model, and deletes it from the list', async () => {
    const { setup, cache } = await setUp(scriptedWebLlm(NO_GPU).webllm, 'gguf');
    const file = (name: string, bytes: Uint8Array<ArrayBuffer>) => new File([bytes], name);
    await expect(setup.importGguf(file('notes.gguf', new TextEncoder().encode('not weights'.repeat(20))))).rejects.toThrow(/^notes\.gguf: not a GGUF file/);
    await expect(setup.importGguf(file('base.gguf', generateTinyGguf({ withoutChatTemplate: true })))).rejects.toThrow(/has no chat template: it is a base model/);
    expect(cache.entries.size).toBe(0);
    // Kept and listed; here (Node) llama.cpp cannot load it, so answers keep quoting, and the status says why.
    await expect(setup.importGguf(file('tiny chat.gguf', generateTinyGguf()))).rejects.toThrow(/runs only in the browser/);
    const listed = (await setup.list()).models.find((m) => m.id === 'gguf:tiny-chat.gguf');
    expect(listed).toMatchObject({ kind: 'wasm', label: 'tiny chat.gguf', downloadBytes: generateTinyGguf().length, cachedBytes: generateTinyGguf().length });
    expect(setup.status).toMatchObject({ state: 'extractive', reason: 'failed', model: 'tiny chat.gguf' });
    await setup.delete('gguf:tiny-chat.gguf');
    expect((await setup.list()).models.some((m) => m.id === 'gguf:tiny-chat.gguf')).toBe(false);
    expect(cache.entries.size).toBe(0);
  });
});
