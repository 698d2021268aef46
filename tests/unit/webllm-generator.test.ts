// The WebLLM adapter against a mocked engine (no GPU here; web-llm's own tests mock its pipeline the
// same way): load progress to 100 %, streaming the chunks' deltas in order, Stop mid-stream
// (interruptGenerate, the stream ends with what was written), and each failure as the DocQaError a
// person can act on. Error texts are web-llm 0.2.86's own (lib/index.js), in both forms they arrive
// in: an Error with the class's name (engine in this thread) and the worker's `err.toString()` string.
import type { ChatCompletionChunk, ChatCompletionRequestStreaming, InitProgressReport } from '@mlc-ai/web-llm';
import { describe, expect, it, vi } from 'vitest';
import { DocQaError } from '../../src/core/errors.ts';
import { estimateTokens, jsonSchemaOf, loadWebLlm, type WebLlmDeps, type WebLlmEngine, type WebLlmLoadProgress } from '../../src/models/webllm/webllm-generator.ts';
import { VERDICT_SHAPE } from '../../src/question/multi-hop.ts';

const MODEL = { id: 'Llama-3.2-1B-Instruct-q4f32_1-MLC', label: 'Llama 3.2 1B Instruct', contextTokens: 4096 };

/** web-llm's load reports for a first visit: fetch 4 shards, load them to the GPU, compile shaders. */
function firstVisitReports(): InitProgressReport[] {
  const reports: InitProgressReport[] = [{ progress: 0, timeElapsed: 0, text: 'Start to fetch params' }];
  for (let i = 1; i <= 4; i++) {
    reports.push({ progress: i / 4, timeElapsed: i, text: `Fetching param cache[${i}/4]: ${i * 200}MB fetched. ${i * 25}% completed, ${i} secs elapsed. It can take a while when we first visit this page to populate the cache. Later refreshes will become faster.` });
  }
  for (let i = 1; i <= 4; i++) reports.push({ progress: i / 4, timeElapsed: 5, text: `Loading model from cache[${i}/4]: ${i * 200}MB loaded. ${i * 25}% completed, 5 secs elapsed.` });
  reports.push({ progress: 0.5, timeElapsed: 6, text: 'Loading GPU shader modules[10/20]: 50% completed, 6 secs elapsed.' });
  reports.push({ progress: 1, timeElapsed: 7, text: 'Loading GPU shader modules[20/20]: 100% completed, 7 secs elapsed.' });
  reports.push({ progress: 1, timeElapsed: 7, text: 'Finish loading on WebGPU - nvidia' });
  return reports;
}

const chunk = (content: string | undefined): ChatCompletionChunk => ({
  id: 'c',
  object: 'chat.completion.chunk',
  created: 0,
  model: MODEL.id,
  choices: content === undefined ? [] : [{ index: 0, delta: { role: 'assistant', content }, finish_reason: null }],
});

/**
 * A mocked engine: `create` streams `pieces` one chunk each (then a usage chunk with no choices), like
 * web-llm, stopping at the next token once `interruptGenerate` is called. `stallAfter` pieces, the
 * next chunk waits until the engine is interrupted (a slow decode step), and still comes out.
 */
function mockEngine(pieces: string[], options: { stallAfter?: number; failAfter?: { index: number; error: unknown } } = {}) {
  const calls = { requests: [] as ChatCompletionRequestStreaming[], interrupts: 0, returned: 0, unloads: 0 };
  let interrupted: () => void = () => {};
  let interruptedFlag = false;
  const engine: WebLlmEngine = {
    chat: {
      completions: {
        async create(request) {
          calls.requests.push(request);
          interruptedFlag = false;
          const wasInterrupted = new Promise<void>((resolve) => (interrupted = resolve));
          async function* generate() {
            try {
              for (let i = 0; i < pieces.length; i++) {
                if (options.failAfter?.index === i) throw options.failAfter.error;
                if (options.stallAfter === i) {
                  await wasInterrupted;
                  yield chunk(pieces[i]); // the token being decoded when Stop came
                  return;
                }
                if (interruptedFlag) return;
                yield chunk(pieces[i]);
              }
              yield chunk(undefined); // the usage chunk: no choices
            } finally {
              calls.returned++;
            }
          }
          return generate();
        },
      },
    },
    interruptGenerate() {
      calls.interrupts++;
      interruptedFlag = true;
      interrupted();
    },
    async unload() {
      calls.unloads++;
    },
  };
  return { engine, calls };
}

