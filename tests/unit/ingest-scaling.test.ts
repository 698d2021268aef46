import { describe, expect, it } from 'vitest';
import { chunkBlocks } from '../../src/ingest/chunk.ts';
import { parseMarkdown } from '../../src/ingest/parse-markdown.ts';
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

type Parse = typeof parseText | typeof parseMarkdown;

/** Markdown shapes: many small blocks, and the ones marked's lexer is super-linear on unguarded. */
const MARKDOWN_SHAPES: Record<string, (n: number) => string> = {
  'list items': (n) => Array.from({ length: n }, (_, i) => `- item ${i} with *some* [text](http://x/${i})`).join('\n'),
  'table rows': (n) => `| n | item | price |\n|---|---|---|\n${Array.from({ length: n }, (_, i) => `| ${i} | item-${i % 97} | ${i % 13}.50 |`).join('\n')}`,
  'sections and code': (n) => Array.from({ length: n }, (_, i) => (i % 10 === 0 ? `## Part ${i}` : i % 10 === 5 ? '```\n# code\n```' : `Text ${i} with \`code\`.`)).join('\n\n'),
  'one list item, lazy lines': (n) => `- item\n${Array.from({ length: n }, (_, i) => `line ${i}`).join('\n')}`,
  'emphasis delimiters in one paragraph': (n) => '*a_'.repeat(n),
};

function ingest(bytes: Uint8Array, parse: Parse = parseText): number {
  const start = performance.now();
  chunkBlocks(parse(bytes, 'big').blocks);
  return performance.now() - start;
}

/** Median times of parsing and chunking `n` and `4n` lines, five runs each, alternating (the machine is shared). */
function times(shape: (n: number) => string, n: number, parse: Parse = parseText): { small: number; large: number } {
  const small = enc(shape(n));
  const large = enc(shape(4 * n));
  const t = { small: [] as number[], large: [] as number[] };
  for (let i = 0; i < 5; i++) {
    t.small.push(ingest(small, parse));
    t.large.push(ingest(large, parse));
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

describe('Markdown ingest', () => {
  for (const [name, shape] of Object.entries(MARKDOWN_SHAPES)) {
    // 25k → 100k: Markdown costs ~3× plain text per line (a 200k-item list is 8 MB).
    it(`grows linearly with the number of lines (${name}, 25k → 100k)`, () => {
      const { small, large } = times(shape, 25_000, parseMarkdown);
      expect(large / Math.max(small, 40)).toBeLessThan(12);
    }, 180_000);
  }
});
