import { describe, expect, it } from 'vitest';
import { prepareAhead } from '../../src/ingest/prepare-ahead.ts';

describe('prepareAhead', () => {
  it('yields results in order and starts the next preparation before the current result is used', async () => {
    const started: number[] = [];
    const seenWhenHandling: number[][] = [];
    const prepare = async (n: number) => {
      started.push(n);
      await new Promise((r) => setTimeout(r, (5 - n) * 3));
      return n * 10;
    };
    const out: number[] = [];
    for await (const r of prepareAhead([1, 2, 3, 4], prepare)) {
      out.push(r);
      seenWhenHandling.push([...started]);
    }
    expect(out).toEqual([10, 20, 30, 40]);
    expect(seenWhenHandling).toEqual([[1, 2], [1, 2, 3], [1, 2, 3, 4], [1, 2, 3, 4]]);
  });

  it('reports a failed preparation at its turn, after the results before it', async () => {
    const out: number[] = [];
    const run = async () => {
      for await (const r of prepareAhead([1, 2, 3], async (n) => {
        if (n === 2) throw new Error('two failed');
        return n;
      })) out.push(r);
    };
    await expect(run()).rejects.toThrow('two failed');
    expect(out).toEqual([1]);
  });
});
