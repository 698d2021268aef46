/**
 * A text-generation model run by the app's own generate worker in Chromium (under the app's CSP and
 * cross-origin isolation), as a {@link Generator} that Node tools call: a GGUF file on llama.cpp in
 * WebAssembly, or a transformers.js ONNX model folder on ONNX Runtime's WebAssembly. `npm run eval` and
 * `npm run bench -- answer` measure real GGUF models with it, since llama.cpp's WebAssembly runs only in a
 * browser; `npm run bench -- engines` measures both engines on the same model. The files are served from
 * disk by a local hub-layout mirror and downloaded by the worker exactly as a catalogue model is.
 *
 * Each `stream` is one generation in the page; its pieces arrive when it ends (the tools need whole
 * replies), with the page's timings kept in {@link BrowserGenerator.timings}. Token counts are memoised:
 * the answerer counts the same texts again while it fits the context.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { generatorWeightsFile, localGenerator, localGgufGenerator, type GeneratorModelEntry, type OnnxGeneratorEntry } from '../src/models/generator-catalogue.ts';
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
  /** Milliseconds the worker's load took, as Node saw it (download from the local mirror, engine start). */
  readonly loadMs: number;
  /** This Chromium's resident bytes with the harness page open, before the model was loaded. */
  readonly residentBeforeLoad: number;
  /** Bytes this Chromium's processes hold now (resident, summed), for the memory a model takes. */
  residentBytes(): Promise<number>;
  dispose(): Promise<void>;
}

type Failure = { error: { code: string; message: string } };
const failed = (r: unknown): r is Failure => typeof r === 'object' && r !== null && 'error' in r;
function ok<T>(r: T | Failure, what: string): T {
  if (failed(r)) throw new Error(`${what}: ${r.error.code}: ${r.error.message}`);
  return r;
}

/**
 * Resident bytes of Chromium processes (Linux /proc), 0 where that cannot be read: every Chromium
 * process, or with `profileDir` only the browser started with that profile and its descendants (so
 * another Chromium on the machine does not count).
 */
export async function chromiumResidentBytes(profileDir?: string): Promise<number> {
  const processes: { pid: string; parent: string; rss: number; ours: boolean }[] = [];
  for (const pid of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(pid)) continue;
    const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
    if (!/^Name:\s*(chromium|chrome)/m.test(status)) continue;
    const rss = /^VmRSS:\s*(\d+) kB/m.exec(status);
    const parent = /^PPid:\s*(\d+)/m.exec(status)?.[1] ?? '';
    const ours = profileDir ? (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).includes(`--user-data-dir=${profileDir}`) : true;
    processes.push({ pid, parent, rss: rss ? Number(rss[1]) * 1024 : 0, ours });
  }
  const counted = new Set(processes.filter((p) => p.ours).map((p) => p.pid));
  // Children (zygotes, renderers, utilities) are found from their parents: their command lines need not name the profile.
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of processes) {
      if (!counted.has(p.pid) && counted.has(p.parent)) {
        counted.add(p.pid);
        grew = true;
      }
    }
  }
  return processes.filter((p) => counted.has(p.pid)).reduce((n, p) => n + p.rss, 0);
}

/** Options of {@link openBrowserGenerator}. */
export interface BrowserGeneratorOptions {
  /** The context budget in tokens. Default 4,096. */
  contextTokens?: number;
  /** An ONNX folder's weights: `q8` (default, `onnx/model_quantized.onnx`), `q4`, `q4f16` or `fp32`. Ignored for a GGUF file. */
  dtype?: OnnxGeneratorEntry['dtype'];
  /** Where the harness page is built. Default `dist-harness/`. */
  harnessDir?: string;
  /** The harness is already built in `harnessDir`: do not build it again. Default false. */
  prebuilt?: boolean;
}

/** The files an ONNX model folder serves: its configs, tokenizer and the weights of `dtype`. */
async function onnxFolderFiles(folder: string, dtype: OnnxGeneratorEntry['dtype']): Promise<Map<string, Uint8Array>> {
  const files = new Map<string, Uint8Array>();
  for (const path of ['config.json', 'generation_config.json', 'tokenizer.json', 'tokenizer_config.json', generatorWeightsFile(dtype)]) {
    const bytes = await readFile(join(folder, path)).catch(() => undefined);
    if (bytes) files.set(path, new Uint8Array(bytes));
    else if (path !== 'generation_config.json') throw new Error(`${folder}: no ${path}; pass a transformers.js model folder with the ${dtype} weights (tools/gguf-to-onnx.py writes one)`);
  }
  return files;
}

/** The model's files as the mirror serves them and the catalogue entry that names them. */
async function servedModel(path: string, options: BrowserGeneratorOptions): Promise<{ repo: string; files: Map<string, Uint8Array>; entry: GeneratorModelEntry }> {
  const contextTokens = options.contextTokens ?? 4096;
  const name = basename(path);
  const repo = `local/${name.replace(/\.gguf$/i, '').replace(/[^A-Za-z0-9._-]/g, '-')}`;
  if ((await stat(path)).isDirectory()) {
    const dtype = options.dtype ?? 'q8';
    const entry = localGenerator({ folder: repo, contextTokens, dtype, label: `${name} (${dtype})` });
    return { repo, files: await onnxFolderFiles(path, dtype), entry };
  }
  const entry = localGgufGenerator({ folder: repo, file: name, contextTokens, label: name });
  return { repo, files: new Map([[name, new Uint8Array(await readFile(path))]]), entry };
}

/**
 * Opens Chromium on the harness page and loads `path` in its generate worker: a `.gguf` file, or a
 * transformers.js ONNX model folder (config.json, tokenizer files, `onnx/model*.onnx`) with the weights
 * of `options.dtype`.
 *
 * @example const generator = await openBrowserGenerator('~/.cache/docqa-models/smollm2-135m-instruct/SmolLM2-135M-Instruct.Q4_1.gguf');
 * @example const onnx = await openBrowserGenerator('~/.cache/docqa-models/smollm2-135m-instruct-onnx', { dtype: 'q4' });
 */
export async function openBrowserGenerator(path: string, options: BrowserGeneratorOptions = {}): Promise<BrowserGenerator> {
  const { repo, files, entry } = await servedModel(resolve(path), options);
  const harnessDir = options.harnessDir ?? 'dist-harness';
  if (!options.prebuilt) await buildHarness(harnessDir);
  let hub: HubServer | undefined;
  let app: OpenHarness | undefined;
  try {
    hub = await startHubServer(new Map([[repo, files]]));
    app = await openHarness(harnessDir);
    const page = app.page;
    const profileDir = app.session.profileDir;
    const residentBeforeLoad = await chromiumResidentBytes(profileDir);
    const t0 = performance.now();
    const { loaded } = ok(await page.evaluate(([m, s]) => window.harness.loadGenerator(m, s), [entry, { kind: 'mirror', baseUrl: hub.url }] as const), `loading ${basename(path)}`);
    const loadMs = performance.now() - t0;
    const counts = new Map<string, number>();
    const timings: BrowserTiming[] = [];
    const opened = { hub, app };
    return {
      loaded,
      timings,
      loadMs,
      residentBeforeLoad,
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
      residentBytes: () => chromiumResidentBytes(profileDir),
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
