// The refusal of bad model output and the pooling arithmetic on small arrays written out by hand.
import { describe, expect, it } from 'vitest';
import { DocQaError } from '../../src/core/errors.ts';
import { checkVectors, normalizeInPlace, poolHidden } from '../../src/models/encoder/pool.ts';

const refusal = (f: () => void) => {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(DocQaError);
    return err as DocQaError;
  }
  throw new Error('expected a refusal');
};

describe('checkVectors', () => {
  it('accepts finite vectors of the catalogue length', () => {
    expect(() => checkVectors(new Float32Array([0.6, 0.8, 1, 0]), 2, 2, 2, 'm')).not.toThrow();
  });

  it.each([
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['-Infinity', Number.NEGATIVE_INFINITY],
  ])('refuses %s, naming the vector and position', (_, bad) => {
    const v = new Float32Array([0.6, 0.8, 0.1, bad]);
    const err = refusal(() => checkVectors(v, 2, 2, 2, 'tiny'));
    expect(err.code).toBe('model-output-invalid');
    expect(err.message).toContain(`produced ${bad} in vector 1 (position 1)`);
  });

  it('refuses a wrong dimension and a wrong value count', () => {
    expect(refusal(() => checkVectors(new Float32Array(6), 2, 3, 384, 'tiny')).message).toMatch(/3-dimensional vectors.*says 384/);
    expect(refusal(() => checkVectors(new Float32Array(5), 2, 3, 3, 'tiny')).code).toBe('model-output-invalid');
  });
});

describe('poolHidden', () => {
  // batch 2, tokens 3, hidden 2; the second text has one padding token.
  const data = new Float32Array([1, 2, 3, 4, 5, 6, /* text 2 */ 2, 0, 4, 0, 100, 100]);
  const states = { data, batch: 2, tokens: 3, hidden: 2, mask: [1n, 1n, 1n, 1n, 1n, 0n] };

  it('mean pools only unmasked tokens', () => {
    expect(Array.from(poolHidden(states, 'mean', false))).toEqual([3, 4, 3, 0]);
  });

  it('CLS pools the first token, and normalises to unit length', () => {
    expect(Array.from(poolHidden(states, 'cls', false))).toEqual([1, 2, 2, 0]);
    const v = poolHidden(states, 'cls', true);
    expect(v[0]).toBeCloseTo(1 / Math.sqrt(5), 6);
    expect(v[1]).toBeCloseTo(2 / Math.sqrt(5), 6);
    expect(Array.from(v.subarray(2))).toEqual([1, 0]);
  });

  it('leaves a zero vector zero, and lets NaN through to be refused', () => {
    const zero = new Float32Array(3);
    normalizeInPlace(zero);
    expect(Array.from(zero)).toEqual([0, 0, 0]);
    const nan = poolHidden({ data: new Float32Array([Number.NaN, 1]), batch: 1, tokens: 1, hidden: 2, mask: [1] }, 'mean', true);
    expect(refusal(() => checkVectors(nan, 1, 2, 2, 'm')).code).toBe('model-output-invalid');
  });
});
