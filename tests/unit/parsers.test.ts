import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { outlineLevels } from '../../src/ingest/docx-styles.ts';
import { guardSource, splitFrontMatter } from '../../src/ingest/parse-markdown.ts';
import { parseFile } from '../../src/ingest/parse.ts';
import { prepareDocument } from '../../src/ingest/prepare-document.ts';
import { parsePdf } from '../../src/ingest/parse-pdf.ts';
import { locatePdfAssets } from '../../src/ingest/pdf-assets.ts';
import { makeCorruptDocx, makeDocx, makeGarbledPdf, makeEncryptedDocx, makeStructuredDocx, makeJapanesePdf, makePasswordPdf, makePdf, makeScannedPdf, junkBytes, rfcLikeLines } from '../support/fixtures.ts';

const enc = (s: string) => new TextEncoder().encode(s);

describe('PDF', () => {
  it('keeps pages, removes running headers and footers, re-joins hyphenated words', async () => {
    const topics = ['quotas', 'licences', 'inspections', 'penalties'];
    const pages = topics.map((topic, i) => ({
      header: 'ACME Confidential Report',
      footer: `Page ${i + 1} of 4`,
      lines: [`This part covers ${topic} under the inter-`, 'national treaty on fisheries.', '', `More about ${topic} follows.`],
    }));
    const { type, parsed } = await parseFile(await makePdf(pages, 'Treaty Review'), 'treaty.pdf');
    expect(type).toBe('pdf');
    expect(parsed.pages).toBe(4);
    expect(parsed.title).toBe('Treaty Review');
    expect(parsed.blocks.map((b) => b.page)).toEqual([1, 2, 3, 4]);
    expect(parsed.blocks[2]!.label).toBe('page 3');
    const text = parsed.blocks.map((b) => b.text).join('\n');
    expect(text).toContain('international treaty on fisheries');
    expect(text).not.toContain('ACME Confidential');
    expect(text).not.toMatch(/Page \d of 4/);
    expect(parsed.blocks[0]!.text.split('\n\n')).toHaveLength(2);
  });

  it('says a password-protected PDF needs its password removed', async () => {
    await expect(parseFile(makePasswordPdf(), 'secret.pdf')).rejects.toMatchObject({ code: 'password-protected', message: expect.stringContaining('password-protected: remove the password and add it again') });
  });

  it('says a PDF whose only page is an image without text has no text', async () => {
    await expect(parseFile(await makeScannedPdf(), 'scan.pdf')).rejects.toMatchObject({ code: 'no-text-layer', message: 'scan.pdf: no text found: the PDF has no text layer and no text was recognised on its pages' });
  });

  it('reads Japanese text in a font that needs a predefined CMap (UniJIS-UCS2-H, not embedded, no ToUnicode)', async () => {
    const bytes = makeJapanesePdf(['東京都の契約書', '', '賃料は毎月五日までに支払う。']);
    // Without pdf.js's CMaps the fixture has no text at all: it really needs them.
    await expect(parsePdf(bytes, 'tokyo.pdf', undefined, { assets: null, ocr: null })).rejects.toMatchObject({ code: 'no-text-layer' });
    const { parsed } = await parseFile(bytes, 'tokyo.pdf');
    // No Title in its metadata: the file name stands in, never the first line.
    expect(parsed).toMatchObject({ title: 'tokyo.pdf', titleSource: 'file-name' });
    const titled = await parseFile(makeJapanesePdf(['東京都の契約書'], '賃貸借契約書'), 'tokyo.pdf');
    expect(titled.parsed).toMatchObject({ title: '賃貸借契約書', titleSource: 'metadata' });
    expect(parsed.blocks[0]!.text).toBe('東京都の契約書\n\n賃料は毎月五日までに支払う。');
  });

  it('in Node, gives pdf.js the CMap and standard font folders of the installed pdfjs-dist', () => {
    const assets = locatePdfAssets();
    expect(assets.useWorkerFetch).toBe(false);
    expect(existsSync(`${assets.cMapUrl}UniJIS-UCS2-H.bcmap`)).toBe(true);
    expect(existsSync(`${assets.cMapUrl}Adobe-Japan1-UCS2.bcmap`)).toBe(true);
    expect(existsSync(`${assets.standardFontDataUrl}LiberationSans-Regular.ttf`)).toBe(true);
  });

  it('reads pages whose fonts do not map to characters from their image, and leaves out those that show symbols', async () => {
    const prose = ['The tenant pays the rent on the first day of each month.', 'The deposit is returned within fourteen days.'];
    const pages = [
      { lines: ['Lease of Flat 4', ...prose] },
      // Text that extracts as private-use code points, drawn in Helvetica: the page shows the sentences.
      ...Array.from({ length: 3 }, () => ({ lines: prose, garbled: 'private-use' as const })),
      { lines: ['Repairs are the landlord’s duty.'.replace('’', "'")] },
      // A subset font's codes drawn in Helvetica: the page itself shows "!\"#$…".
      { lines: prose, garbled: 'symbols' as const },
      { lines: ['Page 7'] },
    ];
    const bytes = makeGarbledPdf(pages, 'Lease of Flat 4');
    const { parsed } = await parseFile(bytes, 'lease.pdf');
    expect(parsed.blocks.map((b) => b.page)).toEqual([1, 2, 3, 4, 5, 7]);
    expect(parsed).toMatchObject({ unreadablePages: [[6, 6]], recognisedPages: [[2, 4]] });
    expect(parsed.blocks.find((b) => b.page === 3)!.text).toContain('The deposit is returned within fourteen days.');
    // "Page 7" is a short text layer on a page with no image: kept as it is, not recognised.
    expect(parsed.blocks.find((b) => b.page === 7)!.text).toBe('Page 7');
    expect(parsed.blocks.map((b) => b.text).join(' ')).not.toMatch(/[\uE000-\uF8FF]|[!"#$%&]{3}/u);
    const prepared = await prepareDocument({ name: 'lease.pdf', folder: '', bytes, addedAt: 1 });
    expect(prepared.doc).toMatchObject({ pages: 7, unreadablePages: [[6, 6]], recognisedPages: [[2, 4]], title: 'Lease of Flat 4', titleSource: 'metadata' });
    expect(prepared.chunks.map((c) => c.text).join(' ')).not.toMatch(/[\uE000-\uF8FF]/u);
    // Without OCR those pages are left out too.
    expect(await parsePdf(bytes, 'lease.pdf', undefined, { ocr: null })).toMatchObject({ unreadablePages: [[2, 4], [6, 6]] });
  });

  it('says a PDF with no readable text cannot be searched, and what to do', async () => {
    const bytes = makeGarbledPdf([{ lines: ['The rent is due monthly.'], garbled: 'symbols' }, { lines: ['The deposit is returned.'], garbled: 'symbols' }]);
    await expect(parseFile(bytes, 'lease.pdf')).rejects.toMatchObject({
      code: 'no-readable-text',
      message: expect.stringMatching(/^lease\.pdf: no readable text: the PDF's fonts do not map to characters.*Add the original document \(Word, HTML or text\) or a PDF made by another program$/),
    });
  });

  it('takes the title from the metadata only when it is one, never from the first line', async () => {
    const lines = { lines: ['Journal of Widgets, Vol. 3', 'The tenant pays the rent.'] };
    const titleOf = async (title?: string | Uint8Array) => (await parseFile(makeGarbledPdf([lines], title), 'lease.pdf')).parsed;
    expect(await titleOf('Lease of Flat 4')).toMatchObject({ title: 'Lease of Flat 4', titleSource: 'metadata' });
    for (const junk of [undefined, 'Untitled', 'Microsoft Word - lease.doc', 'lease.pdf', Uint8Array.from([0xe0, 0xe1, 0xe2, 0xe3, 0xe4])]) {
      expect(await titleOf(junk), String(junk)).toMatchObject({ title: 'lease.pdf', titleSource: 'file-name' });
    }
  });

  it('reads a table in a PDF as rows, cells between " | ", a row a paragraph', async () => {
    const { parsed } = await parseFile(await makePdf([{ lines: ['Server settings', '', ['Setting', 'Default', 'Meaning'], ['work_mem', '4 MB', 'memory for each sort'], ['max_connections', '100', 'concurrent connections'], '', 'Restart the server after a change.'] }]), 'settings.pdf');
    expect(parsed.blocks.map((b) => b.text).join('\n\n').split('\n\n')).toEqual([
      'Server settings',
      'Setting | Default | Meaning',
      'work_mem | 4 MB | memory for each sort',
      'max_connections | 100 | concurrent connections',
      'Restart the server after a change.',
    ]);
  });

  it('rejects junk named .pdf as unreadable', async () => {
    await expect(parseFile(junkBytes(), 'junk.pdf')).rejects.toMatchObject({ code: 'corrupt-file' });
  });
});

describe('DOCX', () => {
  it('keeps a run of Code-styled paragraphs as one code block, with their indentation', async () => {
    const { Document, Packer, Paragraph, HeadingLevel } = await import('docx');
    const doc = new Document({
      styles: { paragraphStyles: [{ id: 'CodeBlock', name: 'Code Block', basedOn: 'Normal', run: { font: 'Courier New' } }] },
      sections: [
        {
          children: [
            new Paragraph({ text: 'Setup', heading: HeadingLevel.HEADING_1 }),
            new Paragraph({ text: 'Run these two commands:' }),
            new Paragraph({ text: 'npm install harbourlog', style: 'CodeBlock' }),
            new Paragraph({ text: 'harbourlog init --port 8080', style: 'CodeBlock' }),
            new Paragraph({ text: '    --verbose', style: 'CodeBlock' }),
            new Paragraph({ text: 'Then open the dashboard.' }),
          ],
        },
      ],
    });
    const { parsed } = await parseFile(new Uint8Array(await Packer.toBuffer(doc)), 'setup.docx');
    const block = parsed.blocks[0]!;
    expect(block.code?.map((r) => block.text.slice(r.start, r.end))).toEqual(['npm install harbourlog\nharbourlog init --port 8080\n    --verbose']);
    expect(block.text).toContain('Then open the dashboard.');
  });

  it('keeps paragraphs set by hand in a monospace font as code, but not a monospace word in a sentence, a style in Courier (web pages converted to Word set news text so), nor a document typed all in Courier', async () => {
    const { Document, Packer, Paragraph, TextRun } = await import('docx');
    const mono = (text: string, font = 'Courier New') => new Paragraph({ children: [new TextRun({ text, font })] });
    const doc = new Document({
      styles: { paragraphStyles: [{ id: 'Terminal', name: 'Terminal', basedOn: 'Normal', run: { font: 'Consolas' } }] },
      sections: [
        {
          children: [
            new Paragraph({ children: [new TextRun('Set '), new TextRun({ text: 'max_wal_size', font: 'Courier New' }), new TextRun(' in the configuration file, as below.')] }),
            mono('max_wal_size = 2GB'),
            mono('checkpoint_timeout = 10min', 'DejaVu Sans Mono'),
            new Paragraph({ text: 'Then restart the server, and check the log for the new values before going on.' }),
            new Paragraph({ text: 'pg_ctl restart -D /var/lib/postgresql', style: 'Terminal' }),
            new Paragraph({ text: 'The restart takes a few seconds on a small database and longer on a big one.' }),
          ],
        },
      ],
    });
    const { parsed } = await parseFile(new Uint8Array(await Packer.toBuffer(doc)), 'wal.docx');
    const block = parsed.blocks[0]!;
    expect(block.code?.map((r) => block.text.slice(r.start, r.end))).toEqual(['max_wal_size = 2GB\ncheckpoint_timeout = 10min']);
    expect(block.text).toContain('pg_ctl restart -D /var/lib/postgresql');
    expect(block.text).toContain('Set max_wal_size in the configuration file, as below.');
    // A filing typed all in Courier is prose.
    const typed = new Document({ sections: [{ children: [mono('The tenant paid the rent on time.'), mono('The landlord kept the deposit anyway.'), mono('x = 1')] }] });
    const { parsed: filing } = await parseFile(new Uint8Array(await Packer.toBuffer(typed)), 'filing.docx');
    expect(filing.blocks.flatMap((b) => b.code ?? [])).toEqual([]);
  });

  it('keeps headings as sections', async () => {
    const bytes = await makeDocx([
      { heading: 'Background', paragraphs: ['The tenant rented the flat in 2019.'] },
      { heading: 'Claims', paragraphs: ['The landlord kept the deposit.', 'The tenant asks for it back.'] },
    ]);
    const { type, parsed } = await parseFile(bytes, 'case.docx');
    expect(type).toBe('docx');
    expect(parsed.blocks.map((b) => b.label)).toEqual(['Background', 'Claims']);
    expect(parsed.blocks[1]!.text).toBe('The landlord kept the deposit.\n\nThe tenant asks for it back.');
    expect(parsed.title).toBe('Background');
  });

  it('takes the title from the document properties when there is one', async () => {
    const bytes = await makeDocx([{ heading: 'Background', paragraphs: ['Text.'] }], 'Smith v. Jones & Co — brief');
    const { parsed } = await parseFile(bytes, 'brief.docx');
    expect(parsed.title).toBe('Smith v. Jones & Co — brief');
    expect(parsed.titleSource).toBe('metadata');
    // Word's placeholder is not a title: the first top-level heading is.
    const placeholder = await parseFile(await makeDocx([{ heading: 'Background', paragraphs: ['Text.'] }], 'Document1'), 'brief.docx');
    expect(placeholder.parsed).toMatchObject({ title: 'Background', titleSource: 'heading' });
  });

  it('makes sections of Title, Heading n and outline-level styles, rows of tables, and keeps notes in their section', async () => {
    const { parsed } = await parseFile(await makeStructuredDocx(), 'lease.docx');
    expect(parsed.title).toBe('Lease of Flat 4');
    expect(parsed.blocks.map((b) => b.label)).toEqual(['Rent', 'Rent › Charges', 'Deposit › Return of the deposit']);
    expect(parsed.blocks[0]!.text).toBe('The rent is fixed for two years.[1]\n\n[1] Agreed by letter on 3 May.');
    expect(parsed.blocks[1]!.text).toBe('Item | Price\n\nHeating | €40\n\nWater | €12');
    expect(parsed.blocks[2]!.text).toBe('The deposit is returned within 14 days.[2]\n\n[2] Indexed yearly.');
  });

  it('reads outline levels from styles, through the styles they are based on', () => {
    const xml = `<w:styles xmlns:w="x">
      <w:style w:type="paragraph" w:styleId="Chapter"><w:name w:val="Chapter"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr></w:style>
      <w:style w:type="paragraph" w:styleId="ChapterRed"><w:basedOn w:val="Chapter"/></w:style>
      <w:style w:type="paragraph" w:styleId="Deep"><w:pPr><w:outlineLvl w:val="7"/></w:pPr></w:style>
      <w:style w:type="paragraph" w:styleId="Body"><w:pPr><w:outlineLvl w:val="9"/></w:pPr></w:style>
      <w:style w:type="character" w:styleId="Strong"><w:pPr><w:outlineLvl w:val="1"/></w:pPr></w:style>
      <w:style w:type="paragraph" w:styleId="LoopA"><w:basedOn w:val="LoopB"/></w:style>
      <w:style w:type="paragraph" w:styleId="LoopB"><w:basedOn w:val="LoopA"/></w:style></w:styles>`;
    expect([...outlineLevels(xml)]).toEqual([['Chapter', 1], ['ChapterRed', 1], ['Deep', 6]]);
  });

  it('says an encrypted Word file is password-protected, and a Word 97–2003 file is not a .docx', async () => {
    await expect(parseFile(makeEncryptedDocx(), 'secret.docx')).rejects.toMatchObject({ code: 'password-protected', message: 'secret.docx: password-protected: remove the password and add it again' });
    const legacy = makeEncryptedDocx();
    legacy.fill(0, 1024 + 2 * 128, 1024 + 2 * 128 + 64); // the third directory entry loses its name "EncryptedPackage"
    await expect(parseFile(legacy, 'old.docx')).rejects.toMatchObject({ code: 'unsupported-type', message: expect.stringContaining('Word 97–2003') });
  });

  it('says a damaged Word file could not be read', async () => {
    await expect(parseFile(await makeCorruptDocx(), 'broken.docx')).rejects.toMatchObject({ code: 'corrupt-file', message: expect.stringContaining('could not be read') });
  });
});

describe('HTML', () => {
  it('keeps text and headings, drops scripts and styles, uses <title>', async () => {
    const html = `<html><head><title>Lease guide</title><style>p{color:red}</style><script>alert('x')</script></head>
      <body><h1>Deposits</h1><p>Deposits must be returned &amp; itemised.</p><script>document.write('evil')</script>
      <h2>Timing</h2><p>Within 14 days.</p></body></html>`;
    const { parsed } = await parseFile(enc(html), 'guide.html');
    expect(parsed.title).toBe('Lease guide');
    expect(parsed.titleSource).toBe('metadata');
    expect(parsed.blocks.map((b) => b.label)).toEqual(['Deposits', 'Deposits › Timing']);
    const all = parsed.blocks.map((b) => b.text).join(' ');
    expect(all).toContain('Deposits must be returned & itemised.');
    expect(all).not.toMatch(/alert|evil|color/);
  });
});

describe('HTML structure', () => {
  it('keeps the range of a <pre> block as code, with its indentation', async () => {
    const html = '<html><body><h1>Setup</h1><p>Run this:</p><pre>npm install harbourlog\n  harbourlog init</pre><p>Then open the page.</p></body></html>';
    const { parsed } = await parseFile(enc(html), 'setup.html');
    const block = parsed.blocks.find((b) => b.text.includes('harbourlog init'))!;
    expect(block.code?.map((r) => block.text.slice(r.start, r.end))).toEqual(['npm install harbourlog\n  harbourlog init']);
  });

  it('reads prose set in fixed lines in a <pre> (an e-mail, an RFC) as paragraphs, but keeps code and a program\'s output as code', async () => {
    const mail = [
      'The remaining data in the body is described one chunk at a time, and',
      'these chunks may be given in any order. Chunks are required unless',
      'otherwise specified.',
      '',
      'Reverting a regular commit just effectively undoes what that commit',
      'did, and is fairly straightforward.',
    ].join('\n');
    const output = 'ERROR:  cannot drop table products because other objects depend on it.\nDETAIL:  constraint orders_product_no_fkey on table orders depends on table products.\nHINT:  Use DROP ... CASCADE to drop the dependent objects too.';
    const session = '# aa-enforce /usr/bin/pidgin\nSetting /usr/bin/pidgin to enforce mode.';
    const { parsed } = await parseFile(enc(`<h1>Notes</h1><pre>${mail}</pre><pre>${output}</pre><pre>${session}</pre>`), 'notes.html');
    const block = parsed.blocks[0]!;
    expect(block.text.startsWith('The remaining data in the body is described one chunk at a time, and these chunks may be given in any order. Chunks are required unless otherwise specified.\n\nReverting a regular commit just effectively undoes what that commit did, and is fairly straightforward.\n\n')).toBe(true);
    expect(block.code?.map((r) => block.text.slice(r.start, r.end))).toEqual([output, session]);
  });


  const parse = async (html: string) => (await parseFile(enc(html), 'page.html')).parsed;
  const text = async (html: string) => (await parse(html)).blocks.map((b) => b.text).join('\n\n');

  it('keeps inline elements inside their sentence, wherever the source breaks its lines', async () => {
    expect(await text('<p>The <b>rent</b> is <font>€8.65</font> per <a href="#">day</a>.</p>')).toBe('The rent is €8.65 per day.');
    // Pretty-printed source: the newlines between inline tags used to become paragraph breaks.
    const inline = ['i', 'em', 'strong', 'span', 'code', 'sup', 'sub', 'small', 'abbr', 'mark', 'u', 's', 'kbd', 'var', 'cite', 'q', 'time', 'label'];
    const html = `<p>The\n\n${inline.map((t) => `<${t}>${t}</${t}>`).join('\n\n')}\n\nend.</p>`;
    expect(await text(html)).toBe(`The ${inline.join(' ')} end.`);
    expect(await text('<p>Flat 4<br>Main Street</p><pre>a  b\n\nc</pre>')).toBe('Flat 4\nMain Street\n\na  b\n\nc');
  });

  it('makes each table row one paragraph, cells joined by " | "', async () => {
    const html = `<p>Before</p><table><caption>Charges</caption><thead><tr><th>Item</th><th>Price</th></tr></thead>
      <tbody><tr><td>Heating</td><td><p>€40</p><p>per month</p></td></tr><tr><td>Water</td><td></td></tr>
      <tr><td>Nested</td><td><table><tr><td>a</td><td>b</td></tr></table></td></tr></tbody></table><p>After</p>`;
    expect((await text(html)).split('\n\n')).toEqual(['Before', 'Charges', 'Item | Price', 'Heating | €40 per month', 'Water |', 'Nested | a | b', 'After']);
  });

  it('drops permalink anchors, also from section names', async () => {
    const html = `<h1>Guide<a class="headerlink" href="#guide" title="Permalink">¶</a></h1><p>Intro.</p>
      <h2 id="x">Install <a href="#x">#</a></h2><p>Run <a href="#s">§</a> it <a href="#l">🔗</a>.</p>
      <h2><a class="anchor" href="#y"><svg><path/></svg></a><a class="anchor" href="#y">Use it</a></h2><p>Go.</p>`;
    const parsed = await parse(html);
    expect(parsed.blocks.map((b) => b.label)).toEqual(['Guide', 'Guide › Install', 'Guide › Use it']);
    expect(parsed.blocks[1]!.text).toBe('Run it.');
  });

  it('drops navigation, asides and the page header and footer, keeps an article header', async () => {
    const html = `<body><header><h1>Site name</h1><nav><a href="/">Home</a></nav></header><div role="navigation">Menu</div>
      <main><article><header><h1>Deposits</h1><p>By the tenants' union</p></header><p>Deposits are returned.</p>
      <aside>Related: rent caps</aside><footer>Filed under housing</footer></article></main><footer>© 2024 Site</footer></body>`;
    const parsed = await parse(html);
    expect(parsed.blocks.map((b) => b.label)).toEqual(['Deposits']);
    expect(parsed.blocks[0]!.text).toBe("By the tenants' union\n\nDeposits are returned.\n\nFiled under housing");
  });

  it('takes <title> when it is one, else the first h1, else the file name', async () => {
    expect(await parse('<title>Untitled</title><h2>Intro</h2><h1>Deposits</h1><p>Text.</p>')).toMatchObject({ title: 'Deposits', titleSource: 'heading' });
    expect(await parse('<title>page.html</title><h2>Intro</h2><p>Text.</p>')).toMatchObject({ title: 'page.html', titleSource: 'file-name' });
    // An inline SVG's <title> is the picture's, not the page's.
    expect(await parse('<title>Deposits</title><p>Text <svg><title>Arrow icon</title></svg>.</p>')).toMatchObject({ title: 'Deposits', titleSource: 'metadata' });
  });

  it('keeps page chrome when it is all the text there is', async () => {
    expect(await text('<nav><ul><li>Rent</li><li>Deposits</li></ul></nav>')).toBe('Rent\n\nDeposits');
  });
});

describe('PDF from a template', () => {
  it('keeps one-line invoice pages instead of rejecting the file as scanned', async () => {
    const pages = [1234, 1235, 1236].map((n) => ({ lines: [`Invoice ${n} total ${n - 1000}.00`] }));
    const { parsed } = await parseFile(await makePdf(pages), 'invoices.pdf');
    expect(parsed.blocks.map((b) => b.text)).toEqual(['Invoice 1234 total 234.00', 'Invoice 1235 total 235.00', 'Invoice 1236 total 236.00']);
  });
});

describe('Markdown', () => {
  it('sections by heading path; code fences are not headings', async () => {
    const md = '# Guide\n\nIntro text.\n\n## Install\n\nRun it.\n\n```\n# not a heading\n```\n\nSetext\n======\n\nBody.';
    const { parsed } = await parseFile(enc(md), 'guide.md');
    expect(parsed).toMatchObject({ title: 'Guide', titleSource: 'heading' });
    expect(parsed.blocks.map((b) => b.label)).toEqual(['Guide', 'Guide › Install', 'Setext']);
    expect(parsed.blocks[1]!.text).toContain('# not a heading');
    // The code block's range in its block, so the page can show it as code.
    const install = parsed.blocks[1]!;
    expect(install.code?.map((r) => install.text.slice(r.start, r.end))).toEqual(['# not a heading']);
    expect(parsed.blocks[0]!.code).toBeUndefined();
  });

  it('keeps the range of every code block, fenced or indented, among the paragraphs of a section', async () => {
    const md = '# Setup\n\nRun:\n\n```sh\nnpm install harbourlog\nharbourlog init --port 8080\n```\n\nThen:\n\n    harbourlog serve\n\nDone.';
    const { parsed } = await parseFile(enc(md), 'setup.md');
    const block = parsed.blocks[0]!;
    expect(block.code?.map((r) => block.text.slice(r.start, r.end))).toEqual(['npm install harbourlog\nharbourlog init --port 8080', 'harbourlog serve']);
  });

  it('reads ATX headings with closing #s, keeps a # that is part of the text, and needs a space after the #s', async () => {
    const md = '## Install ##  \n\na\n\n   # C#\n\nb\n\n###### Deep #\n\nc\n\n#hashtag\n\n####### seven\n\n    # indented code';
    const { parsed } = await parseFile(enc(md), 'h.md');
    expect(parsed.blocks.map((b) => b.label)).toEqual(['Install', 'C#', 'C# › Deep']);
    expect(parsed.blocks[2]!.text).toBe('c\n\n#hashtag\n\n####### seven\n\n# indented code');
  });

  const readme = [
    '---',
    'title: "DocQA: private answers"',
    'layout: page',
    '---',
    '',
    '<h1 align="center"><img src="logo.png" alt="logo"><br>DocQA</h1>',
    '<p align="center">Runs <b>entirely</b> in the browser &copy; 2026<script>track()</script><!-- badge --></p>',
    '',
    '## Setup',
    '',
    'Read the [guide][guide], the [FAQ] and ![the diagram](d.png "Flow"); see <https://example.com/docs>.',
    'Water is H<sub>2</sub>O and E = mc<sup>2</sup>. Use `npm run build` with **care** and _speed_.',
    '',
    '{{#include ../shared/setup.md}}',
    '',
    'Set {{ site.name }} and {% raw %}here{% endraw %} too.',
    '',
    '[guide]: https://example.com/guide "The guide"',
    '[faq]: <https://example.com/faq>',
    '',
    '### Install',
    '',
    '```sh',
    '# install the dependencies',
    'npm install',
    '{{#include ../snippets/install.sh}}',
    '```',
    '',
    '| Option | Default | Meaning |',
    '| ------ | :-----: | ------- |',
    '| `port` | 4173 | the *preview* port |',
    '| `base` |  | [path](/x) |',
    '',
    '- first item',
    '- [x] second item',
    '  continued',
    '  1. nested',
    '',
    '> A quoted',
    '> **remark**.',
    '',
    '<details><summary>More</summary>',
    '',
    'Hidden text.',
    '',
    '</details>',
  ].join('\n');

  it('reads a README: front matter title, HTML headings, links, inline HTML, directives, code, tables, lists', async () => {
    const { parsed } = await parseFile(enc(readme), 'README.md');
    expect(parsed.title).toBe('DocQA: private answers');
    expect(parsed.blocks.map((b) => b.label)).toEqual(['DocQA', 'DocQA › Setup', 'DocQA › Setup › Install']);
    expect(parsed.blocks[0]!.text).toBe('Runs entirely in the browser © 2026');
    expect(parsed.blocks[1]!.text.split('\n\n')).toEqual([
      'Read the guide, the FAQ and the diagram; see https://example.com/docs. Water is H2O and E = mc2. Use npm run build with care and speed.',
      'Set and here too.',
    ]);
    expect(parsed.blocks[2]!.text.split('\n\n')).toEqual([
      '# install the dependencies\nnpm install',
      'Option | Default | Meaning',
      'port | 4173 | the preview port',
      'base | | path',
      'first item',
      'second item continued',
      'nested',
      'A quoted remark.',
      'More',
      'Hidden text.',
    ]);
    const all = parsed.blocks.map((b) => b.text).join('\n');
    for (const noise of ['<', '>', '{{', '{%', '](', '][', 'http://', 'https://example.com/guide', 'layout', 'track', 'badge', '**', '`']) expect(all).not.toContain(noise);
  });

  it('keeps a footnote with the section that refers to it, and drops the [^n] marks', async () => {
    const md = [
      '# Lease', '', '## Rent[^h]', '', 'The rent is fixed for two years.[^1] It rises by 2.5 % after that.[^note]', '',
      '## Deposit', '', 'The deposit is returned within 14 days.', '',
      '[^1]: Agreed by letter on 3 May.', '[^note]: Indexed to inflation,', '    capped at 3 %.', '[^h]: Paid monthly.', '[^unused]: Never referred to.',
    ].join('\n');
    const { parsed } = await parseFile(enc(md), 'lease.md');
    expect(parsed.blocks.map((b) => [b.label, b.text.split('\n\n')])).toEqual([
      ['Lease › Rent', ['The rent is fixed for two years. It rises by 2.5 % after that.', 'Agreed by letter on 3 May.', 'Indexed to inflation, capped at 3 %.', 'Paid monthly.']],
      ['Lease › Deposit', ['The deposit is returned within 14 days.', 'Never referred to.']],
    ]);
  });

  it('drops front matter; without a title field, the title is the first heading', () => {
    expect(splitFrontMatter('---\ntags: [a]\n---\n# Real')).toEqual({ body: '\n\n\n# Real', title: undefined });
    expect(splitFrontMatter('+++\ntitle = "Hugo page"\n+++\ntext').title).toBe('Hugo page');
    expect(splitFrontMatter('---\nno closing fence').body).toBe('---\nno closing fence');
  });

  it('without a heading is titled by its file name, and keeps hyphenated words and hard breaks', async () => {
    const { parsed } = await parseFile(enc('An inter-\nnational treaty.  \nSecond line\\\nthird.'), 'notes.md');
    expect([parsed.title, parsed.titleSource]).toEqual(['notes.md', 'file-name']);
    expect(parsed.blocks).toEqual([{ label: 'beginning', section: undefined, text: 'An international treaty.\nSecond line\nthird.' }]);
  });

  it('cuts list items with thousands of lazy lines and deep indentation without changing the text', async () => {
    const lazy = `- item\n${Array.from({ length: 1000 }, (_, i) => `line ${i}`).join('\n')}`;
    expect(guardSource(lazy).split('\n\n').map((part) => part.split('\n').length)).toEqual([257, 744]);
    const words = async (md: string) => (await parseFile(enc(md), 'l.md')).parsed.blocks.map((b) => b.text).join(' ').split(/\s+/);
    expect(await words(guardSource(lazy))).toEqual(await words(lazy));
    expect(guardSource(`${' '.repeat(100)}- deep`)).toBe(`${' '.repeat(64)}- deep`);
  });

  it('parses a heading line of 200k spaces at once (the old regex backtracked for hours)', async () => {
    const md = `# a${' '.repeat(200_000)}b\n\nBody [[[[${'['.repeat(100_000)}\n\n${'![]('.repeat(50_000)}`;
    const { parsed } = await parseFile(enc(md), 'spaces.md');
    expect(parsed.blocks[0]!.label).toMatch(/^a +b$/);
  });

  it('reads hostile runs of markup in bounded time (marked alone: 40 s for 40k characters of "*a_")', async () => {
    const start = performance.now();
    for (const unit of ['[', '*', '_', '`', '<', '![', '[a](', '**a', '__a', '*a_', '**_', '{{', '<!--', '|']) {
      const run = unit.repeat(Math.ceil(40_000 / unit.length));
      const { parsed } = await parseFile(enc(`Intro.\n\n# ${run}\n\n${run}\n\n- ${run}\n\n| a |\n|---|\n| ${run} |`), 'hostile.md');
      expect(parsed.blocks.length).toBeGreaterThan(0);
    }
    // Nesting deep enough to exhaust the lexer's stack is read as plain text.
    const { parsed } = await parseFile(enc(`${'> '.repeat(20_000)}deep`), 'deep.md');
    expect(parsed.blocks[0]!.text).toContain('deep');
    expect(performance.now() - start).toBeLessThan(30_000);
  }, 60_000);
});

describe('text', () => {
  it('normalises to NFC and whitespace', async () => {
    const { parsed } = await parseFile(enc('Cafe\u0301   au\tlait\r\n\r\n\r\n\r\nsecond'), 'notes.txt');
    expect(parsed.blocks[0]!.text).toBe('Café au lait\n\nsecond');
    expect(parsed.blocks[0]!.label).toBe('lines 1–5');
  });

  it('reads invalid UTF-8 as Windows-1252 instead of failing', async () => {
    const { parsed } = await parseFile(Uint8Array.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x6f, 0x6b]), 'latin1.txt');
    expect(parsed.blocks[0]!.text).toBe('café ok');
  });

  it('refuses empty files and unknown types with clear messages', async () => {
    await expect(parseFile(new Uint8Array(), 'empty.txt')).rejects.toMatchObject({ code: 'empty-file', message: 'empty.txt: the file is empty' });
    await expect(parseFile(enc('   \n  '), 'blank.md')).rejects.toMatchObject({ code: 'empty-file' });
    await expect(parseFile(enc('x'), 'drawing.svg')).rejects.toMatchObject({ code: 'unsupported-type', message: expect.stringContaining('unsupported file type') });
    await expect(parseFile(Uint8Array.from([1, 0, 2, 0]), 'bin.txt')).rejects.toMatchObject({ code: 'corrupt-file' });
  });
});

describe('text structure', () => {
  it('removes page breaks with their running headers and footers, and sections by numbered headings', async () => {
    const lines = rfcLikeLines();
    const { parsed } = await parseFile(enc(lines.join('\n')), 'rfc9999.txt');
    const at = (line: string) => lines.indexOf(line) + 1;
    const body = parsed.blocks.map((b) => b.text).join('\n\n');
    expect(body).not.toMatch(/Standards Track +\[Page|RFC 9999 +WXP|\f/);
    expect(parsed.blocks.map((b) => b.section)).toEqual([
      undefined, 'Abstract', 'Table of Contents', '1. Introduction', '2. Protocol Overview', '2.1. Widget Frames',
      '10.4.15 414 Request-URI Too Long', 'Appendix A. State Machine', 'A.1. Client States',
    ]);
    expect(parsed.blocks[0]!.label).toBe('lines 1–5');
    const intro = parsed.blocks[3]!;
    expect(intro.label).toBe(`1. Introduction (lines ${at('1.  Introduction')}–${at('   2.  The receiver acknowledges it.')})`);
    // The numbered list inside the section stays text.
    expect(intro.text).toBe('Each peer keeps a ledger of the widgets it has sent. The steps are:\n\n1. The sender announces a widget.\n\n2. The receiver acknowledges it.');
    // The paragraph cut by the page break is one paragraph again, its lines counted where they are.
    expect(parsed.blocks[4]!.text).toBe('Peers exchange frames over a reliable transport; each frame carries a counter and a checksum, and nothing else.');
    expect(parsed.blocks[4]!.label).toBe(`2. Protocol Overview (lines ${at('2.  Protocol Overview')}–${at('   counter and a checksum, and nothing else.')})`);
    expect(parsed.blocks[2]!.text).toContain('1. Introduction . . .');
  });

  it('sections a man page by its capitalised headings; a text without headings keeps line labels', async () => {
    const man = 'NAME\n       widget - move widgets\n\nSYNOPSIS\n       widget [-v] file\n\nSHELL GRAMMAR\n\n       Commands are words.';
    const { parsed } = await parseFile(enc(man), 'widget.1.txt');
    expect(parsed.blocks.map((b) => b.label)).toEqual(['NAME (lines 1–2)', 'SYNOPSIS (lines 4–5)', 'SHELL GRAMMAR (lines 7–9)']);
    expect(parsed.blocks[0]!.text).toBe('widget - move widgets');
    const plain = await parseFile(enc('Shopping list:\n1. Eggs\n2. Milk\n\nDone.'), 'notes.txt');
    expect(plain.parsed.blocks.map((b) => b.label)).toEqual(['lines 1–5']);
  });

  it('takes a first line as title only when it reads as one; an RFC gets its file name', async () => {
    const rfc = await parseFile(enc(rfcLikeLines().join('\n')), 'rfc9999.txt');
    expect(rfc.parsed).toMatchObject({ title: 'rfc9999.txt', titleSource: 'file-name' });
    const titled = await parseFile(enc('Widget Release Notes\n\nVersion 2 moves widgets faster.'), 'notes.txt');
    expect(titled.parsed).toMatchObject({ title: 'Widget Release Notes', titleSource: 'heading' });
    // A first paragraph that is a sentence, or all there is, is text.
    for (const text of ['The rent is due monthly.\n\nThe deposit is returned.', 'Widget Release Notes', 'Widget Release Notes\nVersion 2 moves widgets faster.']) {
      expect((await parseFile(enc(text), 'notes.txt')).parsed, text).toMatchObject({ title: 'notes.txt', titleSource: 'file-name' });
    }
  });

  it('sections reStructuredText (and READMEs) by underlined headings, the first one the title', async () => {
    const rst = [
      '===========', ' Widget 3.2', '===========', '',
      'Widget moves widgets.', '',
      'Installation', '------------', '',
      'Run ``make install``; version 3.2.1 needs Python 3.11.', '',
      'Name      Value', '----      -----', 'speed     2.5', '',
      'Upgrading from 2.x', '~~~~~~~~~~~~~~~~~~', 'Remove the old cache first.',
    ].join('\n');
    const { type, parsed } = await parseFile(enc(rst), 'README.rst');
    expect(type).toBe('text');
    expect(parsed).toMatchObject({ title: 'Widget 3.2', titleSource: 'heading' });
    expect(parsed.blocks.map((b) => b.label)).toEqual(['Widget 3.2 (lines 1–5)', 'Installation (lines 7–14)', 'Upgrading from 2.x (lines 16–18)']);
    expect(parsed.blocks[1]!.text).toContain('version 3.2.1 needs Python 3.11.');
    expect(parsed.blocks[2]!.text).toBe('Remove the old cache first.');
    expect(parsed.blocks.map((b) => b.text).join('\n')).not.toMatch(/={3}|~{3}|-{12}/);
  });

  it('keeps form-fed text with fewer than 3 pages whole', async () => {
    const { parsed } = await parseFile(enc('First page text.\n\fSecond page text.'), 'two.txt');
    expect(parsed.blocks[0]!.text).toBe('First page text.\n\nSecond page text.');
  });
});

describe('progress', () => {
  it('reports progress while parsing a long text file', async () => {
    const text = Array.from({ length: 10_000 }, (_, i) => `Paragraph ${i} about nothing much.`).join('\n\n');
    const seen: number[] = [];
    await parseFile(enc(text), 'long.txt', { onProgress: (f) => seen.push(f) });
    expect(seen.length).toBeGreaterThan(2);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(seen.every((f) => f > 0 && f < 1)).toBe(true);
  });
});

describe('system files', () => {
  it('recognises what operating systems and editors leave in folders, and nothing else', async () => {
    const { isSystemFile } = await import('../../src/ingest/file-kinds.ts');
    for (const p of ['.DS_Store', 'docs/.DS_Store', 'Thumbs.db', 'a/desktop.ini', '~$report.docx', 'repo/.git/HEAD', '.hidden/notes.md']) expect(isSystemFile(p)).toBe(true);
    for (const p of ['report.docx', 'docs/notes.md', 'a.b/c.txt', 'my~$file.txt']) expect(isSystemFile(p)).toBe(false);
  });
});
