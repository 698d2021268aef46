/**
 * A Llama-style causal language model as an ONNX graph with seeded random weights, exported the way
 * Hugging Face Optimum exports decoders for transformers.js (`onnx/model.onnx` with a KV cache):
 *
 * - inputs `input_ids`, `attention_mask` (over past and new tokens), `position_ids` and, per layer,
 *   `past_key_values.{i}.key` / `.value` float32 [batch_size, kv heads, past_sequence_length, head size];
 * - outputs `logits` [batch_size, sequence_length, vocab] and `present.{i}.key` / `.value` (past and new
 *   keys together).
 *
 * transformers.js feeds empty (length 0) past tensors on the first step, shaped from the graph's input
 * metadata (the head count and head size must be fixed numbers there), then each step's `present` as the
 * next step's past. The layers are Llama's: RMSNorm, rotary position embeddings (computed in the graph
 * from `position_ids`), grouped-query attention (key/value heads repeated), a causal mask offset by the
 * past length, and a SiLU-gated feed-forward block; pre-norm residuals, a final norm and an untied LM head.
 *
 * Ops (opset 17): Gather, Shape, Slice, Cast, Sub, Mul, Div, Add, Neg, Pow, Sqrt, ReduceMean, Sigmoid,
 * Cos, Sin, Greater, Concat, Unsqueeze, Expand, Reshape, Transpose, MatMul, Softmax: all in onnxruntime-node
 * and onnxruntime-web's WASM backend. Masked keys get -10000 (future) or -10000 more (padding) before
 * the softmax: exp underflows to exactly 0 in float32.
 */
import { GraphBuilder } from './onnx-builder.ts';
import { createRandom } from './prng.ts';

/** Shape of a Llama-style decoder. */
export interface LlamaSpec {
  vocabSize: number;
  hidden: number;
  layers: number;
  /** Query heads; must divide `hidden`. */
  heads: number;
  /** Key/value heads (grouped-query attention); must divide `heads`. */
  kvHeads: number;
  intermediate: number;
  maxPositions: number;
  rmsNormEps: number;
  ropeTheta: number;
}

/** One weight tensor: its shape and values. */
export interface WeightTensor {
  dims: number[];
  values: Float32Array;
}

/**
 * Every weight of the model by its Hugging Face name (`model.layers.0.self_attn.q_proj.weight`, stored
 * as [inputs, outputs] so that `x · W` applies it), each drawn from its own stream seeded by `seed` and
 * the name. The graph and the tests' plain-JS reference read the same tensors.
 */
export function llamaWeights(spec: LlamaSpec, seed: string): Map<string, WeightTensor> {
  checkSpec(spec);
  const headSize = spec.hidden / spec.heads;
  const out = new Map<string, WeightTensor>();
  const random = (name: string, dims: number[], std: number, mean = 0) =>
    out.set(name, { dims, values: createRandom(`${seed}/${name}`).floats(dims.reduce((a, b) => a * b, 1), std, mean) });
  const linear = (name: string, inputs: number, outputs: number) => random(name, [inputs, outputs], 1 / Math.sqrt(inputs));
  random('model.embed_tokens.weight', [spec.vocabSize, spec.hidden], 1);
  for (let i = 0; i < spec.layers; i++) {
    const p = `model.layers.${i}`;
    random(`${p}.input_layernorm.weight`, [spec.hidden], 0.1, 1);
    linear(`${p}.self_attn.q_proj.weight`, spec.hidden, spec.heads * headSize);
    linear(`${p}.self_attn.k_proj.weight`, spec.hidden, spec.kvHeads * headSize);
    linear(`${p}.self_attn.v_proj.weight`, spec.hidden, spec.kvHeads * headSize);
    linear(`${p}.self_attn.o_proj.weight`, spec.heads * headSize, spec.hidden);
    random(`${p}.post_attention_layernorm.weight`, [spec.hidden], 0.1, 1);
    linear(`${p}.mlp.gate_proj.weight`, spec.hidden, spec.intermediate);
    linear(`${p}.mlp.up_proj.weight`, spec.hidden, spec.intermediate);
    linear(`${p}.mlp.down_proj.weight`, spec.intermediate, spec.hidden);
  }
  random('model.norm.weight', [spec.hidden], 0.1, 1);
  // Scaled up (std 3 instead of 1): the logits then spread over several units, so greedy decoding's
  // choice does not hinge on float rounding between runtimes.
  random('lm_head.weight', [spec.hidden, spec.vocabSize], 3 / Math.sqrt(spec.hidden));
  return out;
}

