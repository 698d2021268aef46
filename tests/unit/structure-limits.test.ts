import { describe, expect, it } from 'vitest';
import { htmlPlainParagraphs } from '../../src/ingest/html-depth-limit.ts';
import { htmlPieces } from '../../src/ingest/markdown-html.ts';
import { parseFile } from '../../src/ingest/parse.ts';
import { parseHtml } from '../../src/ingest/parse-html.ts';
import { guardSource, parseMarkdown } from '../../src/ingest/parse-markdown.ts';
import { DEFAULT_READ_LIMITS, relaxedLimits } from '../../src/ingest/read-limits.ts';
import { capContainerPrefix, checkXmlNesting, isStackOverflow, MAX_HTML_DEPTH, MAX_MARKDOWN_NESTING, measureXmlNesting } from '../../src/ingest/structure-limits.ts';
import { nestedDocx, nestedHtml, quoteBombMarkdown } from '../support/hostile-fixtures.ts';

const enc = (s: string) => new TextEncoder().encode(s);
const textOf = (blocks: ReadonlyArray<{ text: string }>) => blocks.map((b) => b.text).join('\n').replace(/\s+/g, ' ');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Median time of `run` on `small` and on `large` (four times larger), five runs each, alternating. */
function growth(run: (input: string) => unknown, small: string, large: string): number {
  const t = { small: [] as number[], large: [] as number[] };
  for (let i = 0; i < 5; i++) {
    for (const [key, input] of [['small', small], ['large', large]] as const) {
      const start = performance.now();
      run(input);
      t[key].push(performance.now() - start);
    }
  }
  // Linear ≈ 4, quadratic ≥ 16; the floor keeps timer noise out.
  return median(t.large) / Math.max(median(t.small), 30);
}

describe('Markdown container prefixes', () => {
  it('come back unchanged within the limits', () => {
    for (const line of ['> > > quoted', '- - item', '1. 2) 3. x', `${' '.repeat(64)}- deep`, '-x', '12345678901. not a marker', '']) {
      expect(capContainerPrefix(line)).toBe(line);
    }
  });

  it('keep at most 16 markers, then the text at that depth', () => {
    expect(capContainerPrefix(`${'>'.repeat(3000)} deep`)).toBe(`${'>'.repeat(MAX_MARKDOWN_NESTING)} deep`);
    expect(capContainerPrefix(`${'> '.repeat(3000)}deep`)).toBe(`${'> '.repeat(MAX_MARKDOWN_NESTING)}deep`);
    expect(capContainerPrefix(`${'> - '.repeat(20)}mixed`)).toBe(`${'> - '.repeat(MAX_MARKDOWN_NESTING / 2)}mixed`);
    expect(capContainerPrefix(`${'- '.repeat(17)}`)).toBe('- '.repeat(16));
  });

  it('cut whitespace past 64 columns, a tab counting 4', () => {
    expect(capContainerPrefix(`${' '.repeat(100)}- deep`)).toBe(`${' '.repeat(64)}- deep`);
    expect(capContainerPrefix(`${'\t'.repeat(20)}x`)).toBe(`${'\t'.repeat(16)}x`);
  });
});

describe('Markdown nested thousands deep', () => {
  it('reads the 3,000-line blockquote bomb (4.5 MB) with every line of text, in well under a second', () => {
    const start = performance.now();
    const { blocks } = parseMarkdown(enc(quoteBombMarkdown(3000)), 'bomb.md');
    expect(performance.now() - start).toBeLessThan(5000); // unguarded: 10 s at 1,500 lines, 2.7 GB at 2,000
    const text = textOf(blocks);
    for (const i of [0, 15, 16, 1500, 2999]) expect(text).toMatch(new RegExp(`\\bline ${i}\\b`));
  });

  it('reads a quote whose depth keeps falling (lazy lines) in time linear in its length, keeping the text', () => {
    const lazy = (n: number) => Array.from({ length: n }, (_, i) => (i % 2 ? `> line ${i}` : `line ${i}`)).join('\n');
    // marked alone: 0.15 s for 10k lines, 9.4 s for 40k.
    expect(growth((s) => parseMarkdown(enc(s), 'lazy.md'), lazy(10_000), lazy(40_000))).toBeLessThan(12);
    const guarded = guardSource(lazy(1000));
    expect(guarded.split('\n').filter((l) => !l).length).toBeGreaterThan(0);
    expect(textOf(parseMarkdown(enc(lazy(1000)), 'lazy.md').blocks)).toMatch(/\bline 999\b/);
  });

  it('reads raw HTML nested past the limit inside Markdown as text', () => {
    const pieces = htmlPieces(`<div>${'<span>deep '.repeat(MAX_HTML_DEPTH * 2)}</div><p>After the nest.</p>`);
    expect(pieces.map((p) => p.text).join(' ')).toMatch(/deep deep.*After the nest\./);
  });
});

