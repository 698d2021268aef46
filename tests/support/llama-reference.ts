/**
 * The tiny decoder's forward pass in plain JavaScript (float64, no ONNX), from the same named weights the
 * graph holds (`llamaWeights`): the reference the ONNX graph's logits are checked against. Written from
 * Llama's definition (RMSNorm, rotary embeddings on the two halves of each head, grouped-query causal
 * attention, SiLU-gated MLP), not from the graph, so a wiring mistake in either shows up as a mismatch.
 */
import type { LlamaSpec, WeightTensor } from '../../tools/models/llama-graph.ts';

type Matrix = number[][];

/** `x · W` for W stored [inputs, outputs]. */
function matmul(x: Matrix, w: WeightTensor): Matrix {
  const [inputs, outputs] = w.dims as [number, number];
  return x.map((row) => {
    const out = new Array<number>(outputs).fill(0);
    for (let i = 0; i < inputs; i++) {
      const xi = row[i]!;
      for (let o = 0; o < outputs; o++) out[o]! += xi * w.values[i * outputs + o]!;
    }
    return out;
  });
}

function rmsNorm(x: Matrix, weight: WeightTensor, eps: number): Matrix {
  return x.map((row) => {
    const rms = Math.sqrt(row.reduce((s, v) => s + v * v, 0) / row.length + eps);
    return row.map((v, i) => (v / rms) * weight.values[i]!);
  });
}

/** Rotates one head's vector (`d` values at `offset` in `row`) to position `pos`, in place. */
function rotate(row: number[], offset: number, d: number, pos: number, theta: number): void {
  const half = d / 2;
  for (let i = 0; i < half; i++) {
    const angle = pos * Math.pow(theta, (-2 * i) / d);
    const a = row[offset + i]!;
    const b = row[offset + half + i]!;
    row[offset + i] = a * Math.cos(angle) - b * Math.sin(angle);
    row[offset + half + i] = b * Math.cos(angle) + a * Math.sin(angle);
  }
}

/** Logits [position][vocab] for one unpadded sequence of token ids (positions 0, 1, ...). */
export function llamaReferenceLogits(spec: LlamaSpec, weights: Map<string, WeightTensor>, ids: readonly number[]): Matrix {
  const w = (name: string) => {
    const t = weights.get(name);
    if (!t) throw new Error(`llama-reference: no weight ${name}`);
    return t;
  };
  const d = spec.hidden / spec.heads;
  const group = spec.heads / spec.kvHeads;
  const embed = w('model.embed_tokens.weight');
  let x: Matrix = ids.map((id) => Array.from(embed.values.subarray(id * spec.hidden, (id + 1) * spec.hidden)));
  for (let layer = 0; layer < spec.layers; layer++) {
    const p = `model.layers.${layer}`;
    const normed = rmsNorm(x, w(`${p}.input_layernorm.weight`), spec.rmsNormEps);
    const q = matmul(normed, w(`${p}.self_attn.q_proj.weight`));
    const k = matmul(normed, w(`${p}.self_attn.k_proj.weight`));
    const v = matmul(normed, w(`${p}.self_attn.v_proj.weight`));
    q.forEach((row, pos) => { for (let h = 0; h < spec.heads; h++) rotate(row, h * d, d, pos, spec.ropeTheta); });
    k.forEach((row, pos) => { for (let h = 0; h < spec.kvHeads; h++) rotate(row, h * d, d, pos, spec.ropeTheta); });
    const context: Matrix = x.map(() => new Array<number>(spec.hidden).fill(0));
    for (let h = 0; h < spec.heads; h++) {
      const kv = Math.floor(h / group);
      for (let i = 0; i < ids.length; i++) {
        // Causal: position i attends to positions 0..i.
        const scores: number[] = [];
        for (let j = 0; j <= i; j++) {
          let s = 0;
          for (let c = 0; c < d; c++) s += q[i]![h * d + c]! * k[j]![kv * d + c]!;
          scores.push(s / Math.sqrt(d));
        }
        const max = Math.max(...scores);
        const exps = scores.map((s) => Math.exp(s - max));
        const sum = exps.reduce((a, b) => a + b, 0);
        for (let j = 0; j <= i; j++) {
          for (let c = 0; c < d; c++) context[i]![h * d + c]! += (exps[j]! / sum) * v[j]![kv * d + c]!;
        }
      }
    }
    const attended = matmul(context, w(`${p}.self_attn.o_proj.weight`));
    const h1 = x.map((row, i) => row.map((value, c) => value + attended[i]![c]!));
    const normed2 = rmsNorm(h1, w(`${p}.post_attention_layernorm.weight`), spec.rmsNormEps);
    const gate = matmul(normed2, w(`${p}.mlp.gate_proj.weight`));
    const up = matmul(normed2, w(`${p}.mlp.up_proj.weight`));
    const gated = gate.map((row, i) => row.map((g, c) => (g / (1 + Math.exp(-g))) * up[i]![c]!));
    const down = matmul(gated, w(`${p}.mlp.down_proj.weight`));
    x = h1.map((row, i) => row.map((value, c) => value + down[i]![c]!));
  }
  return matmul(rmsNorm(x, w('model.norm.weight'), spec.rmsNormEps), w('lm_head.weight'));
}
