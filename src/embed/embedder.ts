/**
 * The embedder's pure core: loads a model with transformers.js from the hub, a mirror or a local folder,
 * and turns passages and questions into vectors the way the model's card says (prefixes, pooling,
 * normalisation from `src/models/catalogue.ts`). Runs in Node (evaluation, tests) and in a worker; it
 * never touches the DOM.
 *
 * Pooling is done here from `last_hidden_state` and the attention mask (`pool.ts`), not by the
 * feature-extraction pipeline, so every model gets exactly its card's rule and the output is checked
 * before anyone stores it. Inputs are never truncated: a text longer than the model's `maxTokens` is
 * refused ('chunk-too-long'); `fit-chunks.ts` splits such texts before they get here.
 */
import { AutoConfig, AutoModel, AutoTokenizer, env, type PreTrainedModel, type PreTrainedTokenizer, type ProgressInfo, type Tensor } from '@huggingface/transformers';
import { DocQaError } from '../core/errors.ts';
import type { EmbeddingModel } from '../models/catalogue.ts';
import { guardDownloads } from '../models/download-guard.ts';
import { KEY_ORIGIN, type TransformersCache } from '../models/model-cache.ts';
import { checkVectors, poolHidden } from './pool.ts';

/** Where the model files come from. */
export type ModelSource =
  /** huggingface.co, `<repo>/resolve/<revision>/<file>`. */
  | { kind: 'hub' }
  /** A self-hosted mirror: `<baseUrl><pathTemplate><file>`; pathTemplate defaults to the hub's `{model}/resolve/{revision}/`. */
  | { kind: 'mirror'; baseUrl: string; pathTemplate?: string }
  /** A folder holding `<repo>/config.json`, ...: a path in Node, a URL path served by the app in a browser. Nothing remote. */
  | { kind: 'folder'; root: string }
  /** Only the model cache (`LoadOptions.cache`): files downloaded before or imported from a folder. Never the network. */
  | { kind: 'cache' };

/** Load progress, per file and in total (bytes; `total` is 0 until a size is known). */
export type LoadProgress =
  | { type: 'file'; file: string; loaded: number; total: number }
  | { type: 'file-done'; file: string }
  | { type: 'total'; loaded: number; total: number }
  | { type: 'ready' };

export interface LoadOptions {
  source: ModelSource;
  /** Inference device; default: transformers.js's own (CPU in Node, WASM in a browser). */
  device?: 'webgpu' | 'wasm' | 'cpu';
  onProgress?: (event: LoadProgress) => void;
  /**
   * The model cache bound to this model and source (`bindCache` in `models/model-cache.ts`): every file
   * is looked up there first, and each file downloaded whole is stored. Default: none (no caching).
   */
  cache?: TransformersCache;
  /**
   * The fetch downloads go through, wrapped by `guardDownloads` (a cut download fails clearly). Default:
   * transformers.js's `env.fetch` as it is. Ignored for the `cache` source, which never fetches.
   */
  fetch?: (input: string | URL, init?: RequestInit) => Promise<Response>;
}

/** Vectors of several texts: one contiguous buffer (transfer `data.buffer`), and a view per text. */
export interface EmbeddedTexts {
  /** `count * dims` floats, text i at `[i * dims, (i + 1) * dims)`. */
  data: Float32Array;
  dims: number;
  /** Subarrays of `data`, one per text, in input order. */
  vectors: Float32Array[];
}

export interface Embedder {
  readonly model: EmbeddingModel;
  /** Tokens the model sees for this text with its role's prefix, special tokens included. */
  countTokens(text: string, role: 'query' | 'passage'): number;
  /** Embeds passages `batchSize` at a time (default 16; range 1–256), with the passage prefix. */
  embedPassages(texts: readonly string[], options?: { batchSize?: number }): Promise<EmbeddedTexts>;
  /** Embeds one question with the query prefix. */
  embedQuery(text: string): Promise<Float32Array>;
  /** Frees the inference session. */
  dispose(): Promise<void>;
}

/** Encoder families whose `last_hidden_state` the pooling rules of the catalogue apply to. */
const ENCODER_TYPES = new Set(['bert', 'xlm-roberta', 'roberta', 'distilbert', 'mpnet', 'electra', 'nomic_bert', 'modernbert']);

const HUB_HOST = 'https://huggingface.co/';
const HUB_PATH_TEMPLATE = '{model}/resolve/{revision}/';

const withSlash = (s: string) => (s.endsWith('/') ? s : `${s}/`);

/**
 * Sets transformers.js's global `env` for one source, every field explicitly, so a load never inherits
 * a previous source's settings. `env` is global: loads from different sources must not overlap.
 */
