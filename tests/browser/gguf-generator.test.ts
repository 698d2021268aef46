// The GGUF engine (llama.cpp in WebAssembly, wllama) in Chromium, through the generate worker's client on
// the test-only harness page, under the app's CSP and cross-origin isolation: the generated tiny GGUF
// downloads from a hub-layout mirror with progress and is kept; it writes greedily (the same prompt, the
// same pieces), stops on request keeping what was written, counts tokens, answers JSON requests with
// JSON (decoding held to one object), refuses a prompt over its budget; it loads again from the cache alone with the mirror stopped; a base model (no chat template)
// and a file that is not GGUF are refused with what to do. Nothing is fetched from anywhere else (the
// WebAssembly comes from the app's origin) and the page logs no CSP violation. WebLLM runs in the same
// worker (one model host for every engine): a WebLLM load there imports web-llm's chunk and refuses a
// model web-llm does not list before fetching anything, and the worker goes on with GGUF afterwards (no
// GPU here: a real web-llm load is for a session with one).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoadedGenerator } from '../../src/models/generator/generate-handler.ts';
import type { GgufGeneratorEntry } from '../../src/models/generator-catalogue.ts';
import type { LoadProgress, ModelSource } from '../../src/models/model-source.ts';
import { JsonObjectPrefix } from '../../src/models/generator/json-prefix.ts';
import { webLlmEntry } from '../../src/models/webllm/webllm-entry.ts';
import { generateTinyGguf, TINY_GGUF_FILE } from '../../tools/models/tiny-gguf.ts';
import { buildHarness, openHarness, type OpenHarness } from '../support/harness.ts';
import { startHubServer, type HubServer } from '../support/hub-server.ts';

const REPO = 'docqa-test/tiny-gguf';
const BASE_REPO = 'docqa-test/tiny-gguf-base';
const NOT_GGUF_REPO = 'docqa-test/not-gguf';
const entry = (repo: string, contextTokens = 256): GgufGeneratorEntry => ({
  id: `local:${repo}` as GgufGeneratorEntry['id'],
  format: 'gguf',
  label: repo,
  repo,
  revision: 'main',
  files: [{ path: TINY_GGUF_FILE, bytes: 0, approximate: true }],
  contextTokens,
  languages: [],
});

type Failure = { error: { code: string; message: string } };
type Written = { pieces: string[]; firstPieceMs: number; totalMs: number };
const failed = (r: unknown): r is Failure => typeof r === 'object' && r !== null && 'error' in r;
function ok<T>(r: T | Failure): T {
  if (failed(r)) throw new Error(`harness call failed: ${r.error.code}: ${r.error.message}`);
  return r;
}

const MESSAGES = [
  { role: 'system' as const, content: 'Answer from the passage.' },
  { role: 'user' as const, content: 'Passage: The tenant pays the rent on the first day of each month.\n\nQuestion: When is the rent paid?' },
];

