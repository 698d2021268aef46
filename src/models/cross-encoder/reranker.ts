/**
 * The reranker's pure core: loads a cross-encoder (a sequence-classification model with one label,
 * such as ms-marco-MiniLM-L-6-v2) with transformers.js from the hub, a mirror, a local folder or the
 * model cache (`models/model-source.ts`, shared with the embedder), and scores (question, passage)
 * pairs. Runs in Node (evaluation, tests, bench) and in a worker; it never touches the DOM.
 *
 * **Scores** are the model's raw logit for its one label, with no sigmoid: ms-marco cross-encoders give
 * logits several units either side of 0 (the card's example: 8.6 for a relevant pair, −4.3 for an irrelevant one). A sigmoid
 * would not change the order and squashes the top of the scale (8 and 11 become 0.99966 and 0.99998), where a
 * threshold on relevance has to tell passages apart. Compare scores of one model only.
 *
 * **Long inputs are truncated, never split.** The model sees `[CLS] question [SEP] passage [SEP]` of at
 * most `model.maxTokens` tokens (512 for the ms-marco models, what they were trained on). A longer pair
 * keeps the whole question and the passage's first tokens, and the closing `[SEP]` (Hugging Face's
 * `truncation: 'only_second'`; transformers.js's own truncation would cut the closing separator off).
 * Only a question longer than half the input is cut too (to its first half of the room). Reading a
 * passage's first 512 tokens is what cross-encoder rerankers are trained and evaluated with, and the
 * app's chunks (at most 1,500 characters, ~300–400 tokens) fit whole; the embedder, whose vector must
 * stand for the whole chunk, splits instead.
 */
import { AutoModelForSequenceClassification, Tensor, type PreTrainedModel, type PreTrainedTokenizer } from '@huggingface/transformers';
import { DocQaError } from '../../core/errors.ts';
import type { RerankerModel } from '../catalogue.ts';
import { explainModelLoadError, type LoadOptions, type ModelSource } from '../model-source.ts';
import { loadPretrained } from '../pretrained.ts';

export interface ScoreOptions {
  /** Pairs per inference call. Default 16; range 1–256. Pairs are batched in order of length. */
  batchSize?: number;
}

export interface Reranker {
  readonly model: RerankerModel;
  /**
   * One relevance score (the model's logit) per passage, for the pair (query, passage), in input order.
   * Passages longer than the model's input are truncated (see the module comment).
   */
  score(query: string, passages: readonly string[], options?: ScoreOptions): Promise<Float32Array>;
  /** Frees the inference session. */
  dispose(): Promise<void>;
}

/** Encoder families that transformers.js runs with a sequence-classification head. */
const CROSS_ENCODER_TYPES = new Set(['bert', 'xlm-roberta', 'roberta', 'distilbert', 'electra', 'modernbert', 'mpnet']);

interface ClassifierConfig {
  model_type?: string;
  architectures?: string[];
  id2label?: Record<string, string>;
  num_labels?: number;
}

/** Refuses a config that is not a one-label sequence classifier, saying what it is instead. */
function checkConfig(model: RerankerModel, config: ClassifierConfig): void {
  const what = `reranker: ${model.repo}/config.json`;
  if (!config.model_type || !CROSS_ENCODER_TYPES.has(config.model_type)) {
    throw new DocQaError('model-unsupported', `${what} has model_type "${config.model_type ?? '(none)'}"; supported cross-encoders: ${[...CROSS_ENCODER_TYPES].join(', ')}`);
  }
  const architecture = config.architectures?.[0] ?? '(none)';
  if (!architecture.endsWith('ForSequenceClassification')) {
    throw new DocQaError('model-unsupported', `${what} describes ${architecture}, not a cross-encoder: choose a model with a sequence-classification head (…ForSequenceClassification), such as ms-marco-MiniLM-L-6-v2`);
  }
  const labels = config.id2label ? Object.keys(config.id2label).length : (config.num_labels ?? 1);
  if (labels !== 1) {
    throw new DocQaError('model-unsupported', `${what} has ${labels} labels; a reranker gives one relevance score (one label)`);
  }
}

/** Turns a loading failure into a DocQaError that names the file or says what is wrong. */
export function explainRerankerLoadError(err: unknown, model: RerankerModel, source: ModelSource): DocQaError {
  return explainModelLoadError(err, model, source, 'reranker');
}

/**
 * Loads the cross-encoder's tokenizer and weights from `options.source` and returns a {@link Reranker}.
 * Throws DocQaError 'model-files-missing' (naming the file), 'model-unsupported' (not a one-label
 * sequence classifier) or 'model-output-invalid' (a test pair scored at load is NaN or ±Infinity).
 *
 * @example
 * const reranker = await loadReranker(MS_MARCO_MINILM_L6, { source: { kind: 'hub' } });
 * const scores = await reranker.score('when is the rent due', passages.map((p) => p.text));
 */
export async function loadReranker(model: RerankerModel, options: LoadOptions): Promise<Reranker> {
  const { tokenizer, network } = await loadPretrained<ClassifierConfig>(model, options, {
    modelClass: AutoModelForSequenceClassification,
    checkConfig: (config) => checkConfig(model, config),
    explain: (err) => explainRerankerLoadError(err, model, options.source),
  });
  const reranker = createReranker(model, tokenizer, network);
  await reranker.score('ready', ['ready']); // refuses a model whose output is wrong before it ranks anything
  options.onProgress?.({ type: 'ready' });
  return reranker;
}

/** One pair's encoding, as the tokenizer returns it without tensors: `input_ids`, `attention_mask`, maybe `token_type_ids`. */
type Encoding = Record<string, number[]>;

