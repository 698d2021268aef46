/**
 * The text-generation models the app knows (the WASM fallback generator, `src/models/generator/transformers-generator.ts`),
 * with what each model card says: files, context window, languages.
 */
import { DocQaError } from '../core/errors.ts';
import { asModelId, type ModelId } from '../core/ids.ts';
import { localEntry, type CatalogueEntry } from './catalogue.ts';

/**
 * A text-generation (causal LM) model with a chat template, run by transformers.js on WASM (or WebGPU)
 * when WebLLM cannot run (`src/models/generator/transformers-generator.ts`): the fallback generator.
 */
export interface GeneratorModelEntry extends CatalogueEntry {
  /**
   * Weights file variant: `q8` is `onnx/model_quantized.onnx` (transformers.js's WASM default), `q4`
   * `onnx/model_q4.onnx`, `q4f16` `onnx/model_q4f16.onnx` (needs fp16: WebGPU with `shader-f16`), `fp32`
   * `onnx/model.onnx`.
   */
  dtype: 'q8' | 'q4' | 'q4f16' | 'fp32';
  /**
   * The most tokens the app gives the model, prompt and answer together (the context budget): at most
   * the model's own context window, often less on WASM, where prefill time and the KV cache grow with it.
   */
  contextTokens: number;
  /** BCP 47 codes; `[]` when unknown. */
  languages: string[];
}

/** The weights file transformers.js loads for `dtype` (`onnx/model{suffix}.onnx`, single-file exports). */
export function generatorWeightsFile(dtype: GeneratorModelEntry['dtype']): string {
  const suffix = { q8: '_quantized', q4: '_q4', q4f16: '_q4f16', fp32: '' }[dtype];
  return `onnx/model${suffix}.onnx`;
}

export const QWEN2_5_0_5B_INSTRUCT: GeneratorModelEntry = {
  id: asModelId('qwen2.5-0.5b-instruct'),
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
  // The card: "multilingual support for over 29 languages, including Chinese, English, French, Spanish,
  // Portuguese, German, Italian, Russian, Japanese, Korean, Vietnamese, Thai, Arabic, and more".
  languages: ['zh', 'en', 'fr', 'es', 'pt', 'de', 'it', 'ru', 'ja', 'ko', 'vi', 'th', 'ar'],
};

/** The text-generation models offered for the WASM fallback, the default first. */
export const GENERATOR_CATALOGUE: readonly GeneratorModelEntry[] = [QWEN2_5_0_5B_INSTRUCT];

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
  dtype?: GeneratorModelEntry['dtype'];
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
export function localGenerator(config: LocalGeneratorConfig): GeneratorModelEntry {
  if (!Number.isInteger(config.contextTokens) || config.contextTokens < 16) {
    throw new DocQaError('invalid-setting', `generator folder ${config.folder}: contextTokens must be a whole number of at least 16, not ${config.contextTokens}`);
  }
  const dtype = config.dtype ?? 'fp32';
  return {
    ...localEntry(config.folder, dtype, ['config.json', 'generation_config.json', 'tokenizer.json', 'tokenizer_config.json', generatorWeightsFile(dtype)], config.label ?? config.folder),
    contextTokens: config.contextTokens,
    languages: config.languages ?? [],
  };
}
