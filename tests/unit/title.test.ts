import { describe, expect, it } from 'vitest';
import { formatPageRanges, toPageRanges } from '../../src/core/page-ranges.ts';
import { headedText, headerTitleOf } from '../../src/core/doc-title.ts';
import { parseMarkdown } from '../../src/ingest/parse-markdown.ts';
import { plausibleTitle, titleOfFirstLine, titleOfMarkdownHeading } from '../../src/ingest/title.ts';

describe('plausibleTitle', () => {
  it('keeps real titles, with whitespace collapsed', () => {
    for (const t of ['Tenancy agreement', 'The Widget Exchange Protocol (WXP)', 'Guide', 'C# in Depth', '東京都の契約書', 'عقد الإيجار', 'Smith v. Jones & Co — brief', 'RFC 8446: TLS 1.3']) {
      expect(plausibleTitle(t, 'file.pdf'), t).toBe(t);
    }
    expect(plausibleTitle('  Tenancy \n agreement ', 'lease.pdf')).toBe('Tenancy agreement');
    // A heading that repeats the file's stem is still the document's heading.
    expect(plausibleTitle('Guide', 'guide.md')).toBe('Guide');
  });

  it('refuses placeholders, tool prefixes, file names, paths and garbage', () => {
    const junk = [
      undefined, '', '   ', 'Untitled', 'untitled document', 'Untitled-1', 'Document1', 'Title', 'Slide 1', 'Presentation2',
      'Microsoft Word - lease.doc', 'Microsoft PowerPoint - deck.ppt', 'lease.pdf', 'Lease.PDF', 'final report.docx',
      'C:\\Users\\ann\\lease.doc', '/tmp/x', 'lease_final_v2', '---', '\uE001\uE002\uE003', 'ÿþ', '!"#$%&\'()*+', 'x'.repeat(301),
    ];
    for (const t of junk) expect(plausibleTitle(t, 'lease.pdf'), String(t)).toBeUndefined();
  });
});

describe('titleOfFirstLine', () => {
  it('takes a short line that reads as a title', () => {
    expect(titleOfFirstLine('The Widget Exchange Protocol', 'wxp.txt')).toBe('The Widget Exchange Protocol');
    expect(titleOfFirstLine('  Release notes for Widget 2.0', 'notes.txt')).toBe('Release notes for Widget 2.0');
    expect(titleOfFirstLine('Why widgets?', 'notes.txt')).toBe('Why widgets?');
  });

  it('refuses header lines, sentences, labels, dates, identifiers and lists', () => {
    for (const line of [
      'Internet Engineering Task Force (IETF)                      A. Author',
      'Network Working Group\tJ. Postel',
      'Request for Comments: 9999',
      'RFC 9999 WXP March 2031',
      'Category: Standards Track',
      'The tenant pays the rent on the first day of each month.',
      'Shopping list:',
      'Dear Ann,',
      'March 3, 2031',
      'Minutes of 2024-03-01',
      'Sent 3/1/24',
      'See https://example.com',
      'ann@example.com',
      '1. Introduction',
      '- first item',
      '[![CI](https://ci.example.com/badge.svg)](https://ci.example.com)',
      'A very long line that goes on and on with more than twelve words in it here',
    ]) expect(titleOfFirstLine(line, 'x.txt'), line).toBeUndefined();
  });
});

describe('titleOfMarkdownHeading', () => {
  it('never takes badges or images as the title', () => {
    expect(titleOfMarkdownHeading('[![CI](https://x/badge.svg)](https://x) [![npm](https://n/v.svg)](https://n)', 'README.md')).toBeUndefined();
    expect(titleOfMarkdownHeading('![logo](logo.png)', 'README.md')).toBeUndefined();
    expect(titleOfMarkdownHeading('![logo](logo.png) Widget', 'README.md')).toBe('Widget');
    expect(titleOfMarkdownHeading('The **[Widget](https://w)** protocol', 'README.md')).toBe('The Widget protocol');
  });
});

describe('page ranges', () => {
  it('merges pages into ranges and writes them as a person reads them', () => {
    expect(toPageRanges([40, 2, 3, 4, 3])).toEqual([[2, 4], [40, 40]]);
    expect(formatPageRanges(toPageRanges([...Array.from({ length: 22 }, (_, i) => i + 2), 40]))).toBe('pages 2–23, 40');
    expect(formatPageRanges([[5, 5]])).toBe('page 5');
    expect(formatPageRanges([[5, 6]])).toBe('pages 5–6');
  });
});

describe('headerTitleOf', () => {
  it('indexes a real title as the chunks’ header, never the file-name stand-in', () => {
    expect(headerTitleOf({ name: 'a.pdf', title: 'Lease', titleSource: 'metadata' })).toBe('Lease');
    expect(headerTitleOf({ name: 'a.md', title: 'Lease', titleSource: 'heading' })).toBe('Lease');
    expect(headerTitleOf({ name: 'a.pdf', title: 'a.pdf', titleSource: 'file-name' })).toBe('');
    // Stored before titles had a source.
    expect(headerTitleOf({ name: 'a.pdf', title: 'a.pdf' })).toBe('');
    expect(headerTitleOf({ name: 'a.pdf', title: 'Lease' })).toBe('Lease');
  });

  it('heads the text a chunk is searched as (indexed and embedded) with that title, and with nothing when there is none', () => {
    expect(headedText('Lease', 'The rent is due.')).toBe('Lease\n\nThe rent is due.');
    expect(headedText('', 'The rent is due.')).toBe('The rent is due.');
  });
});

describe('Markdown titles, through the parser', () => {
  const md = (text: string) => parseMarkdown(new TextEncoder().encode(text), 'README.md').title;

  it('are the first top-level heading that reads as a title, never a row of badges', () => {
    expect(md('# [![CI](https://ci.example/badge.svg)](https://ci.example) [![npm](https://npm.example/b.svg)](https://npm.example)\n\n# Widget\n\nText.')).toBe('Widget');
    expect(md('# ![logo](logo.png) Widget\n\nText.')).toBe('Widget');
    expect(md('## Installation\n\nRun it.')).toBeUndefined();
    expect(md('<h1 align="center">Gadget</h1>\n\nText.')).toBe('Gadget');
    expect(md('---\ntitle: From the front matter\n---\n# Heading\n\nText.')).toBe('From the front matter');
  });
});