/** Where `part` occurs in `ids` (searching from `from` in direction `step`), or -1. */
function findRun(ids: readonly number[], part: readonly number[], fromEnd: boolean): number {
  const last = ids.length - part.length;
  for (let n = 0; n <= last; n++) {
    const s = fromEnd ? last - n : n;
    let i = 0;
    while (i < part.length && ids[s + i] === part[i]) i++;
    if (i === part.length) return s;
  }
  return -1;
}

/** Removes positions `[start, end)` from every array of the encoding. */
function cut(encoding: Encoding, start: number, end: number): void {
  if (end > start) for (const key of Object.keys(encoding)) encoding[key]!.splice(start, end - start);
}

/**
 * Fits a pair's encoding into `maxTokens` the way the module comment says: the passage's tail goes
 * first, the question's only when it alone would take more than half the room. The question's and the
 * passage's tokens are found in the pair encoding by their own ids; when they cannot be (a tokenizer
 * that tokenizes pairs differently), the sequence's tail is cut before its last (closing) token.
 */
export function truncatePair(encoding: Encoding, queryIds: readonly number[], passageIds: readonly number[], maxTokens: number): void {
  const ids = encoding.input_ids!;
  const total = ids.length;
  if (total <= maxTokens) return;
  const specials = total - queryIds.length - passageIds.length;
  const room = Math.max(2, maxTokens - specials);
  let passageKeep = passageIds.length;
  let queryKeep = queryIds.length;
  if (queryKeep + passageKeep > room) {
    passageKeep = Math.max(room - queryKeep, Math.min(passageIds.length, Math.floor(room / 2)));
    queryKeep = room - passageKeep;
  }
  const pStart = findRun(ids, passageIds, true);
  const qStart = pStart < 0 ? -1 : findRun(ids.slice(0, pStart), queryIds, false);
  if (specials < 0 || pStart < 0 || qStart < 0) {
    cut(encoding, maxTokens - 1, total - 1);
    return;
  }
  cut(encoding, pStart + passageKeep, pStart + passageIds.length); // the later range first: indexes stay valid
  cut(encoding, qStart + queryKeep, qStart + queryIds.length);
}

/** Refuses scores that are not finite numbers: a broken model must not reorder passages. */
export function checkScores(scores: Float32Array, expected: number, modelId: string): void {
  if (scores.length !== expected) {
    throw new DocQaError('model-output-invalid', `reranker: ${modelId} gave ${scores.length} scores for ${expected} pairs`);
  }
  for (let i = 0; i < scores.length; i++) {
    if (!Number.isFinite(scores[i])) {
      throw new DocQaError('model-output-invalid', `reranker: ${modelId} gave a score of ${scores[i]} for pair ${i + 1}: the model files are damaged or not a cross-encoder; load the model again or choose another`);
    }
  }
}

function createReranker(model: RerankerModel, tokenizer: PreTrainedTokenizer, network: PreTrainedModel): Reranker {
  const encodeOnly = (text: string) => tokenizer.encode(text, { add_special_tokens: false });

  /** The pair's encoding, fitted to the model's input. */
  function encodePair(query: string, queryIds: readonly number[], passage: string): Encoding {
    const encoding = tokenizer(query, { text_pair: passage, return_tensor: false }) as unknown as Encoding;
    if (encoding.input_ids!.length > model.maxTokens) truncatePair(encoding, queryIds, encodeOnly(passage), model.maxTokens);
    return encoding;
  }

  /** Right-padded int64 tensors of a batch of encodings. */
  function tensors(batch: readonly Encoding[]): Record<string, Tensor> {
    const length = Math.max(...batch.map((e) => e.input_ids!.length));
    const out: Record<string, Tensor> = {};
    for (const key of Object.keys(batch[0]!)) {
      const pad = key === 'input_ids' ? tokenizer.pad_token_id : 0;
      const data = new BigInt64Array(batch.length * length).fill(BigInt(pad));
      batch.forEach((e, b) => e[key]!.forEach((v, t) => (data[b * length + t] = BigInt(v))));
      out[key] = new Tensor('int64', data, [batch.length, length]);
    }
    return out;
  }

  async function run(batch: readonly Encoding[]): Promise<Float32Array> {
    const output = (await network(tensors(batch))) as Record<string, Tensor | undefined>;
    const logits = output.logits;
    if (!logits || logits.dims.length !== 2 || logits.dims[0] !== batch.length || logits.dims[1] !== 1) {
      throw new DocQaError('model-unsupported', `reranker: ${model.repo} gives no one-label logits [pairs, 1] (outputs: ${Object.entries(output).map(([k, t]) => `${k} [${t?.dims.join(', ')}]`).join(', ')})`);
    }
    return Float32Array.from(logits.data as Float32Array);
  }

  return {
    model,
    async score(query, passages, options = {}) {
      const batchSize = Math.max(1, Math.min(256, Math.floor(options.batchSize ?? 16)));
      const scores = new Float32Array(passages.length);
      if (passages.length === 0) return scores;
      const queryIds = encodeOnly(query);
      const encodings = passages.map((p) => encodePair(query, queryIds, p));
      // Shortest first, so a batch pads to lengths near its own (padding never changes a pair's score).
      const order = encodings.map((_, i) => i).sort((a, b) => encodings[a]!.input_ids!.length - encodings[b]!.input_ids!.length || a - b);
      for (let i = 0; i < order.length; i += batchSize) {
        const slice = order.slice(i, i + batchSize);
        const batchScores = await run(slice.map((j) => encodings[j]!));
        slice.forEach((j, b) => (scores[j] = batchScores[b]!));
      }
      checkScores(scores, passages.length, model.id);
      return scores;
    },
    async dispose() {
      await network.dispose();
    },
  };
}
