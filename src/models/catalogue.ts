/**
 * The models the app knows, with what each model card says about using it. Embedding models: pooling,
 * normalisation, query and passage prefixes, the longest input, and a published retrieval figure (the
 * embedder, `src/models/encoder/embedder.ts`, follows these fields; nothing about a model is assumed elsewhere).
 * Then the rerankers (cross-encoders); the text-generation models are in `generator-catalogue.ts`.
 */
import { DocQaError } from '../core/errors.ts';
import { asModelId, type ModelId } from '../core/ids.ts';

/** How token vectors become one text vector: the [CLS] token's vector, or the mask-weighted mean. */
export type Pooling = 'cls' | 'mean';

/** A file the model needs, with its download size. */
export interface ModelFile {
  /** Path inside the model folder, e.g. `onnx/model_quantized.onnx`. */
  path: string;
  /** Size in bytes; when `approximate`, a rounded figure for the download dialog, not a check. */
  bytes: number;
  approximate: boolean;
}

/** A published retrieval figure and where it was read. */
export interface RetrievalFigure {
  benchmark: string;
  metric: string;
  value: number;
  source: string;
}

/**
 * What every catalogue entry has, whatever runs it (the encoder, the cross-encoder, the text generator):
 * all the model host (`models/host/`) needs to load it, keep its files and name it.
 */
export interface CatalogueEntry {
  id: ModelId;
  /** Shown to the person. */
  label: string;
  /**
   * Where the files are: a hub repository (`Xenova/bge-small-en-v1.5`) for catalogue models, or a
   * folder name under the local root for local entries ({@link localEntry}).
   */
  repo: string;
  /** Hub revision (branch, tag or commit); `main` for local folders (unused there). */
  revision: string;
  /** The files downloaded for the entry's weights variant (`dtype`). */
  files: ModelFile[];
}

export interface EmbeddingModel extends CatalogueEntry {
  /** Weights file variant: `q8` is `onnx/model_quantized.onnx` (the WASM default), `fp32` is `onnx/model.onnx`. */
  dtype: 'q8' | 'fp32';
  /** Vector length. */
  dims: number;
  pooling: Pooling;
  /** L2-normalise the pooled vector (so dot product is cosine). */
  normalize: boolean;
  /** Put before a question ('' for none). */
  queryPrefix: string;
  /** Put before a passage ('' for none). */
  passagePrefix: string;
  /** Longest input in the model's own tokens, prefix and special tokens included. */
  maxTokens: number;
  /** BCP 47 codes, or `['multilingual']` for the ~100 languages of XLM-R based models. */
  languages: string[];
  /** A published retrieval figure from the model card, or null when none was found. */
  retrieval: RetrievalFigure | null;
  /** What it is good for, in a person's words (the model dialog shows it; the figure stays behind a toggle). */
  goodFor?: string;
}

export const BGE_SMALL_EN: EmbeddingModel = {
  id: asModelId('bge-small-en-v1.5'),
  label: 'BGE small (English)',
  repo: 'Xenova/bge-small-en-v1.5',
  revision: 'main',
  dtype: 'q8',
  // Sizes: not found in the reference material searched; rounded from the original repo (tokenizer.json
  // 711 kB on BAAI/bge-small-en-v1.5) and from a 33M-parameter BERT quantised to 8 bits.
  files: [
    { path: 'config.json', bytes: 750, approximate: true },
    { path: 'tokenizer_config.json', bytes: 1_300, approximate: true },
    { path: 'tokenizer.json', bytes: 711_000, approximate: true },
    { path: 'onnx/model_quantized.onnx', bytes: 34_000_000, approximate: true },
  ],
  dims: 384,
  pooling: 'cls',
  normalize: true,
  // The card: add the instruction to short queries for passage retrieval; passages get nothing.
  queryPrefix: 'Represent this sentence for searching relevant passages: ',
  passagePrefix: '',
  maxTokens: 512,
  languages: ['en'],
  goodFor: 'English documents. Small and quick to prepare a library: the one to start with.',
  retrieval: {
    benchmark: 'MTEB ArguAna (BEIR)',
    metric: 'nDCG@10',
    value: 59.55,
    source: 'model-index of the BAAI/bge-small-en-v1.5 model card (README.md), as mirrored at paddlenlp.readthedocs.io/zh/latest/website/BAAI/bge-small-en-v1.5',
  },
};

