// Checks the model tests share: the DocQaError a promise is refused with, and how far two vectors (or
// score lists) of the same length are apart.
import { expect } from 'vitest';
import { DocQaError } from '../../src/core/errors.ts';

/** The DocQaError `p` rejects with (fails the test if it resolves or rejects with anything else). */
export async function refusal(p: Promise<unknown>): Promise<DocQaError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DocQaError);
  return err as DocQaError;
}

/** The largest difference between `a[i]` and `b[i]` (fails the test if their lengths differ). */
export function maxDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let d = 0;
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i]! - b[i]!));
  return d;
}
