import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { joinLines, linesToParagraphs, normalizeCode, normalizeForId, normalizeText, removeRunningLines } from '../../src/ingest/clean.ts';
import { prepareDocument } from '../../src/ingest/prepare-document.ts';

describe('normalizeText', () => {
  it('composes to NFC so visually equal text is byte-equal', () => {
    const decomposed = 'Cafe\u0301 nai\u0308ve';
    expect(normalizeText(decomposed)).toBe('Café naïve');
    expect(normalizeText(decomposed)).toBe(normalizeText('Café naïve'));
  });

  it('collapses runs of spaces, tabs and no-break spaces, trims lines and the whole text', () => {
    expect(normalizeText('  alpha \t\u00A0 beta  \n   gamma\u3000delta   ')).toBe('alpha beta\ngamma delta');
  });

  it('turns CR/LF and Unicode line separators into \\n and keeps at most one blank line', () => {
    expect(normalizeText('one\r\ntwo\rthree\u2028four')).toBe('one\ntwo\nthree\nfour');
    expect(normalizeText('para one\n\n\n\n\npara two\n \n \n\npara three')).toBe('para one\n\npara two\n\npara three');
  });

  it('strips control characters, zero-width spaces and byte-order marks', () => {
    expect(normalizeText('\uFEFFhel\u200Blo\u0000 wor\u0007ld')).toBe('hello world');
  });

  it('strips bidi embeddings, overrides, isolates and marks, which would reorder what is shown', () => {
    const bidi = '\u202A\u202B\u202C\u202D\u202E\u2066\u2067\u2068\u2069\u200E\u200F\u061C';
    expect(normalizeText(`Total${bidi}: 5\u202E00 EUR\u202C`)).toBe('Total: 500 EUR');
    expect(normalizeText('\u2067\u05E9\u05DC\u05D5\u05DD\u2069 ok')).toBe('\u05E9\u05DC\u05D5\u05DD ok');
    expect(normalizeForId(`a\u202E b${bidi}c`)).toBe('a bc');
  });

  it('is idempotent and never leaves double spaces, 3 newlines in a row, or padded lines', () => {
    const piece = fc.constantFrom('a', 'é', 'e\u0301', ' ', '\t', '\n', '\r\n', '\u00A0', '\u200B', 'x', '中', '\u2029', '  ');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }), (parts) => {
        const once = normalizeText(parts.join(''));
        expect(normalizeText(once)).toBe(once);
        expect(once).not.toMatch(/ {2}|\n{3}|\t|\r| \n|\n | $|^ /);
        expect(once).toBe(once.normalize('NFC'));
      }),
    );
  });
});

describe('normalizeForId', () => {
  it('collapses all whitespace, including newlines, to single spaces', () => {
    expect(normalizeForId('  one\n\ntwo \t three  ')).toBe('one two three');
  });
});

describe('joinLines', () => {
  it('re-joins a word broken by a hyphen at the end of a line when the next line starts lower-case', () => {
    expect(joinLines(['the inter-', 'national treaty'])).toBe('the international treaty');
    expect(joinLines(['über- ', 'prüfung'])).toBe('überprüfung');
    expect(joinLines(['see the inter-', 'national and supra-', 'national law'])).toBe('see the international and supranational law');
  });

  it('keeps the hyphen-joined line separate when the next line starts with an upper-case letter or a digit', () => {
    expect(joinLines(['the Franco-', 'German border'])).toBe('the Franco- German border');
    expect(joinLines(['pages 10-', '12 apply'])).toBe('pages 10- 12 apply');
  });

  it('does not join after a hyphen that follows a non-letter', () => {
    expect(joinLines(['see item 3-', 'below'])).toBe('see item 3- below');
  });

  it('joins ordinary lines with one space and skips blank lines', () => {
    expect(joinLines(['  first line ', '', 'second line'])).toBe('first line second line');
  });
});

