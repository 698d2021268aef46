// A document's own date (for "the reports from 2023"): read from a PDF's info dictionary and a Word file's
// core properties, kept on the document record.
import JSZip from 'jszip';
import { PDFDocument } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { parsePdfDate, parseIsoDate } from '../../src/ingest/doc-date.ts';
import { parseFile } from '../../src/ingest/parse.ts';
import { prepareDocument } from '../../src/ingest/prepare-document.ts';
import { makeDocx, makePdf } from '../support/fixtures.ts';

const NOW = Date.UTC(2024, 10, 30);

describe('document dates', () => {
  it('reads PDF date strings, with their time zone, and ignores placeholders and the future', () => {
    expect(parsePdfDate("D:20230115093000+01'00'", NOW)).toBe(Date.UTC(2023, 0, 15, 8, 30));
    expect(parsePdfDate('D:20230115093000Z', NOW)).toBe(Date.UTC(2023, 0, 15, 9, 30));
    expect(parsePdfDate('D:2021', NOW)).toBe(Date.UTC(2021, 0, 1));
    expect(parsePdfDate('D:19700101000000Z', NOW)).toBeUndefined();
    expect(parsePdfDate('D:20991231', NOW)).toBeUndefined();
    expect(parsePdfDate('yesterday', NOW)).toBeUndefined();
    expect(parsePdfDate(42, NOW)).toBeUndefined();
    expect(parseIsoDate('2022-03-04T05:06:07Z', NOW)).toBe(Date.UTC(2022, 2, 4, 5, 6, 7));
    expect(parseIsoDate('not a date', NOW)).toBeUndefined();
  });

  it("keeps a PDF's modification date on its document", async () => {
    const pdf = await PDFDocument.load(await makePdf([{ lines: ['The lease was signed in spring.'] }]));
    pdf.setCreationDate(new Date(Date.UTC(2019, 4, 1)));
    pdf.setModificationDate(new Date(Date.UTC(2020, 6, 2)));
    const bytes = await pdf.save({ updateFieldAppearances: false });
    const { parsed } = await parseFile(bytes, 'lease.pdf');
    expect(parsed.date).toBe(Date.UTC(2020, 6, 2));
    const prepared = await prepareDocument({ bytes, name: 'lease.pdf', folder: '', addedAt: NOW });
    expect(prepared.doc.date).toBe(Date.UTC(2020, 6, 2));
  });

  it("keeps a Word file's modified date, else its created date", async () => {
    const zip = await JSZip.loadAsync(await makeDocx([{ heading: 'Lease', paragraphs: ['The rent is due monthly.'] }]));
    const core = await zip.file('docProps/core.xml')!.async('string');
    const dated = (xml: string) => zip.file('docProps/core.xml', xml).generateAsync({ type: 'uint8array' });
    const withDates = core
      .replace(/<dcterms:created[^<]*<\/dcterms:created>/u, '<dcterms:created xsi:type="dcterms:W3CDTF">2018-02-03T00:00:00Z</dcterms:created>')
      .replace(/<dcterms:modified[^<]*<\/dcterms:modified>/u, '<dcterms:modified xsi:type="dcterms:W3CDTF">2021-09-10T12:00:00Z</dcterms:modified>');
    expect((await parseFile(await dated(withDates), 'lease.docx')).parsed.date).toBe(Date.UTC(2021, 8, 10, 12));
    const createdOnly = withDates.replace(/<dcterms:modified[^<]*<\/dcterms:modified>/u, '');
    expect((await parseFile(await dated(createdOnly), 'lease.docx')).parsed.date).toBe(Date.UTC(2018, 1, 3));
  });
});
