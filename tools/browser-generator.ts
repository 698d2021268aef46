/**
 * A GGUF model file run by the app's own generate worker in Chromium (llama.cpp in WebAssembly, under
 * the app's CSP and cross-origin isolation), as a {@link Generator} that Node tools call: `npm run eval`
 * and `npm run bench -- answer` measure real GGUF models with it, since llama.cpp's WebAssembly runs only
 * in a browser. The file is served from disk by a local hub-layout mirror and downloaded by the worker
 * exactly as a catalogue model is.
 *
 * Each `stream` is one generation in the page; its pieces arrive when it ends (the tools need whole
 * replies), with the page's timings kept in {@link BrowserGenerator.timings}. Token counts are memoised:
 * the answerer counts the same texts again while it fits the context.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { localGgufGenerator } from '../src/models/generator-catalogue.ts';
import type { LoadedGenerator } from '../src/models/generator/generate-handler.ts';
import type { GenerateRequest, Generator } from '../src/models/generator/generator.ts';
import { buildHarness, openHarness, type OpenHarness } from '../tests/support/harness.ts';
import { startHubServer, type HubServer } from '../tests/support/hub-server.ts';

/** One generation as the page timed it. */
export interface BrowserTiming {
  /** Milliseconds from the request to the first piece: the prompt's prefill, then one token. */
  firstPieceMs: number;
  totalMs: number;
  pieces: number;
  json: boolean;
}

export interface BrowserGenerator extends Generator {
  readonly loaded: LoadedGenerator;
  /** Every generation so far, in order. */
  readonly timings: BrowserTiming[];
  /** Bytes the Chromium processes hold now (resident, summed), for the memory a model takes. */
  residentBytes(): Promise<number>;
  dispose(): Promise<void>;
}

type Failure = { error: { code: string; message: string } };
const failed = (r: unknown): r is Failure => typeof r === 'object' && r !== null && 'error' in r;
function ok<T>(r: T | Failure, what: string): T {
  if (failed(r)) throw new Error(`${what}: ${r.error.code}: ${r.error.message}`);
  return r;
}

/** Resident bytes of every Chromium process (Linux /proc), 0 where that cannot be read. */
export async function chromiumResidentBytes(): Promise<number> {
  const { readdir } = await import('node:fs/promises');
  let total = 0;
  for (const pid of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(pid)) continue;
    const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
    if (!/^Name:\s*(chromium|chrome)/m.test(status)) continue;
    const rss = /^VmRSS:\s*(\d+) kB/m.exec(status);
    if (rss) total += Number(rss[1]) * 1024;
  }
  return total;
}

/**
 * Opens Chromium on the harness page and loads `file` (a `.gguf`) in its generate worker.
 *
 * @example const generator = await openBrowserGenerator('~/.cache/docqa-models/smollm2-135m-instruct/SmolLM2-135M-Instruct.Q4_1.gguf');
 */
export async function openBrowserGenerator(file: string, options: { contextTokens?: number } = {}): Promise<BrowserGenerator> {
  const bytes = new Uint8Array(await readFile(file));
  const repo = `local/${basename(file).replace(/\.gguf$/i, '').replace(/[^A-Za-z0-9._-]/g, '-')}`;
  const name = basename(file);
  await buildHarness();
  let hub: HubServer | undefined;
  let app: OpenHarness | undefined;
  try {
    hub = await startHubServer(new Map([[repo, new Map([[name, bytes]])]]));
    app = await openHarness();
    const entry = { ...localGgufGenerator({ folder: repo, file: name, contextTokens: options.contextTokens ?? 4096, label: name }), id: `local:${repo}` as ReturnType<typeof localGgufGenerator>['id'] };
    const page = app.page;
    const { loaded } = ok(await page.evaluate(([m, s]) => window.harness.loadGenerator(m, s), [entry, { kind: 'mirror', baseUrl: hub.url }] as const), `loading ${name}`);
    const counts = new Map<string, number>();
    const timings: BrowserTiming[] = [];
    const opened = { hub, app };
    return {
      loaded,
      timings,
      model: { id: loaded.modelId, label: loaded.label, contextTokens: loaded.contextTokens },
      async countTokens(text) {
        const known = counts.get(text);
        if (known !== undefined) return known;
        const n = ok(await page.evaluate((t) => window.harness.countTokens(t), text), 'counting tokens');
        counts.set(text, n);
        return n;
      },
      async *stream(request: GenerateRequest) {
        if (request.signal?.aborted) return;
        const { signal: _signal, ...plain } = request;
        const written = ok(await page.evaluate((r) => window.harness.generate(r), plain), 'generating');
        timings.push({ firstPieceMs: written.firstPieceMs, totalMs: written.totalMs, pieces: written.pieces.length, json: request.json === true });
        yield* written.pieces;
      },
      residentBytes: chromiumResidentBytes,
      async dispose() {
        await opened.app.close();
        await opened.hub.close();
      },
    };
  } catch (err) {
    await app?.close().catch(() => undefined);
    await hub?.close().catch(() => undefined);
    throw err;
  }
}
