/**
 * Token vectors to text vectors, and the check that refuses a bad model output. Pure: plain typed
 * arrays in, a contiguous `Float32Array` out, so the worker can transfer it.
 */
import { DocQaError } from '../../core/errors.ts';
import type { Pooling } from '../catalogue.ts';

/** `last_hidden_state` of a batch, row-major [batch, tokens, hidden], and its attention mask [batch, tokens]. */
export interface HiddenStates {
  data: Float32Array;
  batch: number;
  tokens: number;
  hidden: number;
  /** 1 for a real token, 0 for padding (int64 from the tokenizer, or plain numbers). */
  mask: ArrayLike<number | bigint>;
}

/**
 * One vector per text: the first token's state ('cls', which the tokenizer makes [CLS] or <s>) or the
 * mean of the states whose mask is 1 ('mean'), then L2-normalised when `normalize`. A zero vector
 * stays zero (and is refused later by {@link checkVectors} only if it is not finite).
 *
 * @example poolHidden(states, 'mean', true) // Float32Array(batch * hidden)
 */
export function poolHidden(states: HiddenStates, pooling: Pooling, normalize: boolean): Float32Array {
  const { data, batch, tokens, hidden, mask } = states;
  const out = new Float32Array(batch * hidden);
  for (let b = 0; b < batch; b++) {
    const row = out.subarray(b * hidden, (b + 1) * hidden);
    const base = b * tokens * hidden;
    if (pooling === 'cls') {
      row.set(data.subarray(base, base + hidden));
    } else {
      // Sum in float64, then divide: the mean of up to 512 tokens keeps float32 precision.
      const sum = new Float64Array(hidden);
      let count = 0;
      for (let t = 0; t < tokens; t++) {
        if (Number(mask[b * tokens + t]) === 0) continue;
        count++;
        const at = base + t * hidden;
        for (let h = 0; h < hidden; h++) sum[h]! += data[at + h]!;
      }
      for (let h = 0; h < hidden; h++) row[h] = count > 0 ? sum[h]! / count : 0;
    }
    if (normalize) normalizeInPlace(row);
  }
  return out;
}

/** Scales a vector to length 1 (a zero vector is left as it is). */
export function normalizeInPlace(v: Float32Array): void {
  let sq = 0;
  for (let i = 0; i < v.length; i++) sq += v[i]! * v[i]!;
  const norm = Math.sqrt(sq);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i]! /= norm;
}

/**
 * Refuses a model output that must not be stored: a vector length other than the catalogue's `dims`
 * (a wrong model in a folder), or any NaN or infinite value (broken weights, fp16 overflow on a GPU).
 * Throws DocQaError 'model-output-invalid' naming the model and the first bad value.
 */
export function checkVectors(vectors: Float32Array, count: number, dims: number, expectedDims: number, model: string): void {
  if (dims !== expectedDims) {
    throw new DocQaError(
      'model-output-invalid',
      `embedder: model ${model} gives ${dims}-dimensional vectors, but its catalogue entry says ${expectedDims}: choose the entry that matches the model folder`,
    );
  }
  if (vectors.length !== count * dims) {
    throw new DocQaError('model-output-invalid', `embedder: model ${model} returned ${vectors.length} values for ${count} texts of ${dims} dimensions`);
  }
  for (let i = 0; i < vectors.length; i++) {
    if (!Number.isFinite(vectors[i]!)) {
      throw new DocQaError(
        'model-output-invalid',
        `embedder: model ${model} produced ${vectors[i]} in vector ${Math.floor(i / dims)} (position ${i % dims}); nothing was stored: try the WASM device or another model`,
      );
    }
  }
}