function deps(engine: WebLlmEngine, reports: InitProgressReport[] = firstVisitReports(), failWith?: unknown) {
  const deleted: string[] = [];
  let disposed = 0;
  const d: WebLlmDeps = {
    async createEngine(_modelId, { onProgress, signal }) {
      for (const r of reports) {
        if (signal?.aborted) throw new DOMException('loading stopped', 'AbortError');
        onProgress(r);
        await Promise.resolve();
      }
      if (failWith !== undefined) throw failWith;
      return { engine, dispose: () => disposed++ };
    },
    async deleteCachedModel(modelId) {
      deleted.push(modelId);
    },
  };
  return { deps: d, deleted, disposed: () => disposed };
}

async function collect(stream: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const piece of stream) out.push(piece);
  return out;
}

describe('loading', () => {
  it('reports the download per file and in total, then every stage, up to 100 % and ready', async () => {
    const events: WebLlmLoadProgress[] = [];
    const { engine } = mockEngine([]);
    const generator = await loadWebLlm(deps(engine).deps, { model: MODEL, onProgress: (e) => events.push(e) });
    expect(generator.model).toEqual(MODEL);

    const files = events.filter((e) => e.type === 'file');
    expect(files.map((f) => f.loaded)).toEqual([200, 400, 600, 800].map((mb) => mb * 2 ** 20));
    expect(files.every((f) => f.total === 800 * 2 ** 20 && f.file === `${MODEL.id} weights`)).toBe(true);
    expect(events.filter((e) => e.type === 'file-done')).toHaveLength(1);
    const totals = events.filter((e) => e.type === 'total');
    expect(totals.at(-1)).toEqual({ type: 'total', loaded: 800 * 2 ** 20, total: 800 * 2 ** 20 });

    const stages = events.filter((e) => e.type === 'stage');
    expect([...new Set(stages.map((s) => s.stage))]).toEqual(['prepare', 'download', 'gpu', 'shaders', 'ready']);
    const overall = stages.map((s) => s.overall);
    expect(overall).toEqual([...overall].sort((a, b) => a - b)); // never goes back
    expect(overall.at(-1)).toBe(1);
    expect(stages.find((s) => s.stage === 'download' && s.fraction === 0.5)?.overall).toBeCloseTo(0.4);
    expect(events.at(-1)).toEqual({ type: 'ready' });
  });

  it('reaches 100 % from the cache too, sizing the total from the model', async () => {
    const events: WebLlmLoadProgress[] = [];
    const cached = firstVisitReports().filter((r) => !r.text.startsWith('Fetching'));
    await loadWebLlm(deps(mockEngine([]).engine, cached).deps, { model: { ...MODEL, downloadBytes: 1000 }, onProgress: (e) => events.push(e) });
    expect(events.filter((e) => e.type === 'file')).toEqual([]);
    const stages = events.filter((e) => e.type === 'stage');
    expect(stages.find((s) => s.stage === 'gpu')!.overall).toBeGreaterThanOrEqual(0.8);
    expect(stages.at(-1)!.overall).toBe(1);
    expect(events.slice(-2)).toEqual([{ type: 'total', loaded: 1000, total: 1000 }, { type: 'ready' }]);
  });
});

