import { describe, expect, it } from 'vitest';
import { chunkBlocks } from '../../src/ingest/chunk.ts';
import { createLibrary } from '../../src/library/library.ts';
import { LibraryStore } from '../../src/store/library-store.ts';
import { openLibraryDb } from '../../src/store/schema.ts';
import { parseFile } from '../../src/ingest/parse.ts';
import { parsePdf } from '../../src/ingest/parse-pdf.ts';
import { entriesByPage, flattenOutline, headingKey, readOutline, splitPage, type OutlineEntry, type OutlineNode, type OutlineReader } from '../../src/ingest/pdf-outline.ts';
import { makePdf, type PdfPageSpec } from '../support/fixtures.ts';

const blocksOf = async (pages: PdfPageSpec[], outline?: Parameters<typeof makePdf>[2]) => (await parseFile(await makePdf(pages, 'Lease', outline), 'lease.pdf')).parsed.blocks;
/** Each block as "label · section: first words". */
const summary = (blocks: Array<{ label: string; section?: string; text: string }>) => blocks.map((b) => `${b.label} · ${b.section ?? '-'}: ${b.text.split('\n\n')[0]}`);

/** A lease of three pages: the deposit clause starts mid-page 2, page 3 has no outline entry. */
const LEASE: PdfPageSpec[] = [
  { lines: ['Lease of Flat 4', '', 'Rent', 'The rent is 900 euros a month, due on the fifth.'] },
  { lines: ['Late rent costs a fee of 20 euros.', '', '2.1 Security deposit', 'The landlord holds a deposit of two months of rent.'] },
  { lines: ['The deposit is returned within thirty days of the end of the lease.'] },
];