export const MULTILINGUAL_E5_SMALL: EmbeddingModel = {
  id: asModelId('multilingual-e5-small'),
  label: 'Multilingual E5 small (~100 languages)',
  repo: 'Xenova/multilingual-e5-small',
  revision: 'main',
  dtype: 'q8',
  // Sizes: not found in the reference material searched; rounded from a 118M-parameter XLM-R model
  // (a 250k-piece vocabulary) quantised to 8 bits and its SentencePiece tokenizer.json.
  files: [
    { path: 'config.json', bytes: 700, approximate: true },
    { path: 'tokenizer_config.json', bytes: 500, approximate: true },
    { path: 'tokenizer.json', bytes: 17_000_000, approximate: true },
    { path: 'onnx/model_quantized.onnx', bytes: 118_000_000, approximate: true },
  ],
  dims: 384,
  pooling: 'mean',
  normalize: true,
  // The card: every input starts with "query: " or "passage: ", in any language.
  queryPrefix: 'query: ',
  passagePrefix: 'passage: ',
  maxTokens: 512,
  languages: ['multilingual'],
  goodFor: 'Documents in other languages than English, or in several (about 100). Larger, and slower to prepare a library.',
  retrieval: {
    benchmark: 'Mr. TyDi (11 languages)',
    metric: 'MRR@10',
    value: 64.4,
    source: 'Mr. TyDi table of the intfloat multilingual-e5 model cards (row multilingual-e5-small), as mirrored at deepinfra.com/intfloat/multilingual-e5-large',
  },
};

/** The models offered for download, the default first. */
export const CATALOGUE: readonly EmbeddingModel[] = [BGE_SMALL_EN, MULTILINGUAL_E5_SMALL];

/** The catalogue model with this id, or undefined. */
export function findModel(id: ModelId): EmbeddingModel | undefined {
  return CATALOGUE.find((m) => m.id === id);
}

/** Total download size of a model (an embedding model or a reranker), and whether any part of it is approximate. */
export function downloadSize(model: Pick<EmbeddingModel, 'files'>): { bytes: number; approximate: boolean } {
  return {
    bytes: model.files.reduce((sum, f) => sum + f.bytes, 0),
    approximate: model.files.some((f) => f.approximate),
  };
}

/** What a person (or a test) says about a model folder they bring themselves. */
export interface LocalModelConfig {
  /** Folder name under the local root (the root is given when loading: `{ kind: 'folder', root }`). */
  folder: string;
  dims: number;
  pooling: Pooling;
  /** Default true. */
  normalize?: boolean;
  /** Default ''. */
  queryPrefix?: string;
  /** Default ''. */
  passagePrefix?: string;
  /** Default 512. */
  maxTokens?: number;
  /** Default `fp32` (`onnx/model.onnx`). */
  dtype?: 'q8' | 'fp32';
  /** Default `[]` (unknown). */
  languages?: string[];
}

/**
 * What every catalogue entry for a model folder (`local:<folder>`) shares: its id, label, repo and
 * revision, the dtype, and its files with unknown sizes. Embedding models, rerankers and generators add
 * their own fields.
 */
export function localEntry<D extends string>(folder: string, dtype: D, files: readonly string[], label = folder) {
  return { id: asModelId(`local:${folder}`), label, repo: folder, revision: 'main', dtype, files: files.map((path): ModelFile => ({ path, bytes: 0, approximate: true })) };
}

/**
 * A catalogue entry for a model folder on disk or served by a mirror without a hub layout: the
 * generated tiny test models and air-gapped installs. Its id is `local:<folder>`.
 *
 * @example localModel({ folder: 'tiny-encoder', dims: 32, pooling: 'mean' })
 */