describe('streaming', () => {
  it("yields each chunk's delta in order and sends the request web-llm expects", async () => {
    const { engine, calls } = mockEngine(['The rent', ' is due', '', ' on the 1st [1].']);
    const generator = await loadWebLlm(deps(engine).deps, { model: MODEL });
    const messages = [
      { role: 'system' as const, content: 'Answer from the passages.' },
      { role: 'user' as const, content: 'When is the rent due?' },
    ];
    expect(await collect(generator.stream({ messages }))).toEqual(['The rent', ' is due', ' on the 1st [1].']);
    expect(calls.requests[0]).toEqual({ stream: true, messages, max_tokens: 512, temperature: 0 });
    expect(calls.returned).toBe(1);

    await collect(generator.stream({ messages, json: true, maxTokens: 99_999, temperature: 0.7 }));
    expect(calls.requests[1]).toMatchObject({ max_tokens: 4096, temperature: 0.7, response_format: { type: 'json_object' } });

    // A step's shape goes as the JSON Schema web-llm holds decoding to.
    await collect(generator.stream({ messages, json: true, shape: VERDICT_SHAPE }));
    expect(JSON.parse((calls.requests[2] as { response_format: { schema: string } }).response_format.schema)).toEqual({
      type: 'object',
      properties: { sufficient: { type: 'boolean' }, missing: { type: 'string', maxLength: 200 }, next_query: { type: 'string', maxLength: 160 } },
      required: ['sufficient'],
      additionalProperties: false,
    });
    expect(jsonSchemaOf({ type: 'object', properties: { from: { type: 'string', maxLength: 10, nullable: true }, tags: { type: 'array', items: { type: 'string' }, maxItems: 2 } } })).toEqual({
      type: 'object',
      properties: { from: { type: ['string', 'null'], maxLength: 10 }, tags: { type: 'array', items: { type: 'string' }, maxItems: 2 } },
      additionalProperties: false,
    });
  });

  it('Stop mid-stream interrupts the engine and ends the stream with what was written', async () => {
    const { engine, calls } = mockEngine(['one', ' two', ' three', ' four']);
    const generator = await loadWebLlm(deps(engine).deps, { model: MODEL });
    const stop = new AbortController();
    const out: string[] = [];
    for await (const piece of generator.stream({ messages: [{ role: 'user', content: 'count' }], signal: stop.signal })) {
      out.push(piece);
      if (out.length === 2) stop.abort();
    }
    expect(out).toEqual(['one', ' two']);
    expect(calls.interrupts).toBe(1);
    await vi.waitFor(() => expect(calls.returned).toBe(1)); // the engine's stream was closed
  });

  it('Stop while the engine is between tokens ends the stream at once', async () => {
    const { engine, calls } = mockEngine(['one', ' two', ' three'], { stallAfter: 1 });
    const generator = await loadWebLlm(deps(engine).deps, { model: MODEL });
    const stop = new AbortController();
    const out: string[] = [];
    const done = (async () => {
      for await (const piece of generator.stream({ messages: [{ role: 'user', content: 'count' }], signal: stop.signal })) out.push(piece);
    })();
    await vi.waitFor(() => expect(out).toEqual(['one']));
    stop.abort();
    await done;
    expect(out).toEqual(['one']);
    expect(calls.interrupts).toBe(1);
  });

  it('an already stopped request writes nothing and never reaches the engine', async () => {
    const { engine, calls } = mockEngine(['x']);
    const generator = await loadWebLlm(deps(engine).deps, { model: MODEL });
    expect(await collect(generator.stream({ messages: [{ role: 'user', content: 'q' }], signal: AbortSignal.abort() }))).toEqual([]);
    expect(calls.requests).toEqual([]);
  });

  it('unload frees the engine and its worker; writing afterwards says to load again', async () => {
    const { engine, calls } = mockEngine(['x']);
    const d = deps(engine);
    const generator = await loadWebLlm(d.deps, { model: MODEL });
    await generator.unload();
    expect(calls.unloads).toBe(1);
    expect(d.disposed()).toBe(1);
    await expect(collect(generator.stream({ messages: [{ role: 'user', content: 'q' }] }))).rejects.toThrow('was unloaded: load it again');
  });
});

/** Both forms of a web-llm error: its class in this thread, and the string its worker posts. */
function bothForms(name: string, message: string): unknown[] {
  const error = new Error(message);
  error.name = name;
  return [error, `${name}: ${message}`];
}

const NO_WEBGPU =
  'WebGPU is not supported in your current environment, but it is necessary to run the WebLLM engine. Please make sure that your browser supports WebGPU and that it is enabled in your browser settings. You can also consult your browser\'s compatibility chart to see if it supports WebGPU. For more information about WebGPU support in your browser, visit https://webgpureport.org/';
const NO_F16 = 'This model requires WebGPU extension shader-f16, which is not enabled in this browser. You can try to launch Chrome Canary in command line with flag "--enable-dawn-features=allow_unsafe_apis".';
const DEVICE_LOST =
  'The WebGPU device was lost while loading the model. This issue often occurs due to running out of memory (OOM). To resolve this, try reloading with a model that has fewer parameters or uses a smaller context length.';