describe('PDF sections from the outline', () => {
  it('names each block by its path of outline titles, splits a page at a heading, and carries the section over pages', async () => {
    const blocks = await blocksOf(LEASE, [{ title: 'Payment', page: 1, children: [{ title: 'Rent', page: 1 }, { title: 'Security deposit', page: 2 }] }]);
    expect(summary(blocks)).toEqual([
      // "Payment" is not a line of page 1: its section starts at the page's top.
      'page 1 · Payment: Lease of Flat 4',
      'page 1 · Payment › Rent: Rent',
      // Text above the heading belongs to the section in force; the heading (with its number) starts the next.
      'page 2 · Payment › Rent: Late rent costs a fee of 20 euros.',
      'page 2 · Payment › Security deposit: 2.1 Security deposit',
      'page 3 · Payment › Security deposit: The deposit is returned within thirty days of the end of the lease.',
    ]);
    expect(blocks.map((b) => b.page)).toEqual([1, 1, 2, 2, 3]);
    expect(blocks[1]!.text).toBe('Rent\n\nThe rent is 900 euros a month, due on the fifth.');
    // Chunks never cross a block, so no chunk mixes the rent clause with the deposit clause.
    const chunks = chunkBlocks(blocks).map((s) => blocks[s.block]!.text.slice(s.start, s.end));
    expect(chunks.filter((c) => c.includes('two months'))).toEqual(['2.1 Security deposit\n\nThe landlord holds a deposit of two months of rent.']);
  });

  it('leaves a PDF without an outline as it was: one block per page, no section', async () => {
    const blocks = await blocksOf(LEASE);
    expect(blocks.map((b) => [b.label, b.page, b.section])).toEqual([
      ['page 1', 1, undefined],
      ['page 2', 2, undefined],
      ['page 3', 3, undefined],
    ]);
    // The heading set over its text without a gap keeps its own line: never the start of the sentence under it.
    expect(blocks[1]!.text).toBe('Late rent costs a fee of 20 euros.\n\n2.1 Security deposit\nThe landlord holds a deposit of two months of rent.');
  });

  it('gives text before the first outline entry no section', async () => {
    const blocks = await blocksOf(LEASE, [{ title: 'Security deposit', page: 2 }]);
    expect(summary(blocks)).toEqual([
      'page 1 · -: Lease of Flat 4',
      'page 2 · -: Late rent costs a fee of 20 euros.',
      'page 2 · Security deposit: 2.1 Security deposit',
      'page 3 · Security deposit: The deposit is returned within thirty days of the end of the lease.',
    ]);
  });

  it('resolves named destinations, and skips entries whose destination is broken without failing the parse', async () => {
    const blocks = await blocksOf(LEASE, [
      { title: 'Rent', page: 1, name: 'sec.rent' },
      { title: 'Nowhere', page: 9 },
      { title: 'Not a page', page: 0 },
      { title: 'Lost name', page: 2, name: 'sec.lost', missingName: true },
      { title: 'Security deposit', page: 2, name: 'sec.deposit' },
    ]);
    expect(summary(blocks)).toEqual([
      'page 1 · -: Lease of Flat 4',
      'page 1 · Rent: Rent',
      'page 2 · Rent: Late rent costs a fee of 20 euros.',
      'page 2 · Security deposit: 2.1 Security deposit',
      'page 3 · Security deposit: The deposit is returned within thirty days of the end of the lease.',
    ]);
  });

  it('finds a title wrapped over two lines, ignoring case and spacing', async () => {
    const pages: PdfPageSpec[] = [
      { lines: ['Rent is due monthly.', 'TERMINATION OF', 'THE LEASE', 'Either party may end the lease with three months of notice.'] },
    ];
    const blocks = await blocksOf(pages, [{ title: 'Termination  of the lease', page: 1 }]);
    expect(summary(blocks)).toEqual(['page 1 · -: Rent is due monthly.', 'page 1 · Termination of the lease: TERMINATION OF THE LEASE']);
  });

  it('never lets an outline that cannot be read fail the parse', async () => {
    const bytes = await makePdf(LEASE, 'Lease', [{ title: 'Rent', page: 1 }]);
    const reader = (over: Partial<OutlineReader>): OutlineReader => ({
      getOutline: async () => [{ title: 'Rent', dest: [{ num: 1, gen: 0 }], items: [] }],
      getDestination: async () => null,
      getPageIndex: async () => 0,
      ...over,
    });
    await expect(readOutline(reader({ getOutline: () => Promise.reject(new Error('bad /Outlines')) }), new Map(), 3)).resolves.toEqual([]);
    await expect(readOutline(reader({ getPageIndex: () => Promise.reject(new Error('not a page')) }), new Map(), 3)).resolves.toEqual([]);
    await expect(readOutline(reader({ getOutline: async () => [{ title: 'Rent', dest: ['12', null], items: 'junk' } as unknown as OutlineNode] }), new Map(), 3)).resolves.toEqual([]);
    await expect(readOutline(reader({}), new Map(), 3)).resolves.toEqual([{ page: 1, section: 'Rent', key: 'rent' }]);
    // Through pdf.js: the fixture's outline is read (the page of its entry is the first).
    expect((await parsePdf(bytes, 'lease.pdf')).blocks.map((b) => b.section)).toEqual([undefined, 'Rent', 'Rent', 'Rent']);
  });
});

describe('citations of an outlined PDF', () => {
  it('name the page and the section in the Sources list and the Source dialog, for several blocks of one page', async () => {
    const library = createLibrary(new LibraryStore(await openLibraryDb(`pdf-sections-${Date.now()}`)), () => {}, { snapshotDelayMs: 60_000 });
    await library.open();
    await library.startWriting();
    const bytes = await makePdf(LEASE, 'Lease', [{ title: 'Payment', page: 1, children: [{ title: 'Rent', page: 1 }, { title: 'Security deposit', page: 2 }] }]);
    await library.queue.add([{ name: 'lease.pdf', folder: '', blob: new Blob([bytes.slice()]) }]);
    await library.processQueue();

    const deposit = (await library.asking.ask('How large is the deposit the landlord holds?')).citations[0]!.passage;
    const fee = (await library.asking.ask('What fee does late rent cost?')).citations[0]!.passage;
    expect([deposit.label, deposit.page]).toEqual(['page 2 · Payment › Security deposit', 2]);
    expect([fee.label, fee.page]).toEqual(['page 2 · Payment › Rent', 2]);
    expect(fee.block).not.toBe(deposit.block);
    // The Source dialog gets the block (its text view) and the page (its page view) of each.
    const source = await library.documents.getSource({ docId: deposit.docId, block: deposit.block, marks: [] });
    expect(source).toMatchObject({ label: 'page 2 · Payment › Security deposit', page: 2, text: '2.1 Security deposit\n\nThe landlord holds a deposit of two months of rent.' });
    expect((await library.documents.getSource({ docId: fee.docId, block: fee.block, marks: [] })).text).toBe('Late rent costs a fee of 20 euros.');
  });
});

