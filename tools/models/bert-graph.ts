/**
 * A BERT encoder as an ONNX graph with seeded random weights: embeddings (word + position + token type,
 * layer norm), N layers of multi-head self-attention with the attention mask and a GELU feed-forward
 * block, both post-norm as in BERT. Optionally a sequence-classification head: BERT's pooler (dense +
 * tanh on the [CLS] token) and a linear classifier.
 *
 * Ops are limited to ones that onnxruntime-node and onnxruntime-web (WASM and WebGPU) all run at opset
 * 17: Gather, Shape, Slice, Cast, Sub, Mul, Div, Add, Unsqueeze, Reshape, Transpose, MatMul, Softmax,
 * LayerNormalization, Erf, Tanh. GELU is written out (the Gelu op needs opset 20). Padding cannot move
 * the other tokens' outputs: masked keys get -10000 before the softmax, and exp(-10000) is exactly 0 in
 * float32.
 */
import { GraphBuilder } from './onnx-builder.ts';
import { createRandom } from './prng.ts';

/** Shape of a BERT-style encoder. */
export interface BertSpec {
  vocabSize: number;
  hidden: number;
  layers: number;
  /** Attention heads; must divide `hidden`. */
  heads: number;
  intermediate: number;
  maxPositions: number;
  typeVocabSize: number;
  layerNormEps: number;
}

/** What sits on top of the encoder, and so what the graph outputs. */
export type BertHead =
  | { kind: 'none' } // output `last_hidden_state` [batch, seq, hidden]
  | { kind: 'sequence-classification'; labels: number }; // output `logits` [batch, labels]

/** Builds the graph; `seed` names the weight streams, so two seeds give two unrelated models. */
export function buildBertOnnx(spec: BertSpec, head: BertHead, seed: string): Uint8Array {
  if (spec.hidden % spec.heads !== 0) throw new Error(`bert-graph: ${spec.heads} heads do not divide hidden size ${spec.hidden}`);
  const g = new GraphBuilder(head.kind === 'none' ? 'bert' : 'bert-sequence-classification');
  const w = weights(g, seed);
  const dims = ['batch_size', 'sequence_length'];
  for (const name of ['input_ids', 'attention_mask', 'token_type_ids']) g.input(name, 'int64', dims);
  constants(g, spec);

  let x = embeddings(g, w, spec);
  const mask = extendedMask(g);
  for (let layer = 0; layer < spec.layers; layer++) {
    const out = layer === spec.layers - 1 ? 'last_hidden_state' : `encoder.layer.${layer}.out`;
    x = encoderLayer(g, w, spec, `encoder.layer.${layer}`, x, mask, out);
  }

  if (head.kind === 'none') {
    g.output(x, 'float32', [...dims, spec.hidden]);
  } else {
    const cls = g.node('Gather', [x, g.int64s('pooler.cls_index', [], [0])], 'pooler.cls', { axis: 1 });
    const pooled = g.node('Tanh', [w.linear('pooler.dense', cls, spec.hidden, spec.hidden)], 'pooler.output');
    const logits = w.linear('classifier', pooled, spec.hidden, head.labels, 'logits');
    g.output(logits, 'float32', ['batch_size', head.labels]);
  }
  return g.toBytes();
}

/** Weight helpers: every tensor is drawn from its own stream, seeded by model seed and tensor name. */
function weights(g: GraphBuilder, seed: string) {
  const random = (name: string, dims: number[], std: number, mean = 0) =>
    g.floats(name, dims, createRandom(`${seed}/${name}`).floats(dims.reduce((a, b) => a * b, 1), std, mean));
  return {
    random,
    /** `x · W + b`, with W [inputs, outputs] scaled 1/√inputs so activations keep unit scale. */
    linear(prefix: string, x: string, inputs: number, outputs: number, out = `${prefix}.out`): string {
      const weight = random(`${prefix}.weight`, [inputs, outputs], 1 / Math.sqrt(inputs));
      const bias = random(`${prefix}.bias`, [outputs], 0.02);
      return g.node('Add', [g.node('MatMul', [x, weight], `${prefix}.matmul`), bias], out);
    },
    layerNorm(prefix: string, x: string, size: number, eps: number, out = `${prefix}.out`): string {
      const scale = random(`${prefix}.weight`, [size], 0.1, 1);
      const bias = random(`${prefix}.bias`, [size], 0.05);
      return g.node('LayerNormalization', [x, scale, bias], out, { axis: -1, epsilon: { float: eps } });
    },
  };
}
type Weights = ReturnType<typeof weights>;