describe('the generate worker in Chromium: the GGUF engine (llama.cpp in WebAssembly), and WebLLM beside it', () => {
  let hub: HubServer;
  let app: OpenHarness;
  const mirror = (): ModelSource => ({ kind: 'mirror', baseUrl: hub.url });
  const load = (model: GgufGeneratorEntry, source: ModelSource = mirror()) =>
    app.page.evaluate(([m, s]) => window.harness.loadGenerator(m, s), [model, source] as const) as Promise<{ loaded: LoadedGenerator; events: LoadProgress[] } | Failure>;
  const generate = (maxTokens: number, stopAfter?: number, messages = MESSAGES) =>
    app.page.evaluate(([m, t, s]) => window.harness.generate({ messages: m, maxTokens: t }, s), [messages, maxTokens, stopAfter] as const) as Promise<Written | Failure>;

  beforeAll(async () => {
    await buildHarness();
    const notGguf = new Uint8Array(4096).fill(7);
    hub = await startHubServer(
      new Map([
        [REPO, new Map([[TINY_GGUF_FILE, generateTinyGguf()]])],
        [BASE_REPO, new Map([[TINY_GGUF_FILE, generateTinyGguf({ withoutChatTemplate: true })]])],
        [NOT_GGUF_REPO, new Map([[TINY_GGUF_FILE, notGguf]])],
      ]),
    );
    app = await openHarness();
  });
  afterAll(async () => {
    expect(app?.requestsElsewhere([new URL(hub.url).origin])).toEqual([]);
    expect(app?.cspViolations()).toEqual([]);
    await app?.close();
    await hub?.close();
  });

  it('downloads the file from the mirror with progress to 100 %, keeps it, and loads it into llama.cpp', async () => {
    const { loaded, events } = ok(await load(entry(REPO)));
    expect(loaded).toMatchObject({ modelId: `local:${REPO}`, device: 'wasm', contextTokens: 256, stored: [TINY_GGUF_FILE] });
    const size = generateTinyGguf().length;
    expect(events.filter((e) => e.type === 'total').at(-1)).toEqual({ type: 'total', loaded: size, total: size });
    expect(events.at(-1)).toEqual({ type: 'ready' });
    // The WebAssembly came from the app's own origin, not a CDN.
    expect(app.requests.some((u) => u.startsWith(app.origin) && u.endsWith('.wasm') && /wllama/.test(u))).toBe(true);
  });

  it('writes greedily: the same prompt gives the same pieces, up to maxTokens', async () => {
    const first = ok(await generate(24));
    const second = ok(await generate(24));
    expect(first.pieces.length).toBeGreaterThan(0);
    expect(first.pieces.join('')).toBe(second.pieces.join(''));
    expect(ok(await app.page.evaluate((t) => window.harness.countTokens(t), 'When is the rent paid?'))).toBeGreaterThan(3);
  });

  it('stops on request, keeping what was written, and writes again afterwards', async () => {
    const whole = ok(await generate(48));
    const stopped = ok(await generate(48, 3));
    expect(stopped.pieces.length).toBeGreaterThanOrEqual(3);
    expect(stopped.pieces.length).toBeLessThan(whole.pieces.length);
    expect(whole.pieces.join('').startsWith(stopped.pieces.slice(0, 3).join(''))).toBe(true);
    expect(ok(await generate(8)).pieces.length).toBeGreaterThan(0);
  });

  it('answers a JSON request with JSON, even from random weights: decoding is held to one object', async () => {
    const request = [{ role: 'user' as const, content: 'Give three phrasings of: When is the rent paid? As JSON {"queries": [...]}' }];
    const written = ok((await app.page.evaluate((m) => window.harness.generate({ messages: m, maxTokens: 400, json: true }), request)) as Written | Failure);
    const reply = written.pieces.join('');
    expect(reply.startsWith('{')).toBe(true);
    const prefix = new JsonObjectPrefix();
    expect(prefix.push(new TextEncoder().encode(reply))).toBe(true);
    if (prefix.complete) expect(typeof JSON.parse(reply)).toBe('object');
  });

  it('refuses a prompt longer than its context budget, saying what to do', async () => {
    const long = [{ role: 'user' as const, content: 'the rent '.repeat(200) }];
    const result = await generate(8, undefined, long);
    expect(result).toEqual({ error: { code: 'prompt-too-long', message: expect.stringMatching(/the prompt takes \d+ tokens, but .* is given at most 256 .*send fewer or shorter passages/) } });
  });

  it('loads again from the model cache alone, with the mirror stopped', async () => {
    await hub.stop();
    try {
      const { loaded } = ok(await load(entry(REPO), { kind: 'cache' }));
      expect(loaded.stored).toEqual([]);
      expect(ok(await generate(8)).pieces.length).toBeGreaterThan(0);
    } finally {
      await hub.start();
    }
  });

  it('refuses a base model and a file that is not GGUF, with what to do', async () => {
    expect(await load(entry(BASE_REPO))).toEqual({ error: { code: 'model-unsupported', message: `${BASE_REPO} has no chat template: it is a base model, which only continues text; choose an instruct (chat) model` } });
    expect(await load(entry(NOT_GGUF_REPO))).toEqual({
      error: { code: 'model-unsupported', message: expect.stringMatching(/^tiny-decoder\.gguf: not a GGUF file .*choose a \.gguf model file/) },
    });
  });

  it('runs WebLLM in the same worker: web-llm is imported there and an unlisted model is refused before anything is fetched; GGUF goes on', async () => {
    const unknown = { id: 'Not-A-Prebuilt-Model-q4f32_1-MLC', label: 'A model web-llm does not list', contextTokens: 4096, vramMB: 900, downloadBytes: 3e8, languages: ['en'], quantization: 'q4f32_1', f32: true, lowResource: true };
    const result = await app.page.evaluate(([m]) => window.harness.loadGenerator(m, { kind: 'hub' }), [webLlmEntry(unknown)] as const);
    expect(result).toEqual({ error: { code: 'model-unsupported', message: `${unknown.label} is not in this version of WebLLM's model list: choose another model` } });
    expect(app.requests.some((u) => u.startsWith(app.origin) && /webllm-engine/.test(u))).toBe(true);
    ok(await load(entry(REPO), { kind: 'cache' }));
    expect(ok(await generate(8)).pieces.length).toBeGreaterThan(0);
  });
});