/** The names of the per-layer cache inputs and outputs, in graph order. */
export function cacheNames(layers: number, prefix: 'past_key_values' | 'present'): string[] {
  return Array.from({ length: layers }, (_, i) => [`${prefix}.${i}.key`, `${prefix}.${i}.value`]).flat();
}

/** Builds the graph; `seed` names the weight streams, so two seeds give two unrelated models. */
export function buildLlamaOnnx(spec: LlamaSpec, seed: string): Uint8Array {
  const g = new GraphBuilder('llama-causal-lm');
  const headSize = spec.hidden / spec.heads;
  g.input('input_ids', 'int64', ['batch_size', 'sequence_length']);
  g.input('attention_mask', 'int64', ['batch_size', 'total_sequence_length']);
  g.input('position_ids', 'int64', ['batch_size', 'sequence_length']);
  for (const name of cacheNames(spec.layers, 'past_key_values')) g.input(name, 'float32', ['batch_size', spec.kvHeads, 'past_sequence_length', headSize]);
  for (const [name, w] of llamaWeights(spec, seed)) g.floats(name, w.dims, w.values);
  constants(g, spec);

  const [cos, sin] = rotary(g);
  const mask = causalMask(g);
  let x = g.node('Gather', ['model.embed_tokens.weight', 'input_ids'], 'model.embed', { axis: 0 });
  for (let i = 0; i < spec.layers; i++) x = decoderLayer(g, spec, i, x, mask, cos, sin);
  const normed = rmsNorm(g, 'model.norm', x);
  g.node('MatMul', [normed, 'lm_head.weight'], 'logits');
  g.output('logits', 'float32', ['batch_size', 'sequence_length', spec.vocabSize]);
  for (const name of cacheNames(spec.layers, 'present')) g.output(name, 'float32', ['batch_size', spec.kvHeads, 'total_sequence_length', headSize]);
  return g.toBytes();
}

function checkSpec(spec: LlamaSpec): void {
  if (spec.hidden % spec.heads !== 0) throw new Error(`llama-graph: ${spec.heads} heads do not divide hidden size ${spec.hidden}`);
  if (spec.heads % spec.kvHeads !== 0) throw new Error(`llama-graph: ${spec.kvHeads} key/value heads do not divide ${spec.heads} heads`);
  if ((spec.hidden / spec.heads) % 2 !== 0) throw new Error('llama-graph: rotary embeddings need an even head size');
}

function constants(g: GraphBuilder, spec: LlamaSpec): void {
  const headSize = spec.hidden / spec.heads;
  g.int64s('const.zero_1d', [1], [0]);
  g.int64s('const.one_1d', [1], [1]);
  g.int64s('const.last_axis_1d', [1], [-1]);
  g.int64s('const.half_head_1d', [1], [headSize / 2]);
  g.int64s('const.head_1d', [1], [headSize]);
  g.int64s('const.split_q', [4], [0, 0, spec.heads, headSize]);
  g.int64s('const.split_kv', [4], [0, 0, spec.kvHeads, headSize]);
  g.int64s('const.repeat_kv', [5], [1, 1, spec.heads / spec.kvHeads, 1, 1]);
  g.int64s('const.merge_groups', [4], [0, spec.heads, -1, headSize]);
  g.int64s('const.merge_heads', [3], [0, 0, spec.hidden]);
  g.floats('const.one', [], [1]);
  g.floats('const.mask_value', [], [-10000]);
  g.floats('const.attention_scale', [], [Math.sqrt(headSize)]);
  g.floats('const.rms_eps', [], [spec.rmsNormEps]);
  g.floats('const.rope_theta', [], [spec.ropeTheta]);
  // inv_freq = θ^(-2i/d): the exponents are exact; the power is taken at run time (Pow), so the file
  // holds no transcendental results and its bytes never depend on the JavaScript engine.
  g.floats('const.rope_exponents', [headSize / 2], Array.from({ length: headSize / 2 }, (_, i) => (-2 * i) / headSize));
  // 0, 1, ..., maxPositions-1: sliced for the key and query indices of the causal mask (no Range op).
  g.floats('const.positions', [spec.maxPositions], Array.from({ length: spec.maxPositions }, (_, i) => i));
}