describe('removeRunningLines', () => {
  const page = (n: number, body: string[]) => ['ACME Confidential Report', ...body, `Page ${n} of 5`];

  it('removes headers and footers that repeat (page numbers masked) on at least 60% of pages', () => {
    const topics = ['quotas', 'licences', 'inspections', 'penalties', 'appeals'];
    const body = (t: string) => [`This page is about ${t}.`, '', `More on ${t} follows.`];
    const pages = topics.map((t, i) => page(i + 1, body(t)));
    const out = removeRunningLines(pages);
    out.forEach((p, i) => expect(p).toEqual(body(topics[i]!)));
  });

  it('removes a header present on exactly 3 of 5 pages (60%) but keeps one on 2 of 5', () => {
    const pages = [1, 2, 3, 4, 5].map((n) => [n <= 3 ? 'Draft header' : `Unique top ${'x'.repeat(n)}`, `Body text ${'y'.repeat(n)}`, n <= 2 ? 'Rare footer' : `Unique end ${'z'.repeat(n)}`]);
    const out = removeRunningLines(pages);
    expect(out.flat()).not.toContain('Draft header');
    expect(out.flat().filter((l) => l === 'Rare footer')).toHaveLength(2);
  });

  it('keeps body lines even when they repeat, if they are not at the top or bottom of the page', () => {
    const pages = [1, 2, 3, 4].map((n) => [`Top ${'a'.repeat(n)}`, `Second ${'b'.repeat(n)}`, 'The same sentence in every body.', `Next to last ${'c'.repeat(n)}`, `Bottom ${'d'.repeat(n)}`]);
    const out = removeRunningLines(pages);
    expect(out).toEqual(pages);
  });

  it("removes a book's chapter headers, which run for one chapter only, also on every other page", () => {
    // 30 pages, 3 chapters of 10; odd pages head with the chapter, even pages with the book's title.
    const chapters = ['Introduction', 'Basic Shell Features', 'Shell Builtin Commands'];
    const pages = Array.from({ length: 30 }, (_, p) => {
      const chapter = Math.floor(p / 10);
      const header = p % 2 ? `Chapter ${chapter + 1}: ${chapters[chapter]} ${p + 1}` : `Bash Reference Manual ${p + 1}`;
      const first = p % 10 === 0 ? [`${chapter + 1} ${chapters[chapter]}`] : [];
      return [header, ...first, `Body of page ${p + 1} says something ${'x'.repeat(p)}.`];
    });
    const out = removeRunningLines(pages);
    expect(out.flat().filter((l) => l.startsWith('Chapter') || l.startsWith('Bash Reference'))).toEqual([]);
    // The chapter titles at the top of a chapter's first page appear once each: they stay.
    expect(out.flat().filter((l) => /^\d /.test(l))).toEqual(['1 Introduction', '2 Basic Shell Features', '3 Shell Builtin Commands']);
    expect(out.flat().filter((l) => l.startsWith('Body'))).toHaveLength(30);
  });

  it('keeps a line that starts two pages near each other (not a running header)', () => {
    const pages = Array.from({ length: 12 }, (_, p) => [p === 4 || p === 6 ? 'Table 2 (continued)' : `Top ${'t'.repeat(p)}`, `Body ${'b'.repeat(p)}`]);
    expect(removeRunningLines(pages)).toEqual(pages);
  });

  it('leaves documents with fewer than 3 pages untouched', () => {
    const pages = [page(1, ['One.']), page(2, ['Two.'])];
    expect(removeRunningLines(pages)).toEqual(pages);
    expect(removeRunningLines([page(1, ['Only.'])])).toEqual([page(1, ['Only.'])]);
  });

  it("never removes a page's only lines: one-line and two-line pages from the same template stay", () => {
    const oneLine = [1234, 1235, 1236, 1237].map((n) => [`Invoice ${n} total ${n % 90}.00`]);
    expect(removeRunningLines(oneLine)).toEqual(oneLine);
    const twoLines = [1, 2, 3].map((n) => ['ACME Ltd invoice', '', `Invoice ${n} total ${n}.00`]);
    expect(removeRunningLines(twoLines)).toEqual(twoLines);
  });

  it('still removes headers and footers from pages with a body when another page holds only them', () => {
    const pages = [page(1, ['Body one.']), page(2, []), page(3, ['Body three.']), page(4, ['Body four.'])];
    expect(removeRunningLines(pages)).toEqual([['Body one.'], page(2, []), ['Body three.'], ['Body four.']]);
  });

  it('keeps empty lines (paragraph breaks)', () => {
    const pages = [1, 2, 3].map((n) => page(n, [`A ${'p'.repeat(n)}`, '', `B ${'q'.repeat(n)}`]));
    expect(removeRunningLines(pages).map((p) => p.filter((l) => l === '').length)).toEqual([1, 1, 1]);
  });
});

