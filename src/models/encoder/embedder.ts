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
import { AutoModel, type PreTrainedModel, type PreTrainedTokenizer, type Tensor } from '@huggingface/transformers';
import { DocQaError } from '../../core/errors.ts';
import type { EmbeddingModel } from '../catalogue.ts';
import { explainModelLoadError, type LoadOptions, type ModelSource } from '../model-source.ts';
import { loadPretrained } from '../pretrained.ts';
import { checkVectors, poolHidden } from './pool.ts';

// Sources, progress and load options are shared with the reranker (`models/model-source.ts`).
export { configureSource, remotePrefixFor, type LoadOptions, type LoadProgress, type ModelSource } from '../model-source.ts';

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
  /** Embeds passages `batchSize` at a time (default 16; range 1–256), texts of like length together, with the passage prefix. */
  embedPassages(texts: readonly string[], options?: { batchSize?: number }): Promise<EmbeddedTexts>;
  /** Embeds one question with the query prefix. */
  embedQuery(text: string): Promise<Float32Array>;
  /** Frees the inference session. */
  dispose(): Promise<void>;
}

/** Encoder families whose `last_hidden_state` the pooling rules of the catalogue apply to. */
const ENCODER_TYPES = new Set(['bert', 'xlm-roberta', 'roberta', 'distilbert', 'mpnet', 'electra', 'nomic_bert', 'modernbert']);

/** Turns a loading failure into a DocQaError that names the file or says what is wrong. */
export function explainLoadError(err: unknown, model: EmbeddingModel, source: ModelSource): DocQaError {
  return explainModelLoadError(err, model, source, 'embedder');
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
  const { tokenizer, network } = await loadPretrained<{ model_type?: string }>(model, options, {
    modelClass: AutoModel,
    checkConfig(config) {
      if (!config.model_type || !ENCODER_TYPES.has(config.model_type)) {
        throw new DocQaError(
          'model-unsupported',
          `embedder: ${model.repo}/config.json has model_type "${config.model_type ?? '(none)'}"; supported encoders: ${[...ENCODER_TYPES].join(', ')}`,
        );
      }
    },
    explain: (err) => explainLoadError(err, model, options.source),
  });
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
      // Batches of texts of like length: less padding is less work, and an 8-bit model quantises its
      // activations over the whole batch, so padding also moves vectors (cosine 0.995-0.998 in a
      // padded batch for bge-small q8; exact in fp32). Vectors come back in input order.
      const order = texts.map((t, i) => ({ i, length: t.length })).sort((a, b) => a.length - b.length || a.i - b.i);
      for (let at = 0; at < order.length; at += batchSize) {
        const slot = order.slice(at, at + batchSize);
        const vectors = await run(slot.map(({ i }) => prefixed(texts[i]!, 'passage')));
        slot.forEach(({ i }, j) => data.set(vectors.subarray(j * model.dims, (j + 1) * model.dims), i * model.dims));
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