/** cos and sin of `position_ids · inv_freq`, each [batch, 1, seq, head size] (the two halves repeated). */
function rotary(g: GraphBuilder): [string, string] {
  const invFreq = g.node('Pow', ['const.rope_theta', 'const.rope_exponents'], 'rope.inv_freq');
  const positions = g.node('Unsqueeze', [g.node('Cast', ['position_ids'], 'rope.positions', { to: 1 }), g.int64s('rope.axis_2', [1], [2])], 'rope.positions_column');
  const freqs = g.node('Mul', [positions, invFreq], 'rope.freqs');
  const angles = g.node('Concat', [freqs, freqs], 'rope.angles', { axis: -1 });
  const axis1 = g.int64s('rope.axis_1', [1], [1]);
  const cos = g.node('Unsqueeze', [g.node('Cos', [angles], 'rope.cos_raw'), axis1], 'rope.cos');
  const sin = g.node('Unsqueeze', [g.node('Sin', [angles], 'rope.sin_raw'), axis1], 'rope.sin');
  return [cos, sin];
}

/**
 * The additive attention mask [batch, 1, seq, total]: query i (at absolute index past + i) sees key j
 * when j ≤ past + i and `attention_mask[j]` is 1; anything else gets -10000 (or -20000).
 */
function causalMask(g: GraphBuilder): string {
  const total = g.node('Gather', [g.node('Shape', ['attention_mask'], 'mask.shape'), 'const.one_1d'], 'mask.total', { axis: 0 });
  const seq = g.node('Gather', [g.node('Shape', ['input_ids'], 'mask.input_shape'), 'const.one_1d'], 'mask.seq', { axis: 0 });
  const past = g.node('Sub', [total, seq], 'mask.past');
  const keyIndex = g.node('Slice', ['const.positions', 'const.zero_1d', total, 'const.zero_1d'], 'mask.key_index');
  const queryIndex = g.node('Slice', ['const.positions', past, total, 'const.zero_1d'], 'mask.query_index');
  const queryColumn = g.node('Unsqueeze', [queryIndex, 'const.one_1d'], 'mask.query_column');
  const future = g.node('Cast', [g.node('Greater', [keyIndex, queryColumn], 'mask.future_bool')], 'mask.future', { to: 1 });
  const padding = g.node('Sub', ['const.one', g.node('Cast', ['attention_mask'], 'mask.float', { to: 1 })], 'mask.padding');
  const padding4d = g.node('Unsqueeze', [padding, g.int64s('mask.axes_1_2', [2], [1, 2])], 'mask.padding_4d');
  return g.node('Mul', [g.node('Add', [future, padding4d], 'mask.blocked'), 'const.mask_value'], 'mask.additive');
}

/** x / √(mean(x²) + ε) · weight over the last axis. */
function rmsNorm(g: GraphBuilder, prefix: string, x: string): string {
  const meanSquare = g.node('ReduceMean', [g.node('Mul', [x, x], `${prefix}.square`)], `${prefix}.mean_square`, { axes: [-1], keepdims: 1 });
  const rms = g.node('Sqrt', [g.node('Add', [meanSquare, 'const.rms_eps'], `${prefix}.shifted`)], `${prefix}.rms`);
  return g.node('Mul', [g.node('Div', [x, rms], `${prefix}.normalized`), `${prefix}.weight`], `${prefix}.out`);
}