export function configureSource(source: ModelSource, cache?: TransformersCache): void {
  env.useFSCache = false; // Node: never write into node_modules
  // transformers.js's own browser cache is keyed by the remote URL; the app's model cache replaces it.
  env.useBrowserCache = false;
  env.useCustomCache = cache !== undefined && source.kind !== 'folder';
  env.customCache = env.useCustomCache ? (cache ?? null) : null;
  if (source.kind === 'folder') {
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    env.localModelPath = withSlash(source.root);
    return;
  }
  env.allowLocalModels = false;
  env.allowRemoteModels = true;
  // The cache source: transformers.js asks for the cache's own keys (a reserved domain); a miss is a 404.
  env.remoteHost = source.kind === 'hub' ? HUB_HOST : source.kind === 'cache' ? KEY_ORIGIN : withSlash(source.baseUrl);
  env.remotePathTemplate = source.kind === 'mirror' && source.pathTemplate ? source.pathTemplate : HUB_PATH_TEMPLATE;
}

/**
 * The URL prefix transformers.js builds for `model`'s files from `source` (its `pathJoin` of
 * `remoteHost` and the filled template), which the model cache maps to its keys. Undefined for a folder.
 */
export function remotePrefixFor(model: Pick<EmbeddingModel, 'repo' | 'revision'>, source: ModelSource): string | undefined {
  if (source.kind === 'folder') return undefined;
  const host = source.kind === 'hub' ? HUB_HOST : source.kind === 'cache' ? KEY_ORIGIN : withSlash(source.baseUrl);
  const template = source.kind === 'mirror' && source.pathTemplate ? source.pathTemplate : HUB_PATH_TEMPLATE;
  const path = template.replaceAll('{model}', model.repo).replaceAll('{revision}', encodeURIComponent(model.revision));
  return `${host.replace(/\/$/, '')}/${path.replace(/^\//, '').replace(/\/$/, '')}/`;
}

/** The cache source's fetch: nothing leaves the device; a file not in the cache is missing. */
const nothingFetched = async () => new Response('not in the model cache', { status: 404, statusText: 'Not Found' });

/** Maps transformers.js progress to {@link LoadProgress}, totalling bytes over every file seen. */
function progressMapper(onProgress: ((event: LoadProgress) => void) | undefined) {
  const files = new Map<string, { loaded: number; total: number }>();
  const emitTotal = () => {
    let loaded = 0;
    let total = 0;
    for (const f of files.values()) {
      loaded += f.loaded;
      total += f.total;
    }
    onProgress?.({ type: 'total', loaded, total });
  };
  return (info: ProgressInfo) => {
    if (!onProgress) return;
    if (info.status === 'progress') {
      files.set(info.file, { loaded: info.loaded, total: info.total });
      onProgress({ type: 'file', file: info.file, loaded: info.loaded, total: info.total });
      emitTotal();
    } else if (info.status === 'done') {
      const f = files.get(info.file);
      if (f) files.set(info.file, { loaded: f.total || f.loaded, total: f.total || f.loaded });
      onProgress({ type: 'file-done', file: info.file });
      emitTotal();
    }
  };
}

