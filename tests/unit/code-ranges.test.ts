import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { segments } from '../../src/ui/code-ranges.ts';

describe('code ranges cut a text into stretches', () => {
  it('cuts at each range, in order', () => {
    expect(segments(10, [{ start: 2, end: 5 }])).toEqual([
      { start: 0, end: 2, code: false },
      { start: 2, end: 5, code: true },
      { start: 5, end: 10, code: false },
    ]);
    expect(segments(4, undefined)).toEqual([{ start: 0, end: 4, code: false }]);
    expect(segments(6, [{ start: 0, end: 6 }])).toEqual([{ start: 0, end: 6, code: true }]);
  });

  it('always covers the whole text once, in order, whatever the ranges', () => {
    fc.assert(
      fc.property(fc.nat(200), fc.array(fc.record({ start: fc.integer({ min: -5, max: 220 }), end: fc.integer({ min: -5, max: 220 }) })), (length, ranges) => {
        const cut = segments(length, ranges);
        expect(cut[0]!.start).toBe(0);
        expect(cut.at(-1)!.end).toBe(length);
        cut.forEach((s, i) => {
          if (i) expect(s.start).toBe(cut[i - 1]!.end);
          expect(s.end).toBeGreaterThanOrEqual(s.start);
        });
      }),
    );
  });
});