/** x·cos + rotate_half(x)·sin, where rotate_half([a, b]) = [-b, a] over the head axis. */
function applyRotary(g: GraphBuilder, name: string, x: string, cos: string, sin: string): string {
  const first = g.node('Slice', [x, 'const.zero_1d', 'const.half_head_1d', 'const.last_axis_1d'], `${name}.first_half`);
  const second = g.node('Slice', [x, 'const.half_head_1d', 'const.head_1d', 'const.last_axis_1d'], `${name}.second_half`);
  const rotated = g.node('Concat', [g.node('Neg', [second], `${name}.second_negated`), first], `${name}.rotated`, { axis: -1 });
  return g.node('Add', [g.node('Mul', [x, cos], `${name}.cos_part`), g.node('Mul', [rotated, sin], `${name}.sin_part`)], `${name}.rope`);
}

function decoderLayer(g: GraphBuilder, spec: LlamaSpec, i: number, x: string, mask: string, cos: string, sin: string): string {
  const p = `model.layers.${i}`;
  const a = `${p}.self_attn`;
  const normed = rmsNorm(g, `${p}.input_layernorm`, x);
  // [batch, seq, heads · head size] → [batch, heads, seq, head size]
  const heads = (proj: 'q' | 'k' | 'v', split: string) =>
    g.node('Transpose', [
      g.node('Reshape', [g.node('MatMul', [normed, `${a}.${proj}_proj.weight`], `${a}.${proj}`), split], `${a}.${proj}.split`),
    ], `${a}.${proj}.heads`, { perm: [0, 2, 1, 3] });
  const query = applyRotary(g, `${a}.q`, heads('q', 'const.split_q'), cos, sin);
  const newKey = applyRotary(g, `${a}.k`, heads('k', 'const.split_kv'), cos, sin);
  const key = g.node('Concat', [`past_key_values.${i}.key`, newKey], `present.${i}.key`, { axis: 2 });
  const value = g.node('Concat', [`past_key_values.${i}.value`, heads('v', 'const.split_kv')], `present.${i}.value`, { axis: 2 });
  // Grouped-query attention: each key/value head serves heads / kvHeads query heads (HF's repeat_kv).
  const repeat = (t: string, name: string) =>
    g.node('Reshape', [
      g.node('Expand', [g.node('Unsqueeze', [t, g.int64s(`${a}.${name}.group_axis`, [1], [2])], `${a}.${name}.grouped`), 'const.repeat_kv'], `${a}.${name}.expanded`),
      'const.merge_groups',
    ], `${a}.${name}.repeated`);
  const keys = g.node('Transpose', [repeat(key, 'key')], `${a}.key.transposed`, { perm: [0, 1, 3, 2] });
  const scores = g.node('Div', [g.node('MatMul', [query, keys], `${a}.scores`), 'const.attention_scale'], `${a}.scaled`);
  const probs = g.node('Softmax', [g.node('Add', [scores, mask], `${a}.masked`)], `${a}.probs`, { axis: -1 });
  const context = g.node('MatMul', [probs, repeat(value, 'value')], `${a}.context`);
  const merged = g.node('Reshape', [
    g.node('Transpose', [context], `${a}.context.transposed`, { perm: [0, 2, 1, 3] }),
    'const.merge_heads',
  ], `${a}.context.merged`);
  const attended = g.node('MatMul', [merged, `${a}.o_proj.weight`], `${a}.out`);
  const h = g.node('Add', [x, attended], `${p}.attention_residual`);

  const m = `${p}.mlp`;
  const normed2 = rmsNorm(g, `${p}.post_attention_layernorm`, h);
  const gate = g.node('MatMul', [normed2, `${m}.gate_proj.weight`], `${m}.gate`);
  const silu = g.node('Mul', [gate, g.node('Sigmoid', [gate], `${m}.gate_sigmoid`)], `${m}.silu`);
  const up = g.node('MatMul', [normed2, `${m}.up_proj.weight`], `${m}.up`);
  const down = g.node('MatMul', [g.node('Mul', [silu, up], `${m}.gated`), `${m}.down_proj.weight`], `${m}.down`);
  return g.node('Add', [h, down], `${p}.out`);
}