export function localModel(config: LocalModelConfig): EmbeddingModel {
  const dtype = config.dtype ?? 'fp32';
  return {
    ...localEntry(config.folder, dtype, ['config.json', 'tokenizer.json', 'tokenizer_config.json', dtype === 'q8' ? 'onnx/model_quantized.onnx' : 'onnx/model.onnx']),
    dims: config.dims,
    pooling: config.pooling,
    normalize: config.normalize ?? true,
    queryPrefix: config.queryPrefix ?? '',
    passagePrefix: config.passagePrefix ?? '',
    maxTokens: config.maxTokens ?? 512,
    languages: config.languages ?? [],
    retrieval: null,
  };
}

/** What a model folder says about itself: `config.json`, and the sentence-transformers pooling file if any. */
export interface FolderFacts {
  /** The folder's name (its last path segment). */
  folder: string;
  config: { hidden_size?: number; max_position_embeddings?: number };
  /** `1_Pooling/config.json`, when the folder has one. */
  pooling?: { pooling_mode_cls_token?: boolean; pooling_mode_mean_tokens?: boolean };
  /** Whether `onnx/model.onnx` (fp32) is there; else `onnx/model_quantized.onnx` is used. */
  hasFp32: boolean;
  /** Which weights to use when the folder has both; default fp32 when `hasFp32`. */
  dtype?: 'q8' | 'fp32';
  /** sentence-transformers' `config_sentence_transformers.json`: the prompts put before queries and passages. */
  prompts?: Record<string, unknown>;
  /** sentence-transformers' `sentence_bert_config.json`: the longest input the model card uses. */
  sentenceBert?: { max_seq_length?: unknown };
}

/** A prompt string from sentence-transformers' `prompts`, the first of `keys` that is a string. */
function promptOf(prompts: Record<string, unknown> | undefined, keys: readonly string[]): string | undefined {
  for (const key of keys) if (typeof prompts?.[key] === 'string') return prompts[key];
  return undefined;
}

/**
 * A catalogue entry for any transformers.js model folder (`npm run eval -- --model <folder>`, a folder
 * the person imports): a folder named like a catalogue model (`bge-small-en-v1.5`) takes that model's
 * pooling and prefixes; otherwise dimensions come from `config.json`, pooling from
 * `1_Pooling/config.json` (mean when it is absent), prefixes from sentence-transformers' `prompts`
 * (none when absent) and the longest input from its `max_seq_length`, as the model card sets them.
 */
export function modelFromFolder(facts: FolderFacts): EmbeddingModel {
  const known = CATALOGUE.find((m) => m.repo.split('/').at(-1) === facts.folder);
  const dims = facts.config.hidden_size;
  if (!dims || !Number.isInteger(dims)) throw new DocQaError('model-unsupported', `model folder ${facts.folder}: config.json has no hidden_size, so the vector length is unknown`);
  const dtype = facts.dtype ?? (facts.hasFp32 ? 'fp32' : 'q8');
  const seqLength = facts.sentenceBert?.max_seq_length;
  const cardLength = typeof seqLength === 'number' && Number.isInteger(seqLength) && seqLength > 0 ? seqLength : undefined;
  return localModel({
    folder: facts.folder,
    dims,
    pooling: known?.pooling ?? (facts.pooling?.pooling_mode_cls_token ? 'cls' : 'mean'),
    queryPrefix: known?.queryPrefix ?? promptOf(facts.prompts, ['query']),
    passagePrefix: known?.passagePrefix ?? promptOf(facts.prompts, ['passage', 'document']),
    maxTokens: Math.min(known?.maxTokens ?? cardLength ?? 512, facts.config.max_position_embeddings ?? 512),
    dtype,
    languages: known?.languages,
  });
}

/**
 * A cross-encoder that scores (question, passage) pairs for reranking (`src/models/cross-encoder/reranker.ts`): a
 * sequence-classification model with one label, whose logit is the relevance score.
 */
export interface RerankerModel extends CatalogueEntry {
  /** Weights file variant: `q8` is `onnx/model_quantized.onnx`, `fp32` is `onnx/model.onnx`. */
  dtype: 'q8' | 'fp32';
  /**
   * Longest (question, passage) pair in the model's tokens, special tokens included: what it was trained
   * on. A longer pair keeps the question whole and the passage's first tokens (see the reranker).
   */
  maxTokens: number;
  /** BCP 47 codes; `[]` when unknown. */
  languages: string[];
  /** Ranking figures published on the model card; `[]` when none was found. */
  published: RetrievalFigure[];
  /** What it is good for, in a person's words. */
  goodFor?: string;
}

