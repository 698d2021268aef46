/**
 * One small library in every format the app reads, each holding a fact written with a decimal or a
 * version number, in the markup real files use around it: inline HTML, reference links, tables, form
 * feeds with running footers, Word heading styles, a PDF page whose text extracts as garbage, and a
 * password-protected Word file. Used by the end-to-end "exact text, exact citations" test.
 */
import { Document, HeadingLevel, Packer, Paragraph, Table, TableCell, TableRow, TextRun } from 'docx';
import { makeEncryptedDocx, makeGarbledPdf, rfcLikeLines } from './fixtures.ts';

/** A fact a question should find: the exact sentence to quote and the location it should be cited at. */
export interface Fact {
  file: string;
  question: string;
  sentence: string;
  location: string;
}

export const HTML_PAGE = `<!doctype html>
<html><head><title>Plans and prices</title></head><body>
<nav><a href="/">Home</a> | <a href="/plans">Plans</a> | <a href="/help">Help</a></nav>
<header><p>Example Cloud: sign in</p></header>
<main>
<h1 id="plans">Plans and prices<a class="headerlink" href="#plans">¶</a></h1>
<h2 id="basic">Basic plan<a class="headerlink" href="#basic">¶</a></h2>
<p>The <b>Basic</b> plan costs <font color="#c00">€8.65</font> per month and includes <em>two</em> seats.
Each extra seat costs <span class="price">€2.40</span> per month.</p>
<h2 id="yearly">Yearly prices<a class="headerlink" href="#yearly">¶</a></h2>
<table>
<tr><th>Plan</th><th>Price per year</th></tr>
<tr><td>Basic</td><td>€95.15</td></tr>
<tr><td>Team</td><td>€310.40</td></tr>
</table>
</main>
<aside>Related: <a href="/blog">our blog</a></aside>
<footer>Copyright 2031 Example Cloud</footer>
</body></html>`;

export const MARKDOWN = `# Upgrade guide

## Requirements

Clients must use <b>TLS 1.3</b> or later, as the [security notes][sec] explain.
The agent needs <code>libssl</code> from release 3.0.2 on.

{{#include ../shared/footer.md}}

| Component | Minimum version |
| --- | --- |
| Server | 2.4.1 |
| Agent | 10.0.2 |

[sec]: https://example.org/security "Security notes"
`;

/** The RFC-style specification of the fixtures, with a versioned fact in section 2.1. */
export function rfcText(): string {
  return rfcLikeLines()
    .flatMap((line) => (line === '   A widget frame starts with a type octet.' ? [line, '', '   Frames of version 2.1 carry a checksum of 16 bits; older frames carry', '   none.'] : [line]))
    .join('\n');
}

/** A lease with heading styles, a nested heading, a table and facts with decimals. */
export async function leaseDocx(): Promise<Uint8Array> {
  const cell = (text: string) => new TableCell({ children: [new Paragraph(text)] });
  const row = (...cells: string[]) => new TableRow({ children: cells.map(cell) });
  const doc = new Document({
    title: 'Lease of Flat 4',
    sections: [
      {
        children: [
          new Paragraph({ text: 'Lease of Flat 4', heading: HeadingLevel.TITLE }),
          new Paragraph({ text: 'Rent', heading: HeadingLevel.HEADING_1 }),
          new Paragraph({ children: [new TextRun('The monthly rent is '), new TextRun({ text: '€1,250.50', bold: true }), new TextRun(' and is due on the first day of the month.')] }),
          new Paragraph({ text: 'Indexation', heading: HeadingLevel.HEADING_2 }),
          new Paragraph('The rent rises by 2.5 % each January, never by more.'),
          new Paragraph({ text: 'Charges', heading: HeadingLevel.HEADING_1 }),
          new Table({ rows: [row('Item', 'Price'), row('Heating', '€40.75'), row('Water', '€12.20')] }),
        ],
      },
    ],
  });
  return new Uint8Array(await Packer.toBuffer(doc));
}

/** A firmware note whose second page's font maps to the private-use area: unreadable text. */
export function firmwarePdf(): Uint8Array {
  return makeGarbledPdf([
    { lines: ['Release notes', '', 'Firmware 4.2.1 fixes the charging fault of the dock.', 'Install it before pairing a new dock.'] },
    { lines: ['Known issues of firmware 4.2.0 are listed here.'], garbled: 'private-use' },
    { lines: ['Compatibility', '', 'Docks older than model 3.5 need an adapter.'] },
  ]);
}

/** Every file of the library, by name. */
export async function formatLibrary(): Promise<Record<string, Uint8Array | string>> {
  return {
    'pricing.html': HTML_PAGE,
    'upgrade.md': MARKDOWN,
    'rfc9999.txt': rfcText(),
    'lease.docx': await leaseDocx(),
    'firmware.pdf': firmwarePdf(),
    'protected.docx': makeEncryptedDocx(),
  };
}