describe('HTML nested past the limit', () => {
  it('reads the rest of the page as plain text: every level and what follows, the section kept', () => {
    const html = nestedHtml('div', 100_000, 'The nest ends here.').replace('<body>', '<body><h1>Boxes</h1>');
    const { blocks } = parseHtml(enc(html), 'nest.html');
    expect(blocks.map((b) => b.label)).toEqual(['Boxes']);
    const text = textOf(blocks);
    for (const i of [0, MAX_HTML_DEPTH - 1, MAX_HTML_DEPTH, 99_999]) expect(text).toMatch(new RegExp(`\\blevel ${i}\\b`));
    expect(text).toMatch(/The nest ends here\.$/);
  });

  it('parses in time linear in the depth (htmlparser2 alone: 5.8 s for 100k unclosed elements, 25 s for 200k)', () => {
    const unclosed = (n: number) => `<p>start</p>${'<i>x '.repeat(n)}`;
    expect(growth((s) => parseHtml(enc(s), 'i.html'), unclosed(50_000), unclosed(200_000))).toBeLessThan(12);
  });

  it('plain reading: tags dropped, blocks end paragraphs, scripts and comments skipped, entities decoded', () => {
    expect(htmlPlainParagraphs('<div><b>Rent</b> is due</div><p>Mon &amp; Tue<script>alert("<p>")</script><!-- <p>x --> 5 < 6')).toEqual(['Rent is due', 'Mon & Tue 5 < 6']);
  });
});

describe('Word nesting', () => {
  it('measures XML nesting in one pass, naming the element nested deepest within itself', () => {
    expect(measureXmlNesting('<?xml version="1.0"?><a><b><b x="1"/><b></b></b><!-- <c> --></a>')).toEqual({ depth: 3, deepest: { name: 'b', count: 2 } });
    expect(() => checkXmlNesting(`${'<w:hyperlink>'.repeat(300)}${'</w:hyperlink>'.repeat(300)}`, 'a.docx', 256)).toThrow(
      'a.docx: too deeply nested to read here (hyperlinks nested 300 deep, 300 levels in all; the limit is 256). Press Try again to insist',
    );
  });

  it('refuses tables nested 3,000 deep by name before mammoth runs, and still clearly when insisting', async () => {
    const docx = await nestedDocx('tables', 3000);
    await expect(parseFile(docx, 'nest.docx')).rejects.toMatchObject({
      code: 'read-limit',
      message: 'nest.docx: too deeply nested to read here (tables nested 3,000 deep, 9,005 levels in all; the limit is 256). Press Try again to insist',
    });
    await expect(parseFile(docx, 'nest.docx', { limits: relaxedLimits(DEFAULT_READ_LIMITS) })).rejects.toMatchObject({ code: 'read-limit', message: expect.stringMatching(/^nest\.docx: too deeply nested to read here/) });
  });

  it('says "too deeply nested", not "may be damaged", when mammoth runs out of stack past a raised limit', async () => {
    const docx = await nestedDocx('tables', 3000);
    await expect(parseFile(docx, 'nest.docx', { limits: { ...DEFAULT_READ_LIMITS, maxDocxDepth: 1e6 } })).rejects.toMatchObject({
      code: 'read-limit',
      message: expect.stringMatching(/^nest\.docx: too deeply nested to read here \(its nesting ran the reader out of stack space\)/),
    });
  });

  it('reads documents nested within the limit', async () => {
    for (const nesting of ['tables', 'content controls', 'hyperlinks', 'smart tags'] as const) {
      const { parsed } = await parseFile(await nestedDocx(nesting, 40, 'The nest ends here.'), 'nest.docx');
      expect(textOf(parsed.blocks)).toContain('The nest ends here.');
    }
  });
});

describe('stack overflows', () => {
  it('are recognised whichever engine threw them', () => {
    const recurse = (n: number): number => recurse(n + 1) + 1;
    let overflow: unknown;
    try {
      recurse(0);
    } catch (error) {
      overflow = error;
    }
    expect(isStackOverflow(overflow)).toBe(true);
    expect(isStackOverflow(Object.assign(new Error('too much recursion'), { name: 'InternalError' }))).toBe(true);
    expect(isStackOverflow(new RangeError('Invalid array length'))).toBe(false);
  });
});