/** Turns a loading failure into a DocQaError that names the file or says what is wrong. */
export function explainLoadError(err: unknown, model: EmbeddingModel, source: ModelSource): DocQaError {
  if (err instanceof DocQaError) return err;
  const message = err instanceof Error ? err.message : String(err);
  const where =
    source.kind === 'folder'
      ? `folder ${withSlash(source.root)}${model.repo}`
      : `${model.repo} (${source.kind === 'hub' ? 'hub' : source.kind === 'cache' ? 'model files kept on this device' : source.baseUrl})`;
  // transformers.js: `Could not locate file: "<url>".` (remote 404), `file was not found locally at "<path>"`.
  const missing = /Could not locate file: "([^"]+)"/.exec(message) ?? /not found locally at "([^"]+)"/.exec(message);
  if (missing) {
    const path = missing[1]!;
    const at = path.lastIndexOf(`${model.repo}/`);
    const inRepo = at >= 0 ? path.slice(at + model.repo.length + 1) : path;
    const file = inRepo.replace(/^resolve\/[^/]+\//, '');
    return new DocQaError('model-files-missing', `embedder: ${where} has no ${file}: add the file (or choose the folder that holds it) and load the model again`, { cause: err });
  }
  if (/Unsupported model type|Unknown model class/.test(message)) {
    return new DocQaError('model-unsupported', `embedder: ${where}: ${message}`, { cause: err });
  }
  return new DocQaError('internal', `embedder: loading ${where} failed: ${message}`, { cause: err });
}

/**
 * Loads the model's tokenizer and weights from `options.source` and returns an {@link Embedder}.
 * Throws DocQaError 'model-files-missing' (naming the file), 'model-unsupported' (not an encoder with
 * `last_hidden_state`), or 'model-output-invalid' (the first vector is NaN or of the wrong length).
 *
 * @example
 * const embedder = await loadEmbedder(BGE_SMALL_EN, { source: { kind: 'hub' }, onProgress: console.log });
 * const q = await embedder.embedQuery('when is the rent due');
 */
export async function loadEmbedder(model: EmbeddingModel, options: LoadOptions): Promise<Embedder> {
  configureSource(options.source, options.cache);
  // Files are fetched only during the load: the fetch is set for it and put back after it.
  const previousFetch = env.fetch;
  if (options.source.kind === 'cache') env.fetch = nothingFetched;
  else if (options.fetch) env.fetch = guardDownloads(options.fetch);
  const progress_callback = progressMapper(options.onProgress);
  const common = { revision: model.revision, progress_callback };
  let tokenizer: PreTrainedTokenizer;
  let network: PreTrainedModel;
  try {
    const config = (await AutoConfig.from_pretrained(model.repo, common)) as { model_type?: string };
    if (!config.model_type || !ENCODER_TYPES.has(config.model_type)) {
      throw new DocQaError(
        'model-unsupported',
        `embedder: ${model.repo}/config.json has model_type "${config.model_type ?? '(none)'}"; supported encoders: ${[...ENCODER_TYPES].join(', ')}`,
      );
    }
    tokenizer = await AutoTokenizer.from_pretrained(model.repo, common);
    network = await AutoModel.from_pretrained(model.repo, { ...common, dtype: model.dtype, ...(options.device ? { device: options.device } : {}) });
  } catch (err) {
    throw explainLoadError(err, model, options.source);
  } finally {
    env.fetch = previousFetch;
  }
  const embedder = createEmbedder(model, tokenizer, network);
  await embedder.embedQuery('ready'); // refuses a model whose output is wrong before anything is stored
  options.onProgress?.({ type: 'ready' });
  return embedder;
}

function createEmbedder(model: EmbeddingModel, tokenizer: PreTrainedTokenizer, network: PreTrainedModel): Embedder {
  const prefixed = (text: string, role: 'query' | 'passage') => (role === 'query' ? model.queryPrefix : model.passagePrefix) + text;

  /** Vectors of texts already prefixed, as one batch. */
  async function run(texts: string[]): Promise<Float32Array> {
    const inputs = tokenizer(texts, { padding: true, truncation: false }) as Record<string, Tensor>;
    const mask = inputs.attention_mask!;
    const [batch, tokens] = mask.dims as [number, number];
    if (tokens > model.maxTokens) {
      const maskData = mask.data as BigInt64Array;
      for (let b = 0; b < batch; b++) {
        let n = 0;
        for (let t = 0; t < tokens; t++) n += Number(maskData[b * tokens + t]);
        if (n > model.maxTokens) {
          throw new DocQaError('chunk-too-long', `embedder: a text of ${n} tokens is longer than ${model.id}'s ${model.maxTokens}; split it (embed/fit-chunks) rather than truncate it: "${texts[b]!.slice(0, 60)}…"`);
        }
      }
    }
    const output = (await network(inputs)) as Record<string, Tensor | undefined>;
    const hidden = output.last_hidden_state;
    if (!hidden || hidden.dims.length !== 3) {
      throw new DocQaError('model-unsupported', `embedder: ${model.repo} gives no last_hidden_state [batch, tokens, hidden] (outputs: ${Object.keys(output).join(', ')})`);
    }
    const dims = hidden.dims[2]!;
    const vectors = poolHidden({ data: hidden.data as Float32Array, batch, tokens, hidden: dims, mask: mask.data as BigInt64Array }, model.pooling, model.normalize);
    checkVectors(vectors, batch, dims, model.dims, model.id);
    return vectors;
  }

  return {
    model,
    countTokens: (text, role) => tokenizer.encode(prefixed(text, role)).length,
    async embedPassages(texts, options = {}) {
      const batchSize = Math.max(1, Math.min(256, Math.floor(options.batchSize ?? 16)));
      const data = new Float32Array(texts.length * model.dims);
      for (let i = 0; i < texts.length; i += batchSize) {
        const batch = texts.slice(i, i + batchSize).map((t) => prefixed(t, 'passage'));
        data.set(await run(batch), i * model.dims);
      }
      const vectors = Array.from({ length: texts.length }, (_, i) => data.subarray(i * model.dims, (i + 1) * model.dims));
      return { data, dims: model.dims, vectors };
    },
    embedQuery: (text) => run([prefixed(text, 'query')]),
    async dispose() {
      await network.dispose();
    },
  };
}
