/**
 * Seeded random numbers for generated test weights. Integer arithmetic (Math.imul, shifts) and one
 * division only: no Math.random, no transcendental functions, so the same seed gives the same bits on
 * every machine and JavaScript engine.
 */

/** A uniform source in [0, 1), plus weight helpers. */
export interface Random {
  /** The next number in [0, 1) (32 bits of randomness). */
  next(): number;
  /** `count` float32 values, uniform with mean `mean` and standard deviation `std`. */
  floats(count: number, std: number, mean?: number): Float32Array;
}

/** FNV-1a hash of a string (UTF-16 code units) to an unsigned 32-bit integer. */
export function hashString(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * A 32-bit generator (Weyl sequence stepped by the golden-ratio constant, then mixed by two
 * multiply-xorshift rounds). Each tensor gets its own stream, seeded from the model seed and the tensor
 * name, so adding a tensor never changes the values of the others.
 *
 * @example createRandom('tiny-encoder/encoder.layer.0.attention.self.query.weight').floats(1024, 0.18)
 */
export function createRandom(seed: string | number): Random {
  let state = typeof seed === 'number' ? seed >>> 0 : hashString(seed);
  const next = (): number => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    z ^= z >>> 16;
    return (z >>> 0) / 4294967296;
  };
  return {
    next,
    floats(count, std, mean = 0) {
      // A uniform distribution on [-a, a] has standard deviation a / √3.
      const half = std * Math.sqrt(3);
      const out = new Float32Array(count);
      for (let i = 0; i < count; i++) out[i] = mean + (next() * 2 - 1) * half;
      return out;
    },
  };
}
