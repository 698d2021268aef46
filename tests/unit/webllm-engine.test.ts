// WebLLM as a runtime of the one model host, in the generate worker's handler run in-process: web-llm's
// engine is a mocked `MLCEngine` (no GPU here, as web-llm's own tests do), made by the app's
// `createWebLlmDeps`. Checks what a person notices: the download's progress, the model on WebGPU with
// nothing written to the app's model cache (web-llm keeps its own files), answers streamed and stopped,
// a load stopped midway (web-llm's downloads end, the partial files are deleted, no model stays loaded),
// web-llm's failures in plain words, and Delete reaching web-llm's caches.
import { describe, expect, it } from 'vitest';
import type { AppConfig, ChatCompletionChunk, ChatCompletionRequestStreaming, InitProgressReport } from '@mlc-ai/web-llm';
import { createGenerateHandler, type GenerateApi } from '../../src/models/generator/generate-handler.ts';
import type { LoadProgress } from '../../src/models/model-source.ts';
import { createWebLlmDeps, type ReloadableEngine } from '../../src/models/webllm/webllm-engine.ts';
import { webLlmEntry, webLlmRepo } from '../../src/models/webllm/webllm-entry.ts';
import type { WebLlmModel } from '../../src/models/webllm/webllm-models.ts';
import { FakeCache } from '../support/fake-cache.ts';

const MODEL: WebLlmModel = {
  id: 'Qwen2.5-1.5B-Instruct-q4f32_1-MLC',
  label: 'Qwen2.5 1.5B Instruct (4-bit)',
  contextTokens: 4096,
  vramMB: 1888,
  downloadBytes: 1000 * 2 ** 20,
  languages: ['en', 'zh'],
  quantization: 'q4f32_1',
  f32: true,
  lowResource: false,
};

const FIRST_VISIT = [
  'Start to fetch params',
  'Fetching param cache[1/2]: 500MB fetched. 50% completed, 1 secs elapsed.',
  'Fetching param cache[2/2]: 1000MB fetched. 100% completed, 2 secs elapsed.',
  'Loading model from cache[2/2]: 1000MB loaded. 100% completed, 3 secs elapsed.',
  'Finish loading on WebGPU - test',
];

const fraction = (text: string) => Number(/(\d+)% completed/.exec(text)?.[1] ?? 0) / 100;

/** web-llm's engine as the app uses it: reload with progress reports, streamed chunks, interrupt, unload. */
class MockEngine implements ReloadableEngine {
  readonly reloads: string[] = [];
  readonly requests: ChatCompletionRequestStreaming[] = [];
  unloads = 0;
  interrupts = 0;
  chunks: string[] = [];
  /** Set: the stream throws this after its pieces. */
  failWith: unknown;
  private unloaded: () => void = () => {};

  constructor(
    private readonly report: (r: InitProgressReport) => void,
    private readonly onReload: (engine: MockEngine, unloaded: Promise<void>) => Promise<void>,
  ) {}

  progress(text: string): void {
    this.report({ progress: fraction(text), timeElapsed: 0, text });
  }

  async reload(modelId: string): Promise<void> {
    this.reloads.push(modelId);
    // As web-llm 0.2.86: unload() during reload aborts its downloads, and reload returns without an error.
    await this.onReload(this, new Promise((resolve) => (this.unloaded = resolve)));
  }

  readonly chat = {
    completions: {
      create: async (request: ChatCompletionRequestStreaming): Promise<AsyncIterable<ChatCompletionChunk>> => {
        this.requests.push(request);
        const pieces = [...this.chunks];
        const failWith = this.failWith;
        const interrupted = () => this.interrupts > 0;
        return (async function* () {
          for (const content of pieces) {
            if (interrupted()) return;
            await new Promise((r) => setTimeout(r, 1));
            yield { id: 'c', object: 'chat.completion.chunk', created: 0, model: MODEL.id, choices: [{ index: 0, delta: { content }, finish_reason: null, logprobs: null }] } as ChatCompletionChunk;
          }
          if (failWith !== undefined) throw failWith;
        })();
      },
    },
  };

  interruptGenerate(): void {
    this.interrupts++;
  }

  async unload(): Promise<void> {
    this.unloads++;
    this.unloaded();
  }
}

function setUp(onReload: (engine: MockEngine, unloaded: Promise<void>) => Promise<void> = async (e) => FIRST_VISIT.forEach((t) => e.progress(t))) {
  const engines: MockEngine[] = [];
  const deleted: string[] = [];
  const cache = new FakeCache();
  const deps = createWebLlmDeps({
    appConfig: { model_list: [] } as unknown as AppConfig,
    makeEngine: ({ initProgressCallback }) => {
      const engine = new MockEngine(initProgressCallback, onReload);
      engines.push(engine);
      return engine;
    },
    deleteModel: async (id) => void deleted.push(id),
  });
  const handler = createGenerateHandler({
    openCache: async () => cache,
    webllm: deps,
    platform: async () => ({ inBrowser: true, crossOriginIsolated: false, hardwareConcurrency: 4 }),
  });
  return { handler, engines, deleted, cache };
}