function constants(g: GraphBuilder, spec: BertSpec): void {
  const headSize = spec.hidden / spec.heads;
  g.int64s('const.zero_1d', [1], [0]);
  g.int64s('const.one_1d', [1], [1]);
  g.int64s('const.axes_1_2', [2], [1, 2]);
  g.int64s('const.split_heads', [4], [0, 0, spec.heads, headSize]);
  g.int64s('const.merge_heads', [3], [0, 0, spec.hidden]);
  g.floats('const.one', [], [1]);
  g.floats('const.mask_value', [], [-10000]);
  g.floats('const.attention_scale', [], [Math.sqrt(headSize)]);
  g.floats('const.sqrt2', [], [Math.SQRT2]);
  g.floats('const.half', [], [0.5]);
}

function embeddings(g: GraphBuilder, w: Weights, spec: BertSpec): string {
  const words = w.random('embeddings.word_embeddings.weight', [spec.vocabSize, spec.hidden], 0.5);
  const positions = w.random('embeddings.position_embeddings.weight', [spec.maxPositions, spec.hidden], 0.2);
  const types = w.random('embeddings.token_type_embeddings.weight', [spec.typeVocabSize, spec.hidden], 0.2);
  // Position ids 0..seq-1 as a slice of the table: rows [0, seq) with seq read from the input's shape.
  const shape = g.node('Shape', ['input_ids'], 'embeddings.input_shape');
  const seqLength = g.node('Gather', [shape, 'const.one_1d'], 'embeddings.seq_length', { axis: 0 });
  const positionRows = g.node('Slice', [positions, 'const.zero_1d', seqLength, 'const.zero_1d'], 'embeddings.position_rows');
  const sum = g.node('Add', [
    g.node('Add', [g.node('Gather', [words, 'input_ids'], 'embeddings.words', { axis: 0 }), positionRows], 'embeddings.words_positions'),
    g.node('Gather', [types, 'token_type_ids'], 'embeddings.types', { axis: 0 }),
  ], 'embeddings.sum');
  return w.layerNorm('embeddings.LayerNorm', sum, spec.hidden, spec.layerNormEps);
}

/** (1 - mask) · -10000 as [batch, 1, 1, seq], added to every head's attention scores. */
function extendedMask(g: GraphBuilder): string {
  const mask = g.node('Cast', ['attention_mask'], 'mask.float', { to: 1 /* FLOAT */ });
  const inverted = g.node('Sub', ['const.one', mask], 'mask.inverted');
  const additive = g.node('Mul', [inverted, 'const.mask_value'], 'mask.additive');
  return g.node('Unsqueeze', [additive, 'const.axes_1_2'], 'mask.extended');
}

function encoderLayer(g: GraphBuilder, w: Weights, spec: BertSpec, p: string, x: string, mask: string, out: string): string {
  const { hidden, intermediate, layerNormEps: eps } = spec;
  // [batch, seq, hidden] → [batch, heads, seq, head size] (keys: [batch, heads, head size, seq]).
  const heads = (name: string, perm: number[]) => {
    const projected = w.linear(`${p}.attention.self.${name}`, x, hidden, hidden);
    const split = g.node('Reshape', [projected, 'const.split_heads'], `${p}.attention.self.${name}.split`);
    return g.node('Transpose', [split], `${p}.attention.self.${name}.heads`, { perm });
  };
  const query = heads('query', [0, 2, 1, 3]);
  const key = heads('key', [0, 2, 3, 1]);
  const value = heads('value', [0, 2, 1, 3]);
  const scores = g.node('Div', [g.node('MatMul', [query, key], `${p}.attention.scores`), 'const.attention_scale'], `${p}.attention.scaled`);
  const probs = g.node('Softmax', [g.node('Add', [scores, mask], `${p}.attention.masked`)], `${p}.attention.probs`, { axis: -1 });
  const context = g.node('MatMul', [probs, value], `${p}.attention.context`);
  const merged = g.node('Reshape', [
    g.node('Transpose', [context], `${p}.attention.context.transposed`, { perm: [0, 2, 1, 3] }),
    'const.merge_heads',
  ], `${p}.attention.context.merged`);
  const attended = w.linear(`${p}.attention.output.dense`, merged, hidden, hidden);
  const h = w.layerNorm(`${p}.attention.output.LayerNorm`, g.node('Add', [attended, x], `${p}.attention.residual`), hidden, eps);

  // GELU(u) = 0.5 · u · (1 + erf(u / √2))
  const u = w.linear(`${p}.intermediate.dense`, h, hidden, intermediate);
  const erf = g.node('Erf', [g.node('Div', [u, 'const.sqrt2'], `${p}.gelu.scaled`)], `${p}.gelu.erf`);
  const gelu = g.node('Mul', [
    g.node('Mul', [u, g.node('Add', [erf, 'const.one'], `${p}.gelu.shifted`)], `${p}.gelu.product`),
    'const.half',
  ], `${p}.gelu.out`);
  const ffn = w.linear(`${p}.output.dense`, gelu, intermediate, hidden);
  return w.layerNorm(`${p}.output.LayerNorm`, g.node('Add', [ffn, h], `${p}.output.residual`), hidden, eps, out);
}