describe('outline entries and page splitting (pure)', () => {
  const node = (title: string, items: OutlineNode[] = []): OutlineNode => ({ title, dest: null, items });

  it('flattens in reading order, with normalised titles joined by " › "', () => {
    const flat = flattenOutline([node(' Part\u00A0 One ', [node('Cafe\u0301', [node('Deep')]), node('')]), node('Part Two')]);
    expect(flat.map((f) => f.section)).toEqual(['Part One', 'Part One › Café', 'Part One › Café › Deep', 'Part One', 'Part Two']);
    expect(flat[3]!.title).toBe('');
  });

  it('leaves out entries below the sixth level, and survives an outline nested 100,000 deep', () => {
    let deep = node('leaf');
    for (let i = 0; i < 100_000; i++) deep = node(`level ${i}`, [deep]);
    const flat = flattenOutline([deep]);
    expect(flat).toHaveLength(6);
    expect(flat.at(-1)!.section.split(' › ')).toHaveLength(6);
  });

  it('compares titles without case, spacing or a section number', () => {
    expect(headingKey(' Security  Deposit ')).toBe('securitydeposit');
    const entry = (key: string, section = key): OutlineEntry => ({ page: 1, section, key });
    const lines = ['Chapter 3: Basic Shell Features', 'text', '3.1.2 Quoting', 'more', 'A.1 Tables', 'Quoting'];
    const { segments } = splitPage(lines, [entry('basicshellfeatures'), entry('quoting'), entry('tables')], undefined);
    expect(segments.map((s) => [s.section, s.lines[0]])).toEqual([
      [undefined, undefined],
      ['basicshellfeatures', 'Chapter 3: Basic Shell Features'],
      ['quoting', '3.1.2 Quoting'],
      ['tables', 'A.1 Tables'],
    ]);
  });

  it('keeps the outline order: an entry found before the previous one is taken as not found', () => {
    const entry = (key: string): OutlineEntry => ({ page: 1, section: key, key });
    const { segments, inForce } = splitPage(['b', 'x', 'a', 'y'], [entry('a'), entry('b')], 'earlier');
    // "b" is above "a" on the page: it takes over the section "a" opened, and stays in force.
    expect(segments.map((s) => [s.section, s.lines.join('|')])).toEqual([
      ['earlier', 'b|x'],
      ['b', 'a||y'],
    ]);
    expect(inForce).toBe('b');
  });

  it('stays linear: a 10,000-page document with a 5,000-entry outline, and 5,000 entries on one page', () => {
    const time = (pages: number, entries: number, onOnePage: boolean) => {
      const start = performance.now();
      const lines = Array.from({ length: 40 }, (_, i) => `line ${i} of the page`);
      const key = (i: number) => (!onOnePage ? `line${i % 40}ofthepage` : i % 2 ? 'text' : `heading${2 * i + 1}`);
      const outline: OutlineEntry[] = Array.from({ length: entries }, (_, i) => ({ page: onOnePage ? 1 : 1 + Math.floor((i * pages) / entries), section: `S${i}`, key: key(i) }));
      const byPage = entriesByPage(outline, pages);
      // One page: every other line a heading, half the entries found, half sharing one key ("text").
      const big = onOnePage ? Array.from({ length: entries * 2 }, (_, i) => (i % 2 ? `${i}. Heading ${i}` : 'text')) : lines;
      let inForce: string | undefined;
      for (let p = 1; p <= pages; p++) inForce = splitPage(p === 1 ? big : lines, byPage[p]!, inForce).inForce;
      return performance.now() - start;
    };
    const median = (f: () => number) => [f(), f(), f()].sort((a, b) => a - b)[1]!;
    const small = median(() => time(2_500, 1_250, false));
    const large = median(() => time(10_000, 5_000, false));
    expect(large / Math.max(small, 20)).toBeLessThan(12);
    const oneSmall = median(() => time(1, 1_250, true));
    const oneLarge = median(() => time(1, 5_000, true));
    expect(oneLarge / Math.max(oneSmall, 20)).toBeLessThan(12);
  });
});