describe('errors a person can act on', () => {
  async function loadFailure(failWith: unknown, reports: InitProgressReport[] = []) {
    const d = deps(mockEngine([]).engine, reports, failWith);
    const error = await loadWebLlm(d.deps, { model: MODEL }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DocQaError);
    return { error: error as DocQaError, deleted: d.deleted };
  }

  it.each(bothForms('WebGPUNotAvailableError', NO_WEBGPU))('no WebGPU: answers use the WASM model or quotes (%#)', async (thrown) => {
    const { error } = await loadFailure(thrown);
    expect(error.code).toBe('webgpu-unavailable');
    expect(error.message).toBe('Llama 3.2 1B Instruct: this browser has no WebGPU: answers use the WASM model or quotes');
  });

  it.each(bothForms('ShaderF16SupportError', NO_F16))('missing shader-f16: choose a q4f32 model (%#)', async (thrown) => {
    const { error } = await loadFailure(thrown);
    expect(error.code).toBe('model-unsupported');
    expect(error.message).toBe('Llama 3.2 1B Instruct needs the WebGPU feature shader-f16, which this device lacks: choose a q4f32 model');
  });

  it.each([...bothForms('DeviceLostError', DEVICE_LOST), 'Error: Out of memory', Object.assign(new Error('the WebLLM worker stopped: no message'), { name: 'WebLlmWorkerError' })])(
    'out of memory or device lost: close other tabs or choose a smaller model (%#)',
    async (thrown) => {
      const { error, deleted } = await loadFailure(thrown, firstVisitReports().slice(0, 10));
      expect(error.code).toBe('gpu-out-of-memory');
      expect(error.message).toBe('Llama 3.2 1B Instruct ran out of GPU memory (the device was lost): close other tabs or choose a smaller model');
      expect(deleted).toEqual([]); // the weights were downloaded whole: kept
    },
  );

  it.each([new TypeError('Failed to fetch'), 'TypeError: NetworkError when attempting to fetch resource.', "Error: Failed to store https://huggingface.co/mlc-ai/x/resolve/main/params_shard_3.bin with error: TypeError: Failed to execute 'add' on 'Cache': Request failed"])(
    'a download that fails mid-way: check the connection and try again; nothing partial is kept (%#)',
    async (thrown) => {
      const { error, deleted } = await loadFailure(thrown, firstVisitReports().slice(0, 3)); // 2 of 4 shards fetched
      expect(error.code).toBe('model-download-failed');
      expect(error.message).toBe('Llama 3.2 1B Instruct: the download failed: check the connection and try again; nothing partial is kept');
      expect(deleted).toEqual([MODEL.id]);
    },
  );

  it('a download that fails before the weights (config, model library) deletes nothing', async () => {
    const { error, deleted } = await loadFailure('Error: ArtifactOPFSCache: Unable to fetch https://huggingface.co/mlc-ai/x/resolve/main/mlc-chat-config.json, received status 404');
    expect(error.code).toBe('model-download-failed');
    expect(deleted).toEqual([]);
  });

  it('storage full while downloading: frees what was downloaded', async () => {
    const { error, deleted } = await loadFailure(new DOMException('The quota has been exceeded.', 'QuotaExceededError'), firstVisitReports().slice(0, 2));
    expect(error.code).toBe('storage-full');
    expect(deleted).toEqual([MODEL.id]);
  });

  it('stopping a download rejects as cancelled and deletes the partial download', async () => {
    const stop = new AbortController();
    const d = deps(mockEngine([]).engine);
    const loading = loadWebLlm(d.deps, {
      model: MODEL,
      signal: stop.signal,
      onProgress: (e) => {
        if (e.type === 'file' && e.loaded > 0) stop.abort();
      },
    });
    await expect(loading).rejects.toMatchObject({ code: 'cancelled', message: 'Llama 3.2 1B Instruct: loading stopped; nothing partial is kept' });
    expect(d.deleted).toEqual([MODEL.id]);
  });

  it('a failure while writing becomes a DocQaError thrown by the stream, after the pieces written', async () => {
    const { engine } = mockEngine(['a', 'b', 'c'], { failAfter: { index: 2, error: `DeviceLostError: ${DEVICE_LOST}` } });
    const generator = await loadWebLlm(deps(engine).deps, { model: MODEL });
    const out: string[] = [];
    await expect(
      (async () => {
        for await (const piece of generator.stream({ messages: [{ role: 'user', content: 'q' }] })) out.push(piece);
      })(),
    ).rejects.toMatchObject({ code: 'gpu-out-of-memory' });
    expect(out).toEqual(['a', 'b']);
  });

  it('a prompt over the context window names both sizes', async () => {
    const { engine } = mockEngine([]);
    engine.chat.completions.create = async () => {
      throw 'ContextWindowSizeExceededError: Prompt tokens exceed context window size: number of prompt tokens: 5000; context window size: 4096\nConsider shortening the prompt, or increase `context_window_size`, or using sliding window via `sliding_window_size`.';
    };
    const generator = await loadWebLlm(deps(engine).deps, { model: MODEL });
    await expect(collect(generator.stream({ messages: [{ role: 'user', content: 'q' }] }))).rejects.toMatchObject({
      code: 'too-large',
      message: "Llama 3.2 1B Instruct: the question and its passages are longer than the model's context window (5000 tokens; it holds 4096): ask with fewer passages or start a new conversation",
    });
  });

  it('anything else keeps web-llm’s message', async () => {
    const { error } = await loadFailure('Error: something unexpected');
    expect(error.code).toBe('internal');
    expect(error.message).toBe('Llama 3.2 1B Instruct: WebLLM failed while loading: something unexpected');
  });
});

describe('estimateTokens', () => {
  it('errs high for English and counts other scripts more densely', () => {
    const english = 'The security deposit is returned within thirty days after the lease ends.';
    // 12 common words and a period: about 13 tokens in these BPE tokenizers; the estimate must not be below.
    expect(estimateTokens(english)).toBeGreaterThanOrEqual(13);
    expect(estimateTokens(english)).toBeLessThanOrEqual(30);
    expect(estimateTokens('押金在租约结束后三十天内退还')).toBe(21); // 14 characters × 1.5
    expect(estimateTokens('Привет')).toBe(3);
    expect(estimateTokens('')).toBe(0);
  });
});
