/** Mulberry32 (`tools/random.ts`): a small seeded generator, so a failing run can be replayed with its seed. */
export { mulberry32 as seededRandom } from '../../tools/random.ts';

/** The seed from env `name` when set (to replay a run), else `fallback`. */
export function seedFrom(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && process.env[name] ? value : fallback;
}

const SYLLABLES = ['ba', 'ke', 'di', 'mo', 'lu', 'ra', 'si', 'to', 'ne', 'pu'];

/**
 * A made-up word unique to `n` (0-999), e.g. "bakedi": a fact keyed by it is found by that word alone,
 * where a small number ("room 5") ties with its neighbours in BM25.
 */
export function codeWord(n: number): string {
  return `${SYLLABLES[Math.floor(n / 100) % 10]}${SYLLABLES[Math.floor(n / 10) % 10]}${SYLLABLES[n % 10]}`;
}
