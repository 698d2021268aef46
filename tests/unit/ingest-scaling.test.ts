import { describe, expect, it } from 'vitest';
import { chunkBlocks } from '../../src/ingest/chunk.ts';
import { parseText } from '../../src/ingest/parse-text.ts';

const enc = (s: string) => new TextEncoder().encode(s);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Lines without a blank line between them: one paragraph, the case that used to be quadratic. */
const SHAPES: Record<string, (n: number) => string> = {
  log: (n) => Array.from({ length: n }, (_, i) => `11:0${i % 10} INFO req ${i} ok`).join('\n'),
  csv: (n) => Array.from({ length: n }, (_, i) => `${i},item-${i % 97},${i % 13}.50`).join('\n'),
  'one line without spaces': (n) => 'abcdefghij'.repeat(n * 2),
  // Pages of 50 lines with a running header and footer, and a numbered heading every 10 lines.
  'paged, with headings': (n) =>
    Array.from({ length: n }, (_, i) => {
      if (i % 50 === 0) return `\fRFC 1  Title  May 2024`;
      if (i % 50 === 49) return `Author  Standards Track  [Page ${i / 50}]`;
      return i % 10 === 5 ? `\n${Math.floor(i / 10)}.${i % 7}.  Section Heading\n` : `   body text of line ${i} runs on`;
    }).join('\n'),
};

function ingest(bytes: Uint8Array): number {
  const start = performance.now();
  chunkBlocks(parseText(bytes, 'big.txt').blocks);
  return performance.now() - start;
}

/** Median times of parsing and chunking `n` and `4n` lines, five runs each, alternating (the machine is shared). */
function times(shape: (n: number) => string, n: number): { small: number; large: number } {
  const small = enc(shape(n));
  const large = enc(shape(4 * n));
  const t = { small: [] as number[], large: [] as number[] };
  for (let i = 0; i < 5; i++) {
    t.small.push(ingest(small));
    t.large.push(ingest(large));
  }
  return { small: median(t.small), large: median(t.large) };
}

describe('plain-text ingest', () => {
  for (const [name, shape] of Object.entries(SHAPES)) {
    it(`grows linearly with the number of lines (${name}, 50k → 200k)`, () => {
      const { small, large } = times(shape, 50_000);
      // 4× the input: linear ≈ 4, quadratic ≥ 16; 12 leaves room for a busy machine. The floor keeps timer noise out.
      expect(large / Math.max(small, 40)).toBeLessThan(12);
    }, 120_000);
  }

  it('parses and chunks 200k lines (~5 MB) with no blank line', () => {
    const bytes = enc(SHAPES.log!(200_000));
    expect(bytes.length).toBeGreaterThan(4_000_000);
    const spans = chunkBlocks(parseText(bytes, 'big.log').blocks);
    expect(spans.length).toBeGreaterThan(bytes.length / 1500);
  }, 120_000);
});