const load = (handler: GenerateApi, onProgress?: (e: LoadProgress) => void) => handler.load({ model: webLlmEntry(MODEL), source: { kind: 'hub' }, device: 'webgpu' }, onProgress);

async function write(handler: GenerateApi, run: number, content: string, onPiece: (piece: string) => void = () => undefined): Promise<string[]> {
  const out: string[] = [];
  await handler.generate(run, { messages: [{ role: 'user', content }] }, (piece) => {
    out.push(piece);
    onPiece(piece);
  });
  return out;
}

describe('WebLLM on the model host', () => {
  it('loads on WebGPU with the download’s progress, keeps nothing in the app’s model cache, streams, stops, and unloads', async () => {
    const { handler, engines, cache } = setUp();
    const events: LoadProgress[] = [];
    const loaded = await load(handler, (e) => events.push(e));
    expect(loaded).toMatchObject({ modelId: MODEL.id, label: MODEL.label, contextTokens: 4096, device: 'webgpu', stored: [] });
    expect(loaded.notice).toContain('WebGPU');
    expect(engines[0]!.reloads).toEqual([MODEL.id]);
    expect(events.filter((e) => e.type === 'file').map((e) => (e as { loaded: number }).loaded)).toEqual([500 * 2 ** 20, 1000 * 2 ** 20]);
    expect(events.at(-1)).toEqual({ type: 'ready' });
    expect(cache.entries.size).toBe(0);

    const engine = engines[0]!;
    engine.chunks = ['Rent', ' is due', ' monthly'];
    expect(await write(handler, 1, 'When?')).toEqual(['Rent', ' is due', ' monthly']);
    expect(engine.requests[0]).toMatchObject({ stream: true, temperature: 0, messages: [{ role: 'user', content: 'When?' }] });

    engine.chunks = ['one', ' two', ' three', ' four'];
    const stopped = await write(handler, 2, 'Count', () => void handler.stop(2));
    expect(stopped).toEqual(['one']);
    expect(engine.interrupts).toBe(1);

    await handler.unload();
    expect(engine.unloads).toBe(1);
    await expect(handler.countTokens('x')).rejects.toThrow('no model is loaded');
  });

  it('stopping a load midway ends web-llm’s downloads, deletes the partial files, and leaves no model loaded', async () => {
    let started: () => void = () => {};
    const downloading = new Promise<void>((resolve) => (started = resolve));
    const { handler, engines, deleted } = setUp(async (engine, unloaded) => {
      engine.progress('Fetching param cache[1/10]: 100MB fetched. 10% completed, 1 secs elapsed.');
      started();
      await unloaded;
    });
    const loading = load(handler);
    await downloading;
    await handler.stopLoading();
    await expect(loading).rejects.toMatchObject({ code: 'cancelled', message: `${MODEL.label}: loading stopped; nothing partial is kept` });
    expect(engines[0]!.unloads).toBeGreaterThanOrEqual(1);
    expect(deleted).toEqual([MODEL.id]);
    await expect(handler.countTokens('x')).rejects.toThrow('no model is loaded');
    // With nothing loading, stopping does nothing.
    await expect(handler.stopLoading()).resolves.toBeUndefined();
  });

  it('a failure of web-llm says what to do: shader-f16 missing means a q4f32 model; the engine is let go', async () => {
    const { handler, engines, deleted } = setUp(async () => {
      const error = new Error('This model requires WebGPU extension shader-f16, which is not enabled in this browser.');
      error.name = 'ShaderF16SupportError';
      throw error;
    });
    await expect(load(handler)).rejects.toMatchObject({ code: 'model-unsupported', message: expect.stringContaining('choose a q4f32 model') });
    expect(engines[0]!.unloads).toBe(1);
    expect(deleted).toEqual([]); // nothing was being downloaded
  });

  it('the GPU lost while writing ends the answer with the pieces written and a plain error', async () => {
    const { handler, engines } = setUp();
    await load(handler);
    const engine = engines[0]!;
    engine.chunks = ['Rent'];
    engine.failWith = Object.assign(new Error('Device was lost'), { name: 'DeviceLostError' });
    const out: string[] = [];
    await expect(write(handler, 3, 'When?', (p) => out.push(p))).rejects.toMatchObject({ code: 'gpu-out-of-memory', message: expect.stringContaining(MODEL.label) });
    expect(out).toEqual(['Rent']);
  });

  it('Delete of a WebLLM model reaches web-llm’s caches; other models’ files stay in the app’s model cache', async () => {
    const { handler, deleted, cache } = setUp();
    await cache.put('https://huggingface.co/other/model/resolve/main/config.json', new Response('{}'));
    expect(await handler.deleteCached(webLlmRepo(MODEL.id))).toBe(0); // no Cache API in Node: the bytes are unknown
    expect(deleted).toEqual([MODEL.id]);
    expect(cache.entries.size).toBe(1);
  });
});

describe('without web-llm (Node tools)', () => {
  it('a WebLLM model is refused with the reason', async () => {
    const handler = createGenerateHandler({ openCache: async () => undefined });
    await expect(load(handler)).rejects.toMatchObject({ code: 'webgpu-unavailable' });
  });
});
