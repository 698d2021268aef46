// The app's WebLLM client (createWebLlmDeps) with web-llm's real WebWorkerMLCEngine talking to a fake
// worker that answers its message protocol (0.2.86: reload, initProgressCallback, return/throw,
// chatCompletionStreamInit, completionStreamNextChunk, completionStreamReturn, interruptGenerate).
// No GPU and no real worker here: this checks the client side, i.e. that progress, web-llm's
// stringified worker errors, streaming and Stop come through, and that the worker is terminated
// when a load fails, is stopped, or the worker dies.
import { describe, expect, it } from 'vitest';
import { createWebLlmDeps } from '../../src/models/webllm/webllm-client.ts';
import { loadWebLlm, type WebLlmLoadProgress } from '../../src/models/webllm/webllm-generator.ts';

const MODEL = { id: 'Qwen2.5-1.5B-Instruct-q4f32_1-MLC', label: 'Qwen2.5 1.5B Instruct', contextTokens: 4096 };

interface Message {
  kind: string;
  uuid: string;
  content: unknown;
}

/** Answers web-llm's worker protocol; `onReload` decides how a load ends. */
class FakeLlmWorker extends EventTarget {
  onmessage: ((event: unknown) => void) | null = null;
  readonly kinds: string[] = [];
  terminated = false;
  chunks: string[] = [];
  /** Once set, requests for the next piece get no reply (a worker that crashed). */
  silent = false;

  constructor(private readonly onReload: (worker: FakeLlmWorker, msg: Message) => void) {
    super();
  }

  postMessage(msg: Message): void {
    this.kinds.push(msg.kind);
    if (this.terminated) return;
    switch (msg.kind) {
      case 'reload':
        this.onReload(this, msg);
        return;
      case 'chatCompletionStreamInit':
      case 'completionStreamReturn':
      case 'interruptGenerate':
      case 'unload':
        this.reply({ kind: 'return', uuid: msg.uuid, content: null });
        return;
      case 'completionStreamNextChunk': {
        if (this.silent && this.chunks.length === 0) return;
        const piece = this.chunks.shift();
        const chunk = piece === undefined ? undefined : { id: 'c', object: 'chat.completion.chunk', created: 0, model: MODEL.id, choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] };
        this.reply({ kind: 'return', uuid: msg.uuid, content: chunk });
        return;
      }
      default: // setAppConfig, setLogLevel: no answer
    }
  }

  reply(data: unknown): void {
    setTimeout(() => this.onmessage?.({ data, ...(data as object) }), 0);
  }

  progress(progress: number, text: string): void {
    this.reply({ kind: 'initProgressCallback', uuid: 'p', content: { progress, timeElapsed: 0, text } });
  }

  terminate(): void {
    this.terminated = true;
  }
}

function client(onReload: (worker: FakeLlmWorker, msg: Message) => void) {
  const workers: FakeLlmWorker[] = [];
  const deps = createWebLlmDeps({
    spawn: () => {
      const w = new FakeLlmWorker(onReload);
      workers.push(w);
      return w as unknown as Worker;
    },
  });
  return { deps, workers };
}