export const MS_MARCO_MINILM_L6: RerankerModel = {
  id: asModelId('ms-marco-MiniLM-L-6-v2'),
  label: 'MS MARCO MiniLM-L6 reranker (English)',
  repo: 'Xenova/ms-marco-MiniLM-L-6-v2',
  revision: 'main',
  dtype: 'q8',
  // Sizes: not found in the reference material searched; rounded from a 22.7M-parameter BERT (6 layers,
  // 384 hidden) quantised to 8 bits and the bert-base-uncased tokenizer.json (~711 kB).
  files: [
    { path: 'config.json', bytes: 800, approximate: true },
    { path: 'tokenizer_config.json', bytes: 1_300, approximate: true },
    { path: 'tokenizer.json', bytes: 711_000, approximate: true },
    { path: 'onnx/model_quantized.onnx', bytes: 23_000_000, approximate: true },
  ],
  // The card loads it with `CrossEncoder(..., max_length=512)`.
  maxTokens: 512,
  languages: ['en'],
  goodFor: 'Puts the passages that best answer an English question first. Adds a few seconds to each question on the processor.',
  published: [
    { benchmark: 'TREC Deep Learning 2019', metric: 'nDCG@10', value: 74.3, source: 'Performance table of the cross-encoder/ms-marco-MiniLM-L-6-v2 model card (huggingface.co), also at sbert.net/docs/pretrained-models/ce-msmarco.html' },
    { benchmark: 'MS MARCO passage dev', metric: 'MRR@10', value: 39.01, source: 'same table' },
  ],
};

/** The rerankers offered for download, the default first. */
export const RERANKER_CATALOGUE: readonly RerankerModel[] = [MS_MARCO_MINILM_L6];

/** The catalogue reranker with this id, or undefined. */
export function findReranker(id: ModelId): RerankerModel | undefined {
  return RERANKER_CATALOGUE.find((m) => m.id === id);
}

/** What a person (or a test) says about a cross-encoder folder they bring themselves. */
export interface LocalRerankerConfig {
  /** Folder name under the local root (the root is given when loading). */
  folder: string;
  /** Default 512. */
  maxTokens?: number;
  /** Default `fp32` (`onnx/model.onnx`). */
  dtype?: 'q8' | 'fp32';
  /** Default `[]` (unknown). */
  languages?: string[];
}

/**
 * A reranker entry for a cross-encoder folder: the generated tiny cross-encoder, air-gapped installs.
 * Its id is `local:<folder>`.
 *
 * @example localReranker({ folder: 'tiny-cross-encoder' })
 */
export function localReranker(config: LocalRerankerConfig): RerankerModel {
  const dtype = config.dtype ?? 'fp32';
  return {
    ...localEntry(config.folder, dtype, ['config.json', 'tokenizer.json', 'tokenizer_config.json', dtype === 'q8' ? 'onnx/model_quantized.onnx' : 'onnx/model.onnx']),
    maxTokens: config.maxTokens ?? 512,
    languages: config.languages ?? [],
    published: [],
  };
}

/**
 * A reranker entry for any cross-encoder folder (`npm run eval -- --reranker <folder>`): a folder named
 * like a catalogue reranker takes its input length and languages; the length never exceeds the
 * folder's `max_position_embeddings`.
 */
export function rerankerFromFolder(facts: Pick<FolderFacts, 'folder' | 'config' | 'hasFp32'>): RerankerModel {
  const known = RERANKER_CATALOGUE.find((m) => m.repo.split('/').at(-1) === facts.folder);
  return localReranker({
    folder: facts.folder,
    maxTokens: Math.min(known?.maxTokens ?? 512, facts.config.max_position_embeddings ?? 512),
    dtype: facts.hasFp32 ? 'fp32' : 'q8',
    languages: known?.languages,
  });
}
