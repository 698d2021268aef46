/**
 * The tiny random-weight decoder (causal LM) for tests of the transformers.js generation path, in the
 * folder layout transformers.js loads with `AutoTokenizer` + `AutoModelForCausalLM`:
 *
 * ```
 * tiny-decoder/  config.json (llama), generation_config.json, tokenizer.json, tokenizer_config.json
 *                (with a ChatML chat template), onnx/model.onnx (with a KV cache)
 * ```
 *
 * Pure and deterministic, like the tiny encoders. Its text means nothing: greedy decoding of random
 * weights, good for streaming, stopping, budgets and the citation checker on real model output.
 */
import { buildLlamaOnnx, type LlamaSpec } from './llama-graph.ts';
import { decoderTokenizerConfig, decoderTokenizerJson } from './tokenizer-files.ts';
import { buildDecoderVocabulary, CHAT_TOKENS } from './vocabulary.ts';

/** Shape of the tiny decoder (vocab size comes from the vocabulary): hidden 32, 2 layers, 4 heads over 2 key/value heads. */
export const TINY_DECODER_SPEC: Omit<LlamaSpec, 'vocabSize'> = {
  hidden: 32,
  layers: 2,
  heads: 4,
  kvHeads: 2,
  intermediate: 64,
  maxPositions: 512,
  rmsNormEps: 1e-6,
  ropeTheta: 10000,
};

/** Bump to change every weight on purpose (pinned test outputs then change too). */
const SEED_VERSION = 'v1';

/** The weight seed of the tiny decoder (tests rebuild its weights with `llamaWeights`). */
export const TINY_DECODER_SEED = `docqa/tiny-decoder/${SEED_VERSION}`;

/** The full spec, with the vocabulary's size. */
export function tinyDecoderSpec(): LlamaSpec {
  return { ...TINY_DECODER_SPEC, vocabSize: buildDecoderVocabulary().length };
}

/** The decoder's files, keyed by path inside its folder. */
export function generateTinyDecoder(): Map<string, Uint8Array> {
  const vocab = buildDecoderVocabulary();
  const spec = tinyDecoderSpec();
  const [imStart, imEnd] = CHAT_TOKENS.map((t) => vocab.indexOf(t));
  const json = (value: object) => new TextEncoder().encode(`${JSON.stringify(value, null, 2)}\n`);
  const headSize = spec.hidden / spec.heads;
  const config = {
    _name_or_path: 'docqa/tiny-decoder',
    architectures: ['LlamaForCausalLM'],
    model_type: 'llama',
    hidden_size: spec.hidden,
    num_hidden_layers: spec.layers,
    num_attention_heads: spec.heads,
    num_key_value_heads: spec.kvHeads,
    head_dim: headSize,
    intermediate_size: spec.intermediate,
    hidden_act: 'silu',
    vocab_size: spec.vocabSize,
    max_position_embeddings: spec.maxPositions,
    rms_norm_eps: spec.rmsNormEps,
    rope_theta: spec.ropeTheta,
    tie_word_embeddings: false,
    use_cache: true,
    bos_token_id: imStart,
    eos_token_id: imEnd,
    pad_token_id: 0,
    'transformers.js_config': { dtype: 'fp32' },
  };
  return new Map([
    ['config.json', json(config)],
    ['generation_config.json', json({ bos_token_id: imStart, eos_token_id: imEnd, pad_token_id: 0 })],
    ['tokenizer.json', json(decoderTokenizerJson(vocab))],
    ['tokenizer_config.json', json(decoderTokenizerConfig())],
    ['onnx/model.onnx', buildLlamaOnnx(spec, TINY_DECODER_SEED)],
  ]);
}