describe('createWebLlmDeps', () => {
  it('loads through the worker with progress, streams, stops, and unloads', async () => {
    const { deps, workers } = client((w, msg) => {
      w.progress(0.5, 'Fetching param cache[1/2]: 500MB fetched. 50% completed, 1 secs elapsed.');
      w.progress(1, 'Fetching param cache[2/2]: 1000MB fetched. 100% completed, 2 secs elapsed.');
      w.progress(1, 'Finish loading on WebGPU - test');
      w.reply({ kind: 'return', uuid: msg.uuid, content: null });
    });
    const events: WebLlmLoadProgress[] = [];
    const generator = await loadWebLlm(deps, { model: MODEL, onProgress: (e) => events.push(e) });
    expect(events.filter((e) => e.type === 'file').map((e) => e.loaded)).toEqual([500 * 2 ** 20, 1000 * 2 ** 20]);
    expect(events.at(-1)).toEqual({ type: 'ready' });

    const worker = workers[0]!;
    worker.chunks = ['Rent', ' is due', ' monthly'];
    const out: string[] = [];
    for await (const piece of generator.stream({ messages: [{ role: 'user', content: 'When?' }] })) out.push(piece);
    expect(out).toEqual(['Rent', ' is due', ' monthly']);

    worker.chunks = ['one', ' two', ' three'];
    const stop = new AbortController();
    const stopped: string[] = [];
    for await (const piece of generator.stream({ messages: [{ role: 'user', content: 'Count' }], signal: stop.signal })) {
      stopped.push(piece);
      stop.abort();
    }
    expect(stopped).toEqual(['one']);
    expect(worker.kinds).toContain('interruptGenerate');
    await new Promise((r) => setTimeout(r, 10));
    expect(worker.kinds.filter((k) => k === 'completionStreamReturn').length).toBeGreaterThanOrEqual(1);

    await generator.unload();
    expect(worker.kinds.at(-1)).toBe('unload');
    expect(worker.terminated).toBe(true);
  });

  it("turns the worker's stringified ShaderF16SupportError into 'choose a q4f32 model' and ends the worker", async () => {
    const { deps, workers } = client((w, msg) =>
      w.reply({ kind: 'throw', uuid: msg.uuid, content: 'ShaderF16SupportError: This model requires WebGPU extension shader-f16, which is not enabled in this browser.' }),
    );
    await expect(loadWebLlm(deps, { model: MODEL })).rejects.toMatchObject({ code: 'model-unsupported', message: expect.stringContaining('choose a q4f32 model') });
    expect(workers[0]!.terminated).toBe(true);
  });

  it('a worker that dies while loading (out of memory) rejects instead of hanging', async () => {
    const { deps, workers } = client((w) => {
      setTimeout(() => w.dispatchEvent(Object.assign(new Event('error'), { message: 'Uncaught RangeError: Array buffer allocation failed' })), 0);
    });
    await expect(loadWebLlm(deps, { model: MODEL })).rejects.toMatchObject({ code: 'gpu-out-of-memory' });
    expect(workers[0]!.terminated).toBe(true);
  });

  it('a worker that dies after the load ends the answer in flight with a clear error instead of hanging', async () => {
    const { deps, workers } = client((w, msg) => w.reply({ kind: 'return', uuid: msg.uuid, content: null }));
    const generator = await loadWebLlm(deps, { model: MODEL });
    const worker = workers[0]!;
    worker.chunks = ['Rent'];
    // After its first piece the worker stops answering (as a crashed worker does), then reports its death.
    worker.silent = true;
    const out: string[] = [];
    const writing = (async () => {
      for await (const piece of generator.stream({ messages: [{ role: 'user', content: 'When?' }] })) out.push(piece);
    })();
    await new Promise((r) => setTimeout(r, 20));
    worker.dispatchEvent(Object.assign(new Event('error'), { message: 'Uncaught RangeError: Array buffer allocation failed' }));
    await expect(writing).rejects.toMatchObject({ code: 'gpu-out-of-memory', message: expect.stringContaining('Qwen2.5 1.5B Instruct') });
    // The next request fails at once too, rather than waiting for a worker that is gone.
    await expect(
      (async () => {
        for await (const piece of generator.stream({ messages: [{ role: 'user', content: 'Again?' }] })) out.push(piece);
      })(),
    ).rejects.toMatchObject({ code: 'gpu-out-of-memory' });
  });

  it('stopping a load terminates the worker', async () => {
    const stop = new AbortController();
    const { deps, workers } = client((w) => {
      w.progress(0.1, 'Fetching param cache[1/10]: 100MB fetched. 10% completed, 1 secs elapsed.');
      setTimeout(() => stop.abort(), 5);
    });
    await expect(loadWebLlm(deps, { model: MODEL, signal: stop.signal })).rejects.toMatchObject({ code: 'cancelled' });
    expect(workers[0]!.terminated).toBe(true);
  });
});
