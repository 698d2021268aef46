import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import { parseFile } from '../../src/ingest/parse.ts';
import { DEFAULT_READ_LIMITS } from '../../src/ingest/read-limits.ts';
import { readZipDirectory } from '../../src/core/zip-directory.ts';
import { makeDocx, makePdf } from '../support/fixtures.ts';
import { makeDocxBomb } from '../support/hostile-fixtures.ts';

describe('size caps before decompression', () => {
  it('reads the sizes a ZIP declares without inflating it', async () => {
    const zip = new JSZip();
    zip.file('a.txt', 'x'.repeat(100_000));
    zip.file('dir/b.xml', '<b/>');
    const bytes = await zip.generateAsync({ type: 'uint8array', compression: 'DEFLATE' });
    expect(readZipDirectory(bytes)).toEqual([
      { name: 'a.txt', compressedSize: expect.any(Number), uncompressedSize: 100_000 },
      { name: 'dir/', compressedSize: 0, uncompressedSize: 0 },
      { name: 'dir/b.xml', compressedSize: expect.any(Number), uncompressedSize: 4 },
    ]);
    expect(readZipDirectory(bytes)![0]!.compressedSize).toBeLessThan(1000);
    expect(readZipDirectory(new TextEncoder().encode('not a zip at all, just some words'))).toBeUndefined();
  });

  it('refuses a DOCX zip bomb with "too large to read here" before mammoth inflates it', async () => {
    const bomb = await makeDocxBomb(80);
    expect(bomb.byteLength).toBeLessThan(2 ** 20);
    await expect(parseFile(bomb, 'bomb.docx')).rejects.toMatchObject({
      code: 'read-limit',
      message: 'bomb.docx: too large to read here: its text expands to 80 MB (the limit is 64 MB). Split it into smaller files, or press Try again to insist',
    });
    // An ordinary Word file is well under the cap and still reads.
    const ok = await parseFile(await makeDocx([{ heading: 'Fine', paragraphs: ['An ordinary paragraph.'] }]), 'ok.docx');
    expect(ok.parsed.blocks.map((b) => b.text)).toEqual(['An ordinary paragraph.']);
  });

  it('refuses a PDF with more pages than the limit, saying how many', async () => {
    const pdf = await makePdf(Array.from({ length: 5 }, (_, i) => ({ lines: [['Revenue rose in spring.', 'Costs fell in summer.', 'Staff grew in autumn.', 'Sales slowed in winter.', 'The outlook is calm.'][i]!] })));
    await expect(parseFile(pdf, 'report.pdf', { limits: { ...DEFAULT_READ_LIMITS, maxPdfPages: 4 } })).rejects.toMatchObject({
      code: 'read-limit',
      message: expect.stringContaining('report.pdf: too large to read here: 5 pages (the limit is 4)'),
    });
    expect((await parseFile(pdf, 'report.pdf', { limits: { ...DEFAULT_READ_LIMITS, maxPdfPages: 5 } })).parsed.pages).toBe(5);
  });
});