describe('linesToParagraphs', () => {
  it('splits at blank lines and re-joins hyphenated words inside a paragraph', () => {
    expect(linesToParagraphs(['This is the inter-', 'national part.', '', '  ', 'Second one.'])).toEqual(['This is the international part.', 'Second one.']);
  });
});

describe('linesToParagraphs: headings set without a gap', () => {
  const body = ['The trial enrolled 120 patients at five sites between March and', 'October, and followed each of them for a year.'];

  it('keeps a short line without final punctuation apart from the sentence under it', () => {
    expect(linesToParagraphs(['Chapter 4. Results', ...body])).toEqual([`Chapter 4. Results\n${body.join(' ')}`]);
    expect(linesToParagraphs(['Results', ...body])).toEqual([`Results\n${body.join(' ')}`]);
  });

  it('joins wrapped prose, a line that ends a sentence or a clause, and a short line before lower case', () => {
    expect(linesToParagraphs(body)).toEqual([body.join(' ')]);
    expect(linesToParagraphs(['Summary.', ...body])).toEqual([`Summary. ${body.join(' ')}`]);
    expect(linesToParagraphs(['In short,', ...body])).toEqual([`In short, ${body.join(' ')}`]);
    expect(linesToParagraphs(['Patients who', 'were enrolled at five sites between March and October were followed.'])).toEqual(['Patients who were enrolled at five sites between March and October were followed.']);
  });
});

describe('normalizeCode', () => {
  const PROGRAM = 'def f(x):\n    if x:\n        return 1\n\n    return 2';

  it('keeps each line\'s indentation, less what all lines share, and the spaces inside a line', () => {
    expect(normalizeCode(`\n\n    def f(x):   \n        if x:\n            return 1\n\n\n\n        return 2\n\n`)).toBe(PROGRAM);
    expect(normalizeCode('x  = 1\u00A0 # aligned\r\ny\u200B = 22\u202E')).toBe('x  = 1  # aligned\ny = 22');
    expect(normalizeCode('\n \n\t\n')).toBe('');
  });

  it('gives the same chunk id text as before: only the spaces differ', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', 'b', ' ', '\t', '\n', '\u00A0', '(', ':') }), (text) => {
        expect(normalizeForId(normalizeCode(text))).toBe(normalizeForId(normalizeText(text)));
      }),
    );
  });

  it('keeps the indentation of code blocks in HTML <pre> and Markdown fences, as the Source view shows them', async () => {
    const html = `<html><body><h1>Sorting</h1><p>Use a key.</p><pre>\n${PROGRAM}\n</pre><p>Done.</p></body></html>`;
    const md = `# Sorting\n\nUse a key.\n\n\`\`\`python\n${PROGRAM}\n\`\`\`\n\nDone.\n`;
    for (const [name, text] of [['sort.html', html], ['sort.md', md]]) {
      const prepared = await prepareDocument({ name: name!, folder: '', bytes: new TextEncoder().encode(text), addedAt: 0 });
      const block = prepared.blocks[0]!;
      expect(block.text).toBe(`Use a key.\n\n${PROGRAM}\n\nDone.`);
      expect(block.code).toEqual([{ start: 12, end: 12 + PROGRAM.length }]);
    }
  });

  it('reads a block of 201,000 lines, most of them blank', () => {
    const long = ('\n'.repeat(1000) + '    x = 1\n').repeat(200);
    const out = normalizeCode(long);
    expect(out.split('\n').filter(Boolean)).toHaveLength(200);
    expect(out.startsWith('x = 1')).toBe(true);
  });
});
