import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asDocId } from '../../src/core/ids.ts';
import type { QueryableDoc } from '../../src/question/self-query.ts';
import { ambiguousWholeDocument, readWholeDocument, wholeDocumentKind } from '../../src/question/whole-document-query.ts';

const DOCS: QueryableDoc[] = [
  { docId: asDocId('lease'), name: 'lease.md', folder: 'contracts', type: 'markdown', tags: ['housing'] },
  { docId: asDocId('loan'), name: 'loan agreement.docx', folder: 'contracts', type: 'docx', tags: ['bank'] },
  { docId: asDocId('report'), name: 'report.pdf', folder: '', type: 'pdf', tags: [] },
];
const LEASE_ONLY = [DOCS[0]!];

const read = (q: string, docs = DOCS, filter = {}) => readWholeDocument(q, docs, filter);

describe('readWholeDocument (rule-based recognition of whole-document questions)', () => {
  it('recognises summaries and overviews of a named document', () => {
    expect(read('Summarise lease.md')).toEqual({ docId: 'lease', docPath: 'contracts/lease.md', kind: 'summary', topic: '' });
    expect(read('Summarise the lease')?.docId).toBe('lease');
    expect(read('Can you summarize the loan agreement?')?.docId).toBe('loan');
    expect(read('Give me an overview of report.pdf')?.kind).toBe('summary');
    expect(read('What are the key points of the report?')?.docId).toBe('report');
    expect(read('tl;dr of the report')?.kind).toBe('summary');
  });

  it('recognises "list every/all X" and "find all X" and keeps what to look for as the topic', () => {
    expect(read('List every deadline in lease.md')).toEqual({ docId: 'lease', docPath: 'contracts/lease.md', kind: 'list', topic: 'deadline' });
    expect(read('Find all the dates in the loan agreement')).toMatchObject({ docId: 'loan', kind: 'list', topic: 'dates' });
    expect(read('What are all the obligations of the tenant in the lease?')).toMatchObject({ docId: 'lease', kind: 'list', topic: 'obligations tenant' });
    expect(read('Enumerate the fees in report.pdf')?.kind).toBe('list');
  });

  it('takes the one document the filter allows, or the library\'s only document', () => {
    expect(read('List every deadline in this contract', DOCS, { docIds: [asDocId('loan')] })?.docId).toBe('loan');
    expect(read('Summarise this report', DOCS, { types: ['pdf'] })?.docId).toBe('report');
    expect(read('Summarise this document', LEASE_ONLY)?.docId).toBe('lease');
  });

  it('reads a name without extension that a folder also has as the folder\'s subject, not its one page so named', () => {
    // Debian's SQLite manual: "sqlite.html" (the command-line shell's page) sits in the folder "sqlite".
    const manual: QueryableDoc[] = ['sqlite.html', 'limits.html', 'lang_attach.html'].map((name) => ({ docId: asDocId(name), name, folder: 'docs/sqlite', type: 'html', tags: [] }));
    expect(read('Summarise sqlite', manual)).toBeUndefined();
    expect(read('Summarise sqlite.html', manual)?.docId).toBe('sqlite.html');
    expect(read('Summarise lang_attach', manual)?.docId).toBe('lang_attach.html');
  });

  it('does not take questions about a passage, or about no single document', () => {
    expect(read('What is the rent?', LEASE_ONLY)).toBeUndefined();
    expect(read('What is the rent in lease.md?')).toBeUndefined();
    expect(read('Is every tenant liable for damage in the lease?')).toBeUndefined();
    expect(read('Does the lease allow pets at all?')).toBeUndefined();
    expect(read('When are all payments due?', DOCS, { docIds: [asDocId('lease')] })).toBeUndefined();
    // Two documents, none named: which one is not known.
    expect(read('Summarise this contract', DOCS, { folders: ['contracts'] })).toBeUndefined();
    expect(read('Summarise lease.md and report.pdf')).toBeUndefined();
    // A named document the filter excludes is not read.
    expect(read('Summarise lease.md', DOCS, { docIds: [asDocId('report')] })?.docId).toBe('report');
  });

  it('of two documents with the same name in different folders, takes the one whose folder the question writes', () => {
    const twins: QueryableDoc[] = [
      { docId: asDocId('a'), name: 'report.md', folder: 'work/a', type: 'markdown', tags: [] },
      { docId: asDocId('b'), name: 'report.md', folder: 'work/b', type: 'markdown', tags: [] },
    ];
    // The name alone is ambiguous: neither is read whole.
    expect(read('Summarise report.md', twins)).toBeUndefined();
    expect(read('Summarise b/report.md', twins)).toEqual({ docId: 'b', docPath: 'work/b/report.md', kind: 'summary', topic: '' });
    expect(read('List every deadline in work/a/report.md', twins)).toEqual({ docId: 'a', docPath: 'work/a/report.md', kind: 'list', topic: 'deadline' });
    // Both folders written: still ambiguous.
    expect(read('Summarise a/report.md and b/report.md', twins)).toBeUndefined();
    // The page asks which one, naming both, only while the question cannot tell them apart.
    expect(ambiguousWholeDocument('Summarise report.md', twins)).toEqual(['work/a/report.md', 'work/b/report.md']);
    expect(ambiguousWholeDocument('Summarise b/report.md', twins)).toBeUndefined();
    expect(ambiguousWholeDocument('What is in report.md?', twins)).toBeUndefined();
    expect(ambiguousWholeDocument('Summarise report.md', twins, { folders: ['work/a'] })).toBeUndefined();
  });

  it('with the toggle, any question about the one document is a whole-document question', () => {
    expect(readWholeDocument('What does it say about pets?', LEASE_ONLY, {}, true)).toMatchObject({ docId: 'lease', kind: 'question', topic: 'What does it say about pets?' });
    expect(readWholeDocument('What does it say about pets?', DOCS, {}, true)).toBeUndefined();
  });

  it('with the toggle, the one document a date filter leaves is read whole', () => {
    const dated = DOCS.map((d, i) => ({ ...d, addedAt: Date.UTC(2022 + i, 0, 1) }));
    expect(readWholeDocument('What does it say about pets?', dated, { added: { from: Date.UTC(2024, 0, 1) } }, true)?.docId).toBe('report');
    expect(readWholeDocument('What does it say about pets?', dated, { added: { from: Date.UTC(2023, 0, 1) } }, true)).toBeUndefined();
  });

  it('property: a question without a summary word, a list verb followed by all/every/each, "what are all" or "enumerate" is never whole-document', () => {
    const words = ['what', 'which', 'is', 'the', 'rent', 'when', 'due', 'lease', 'every', 'all', 'tenant', 'pays', 'at', 'how', 'much', 'deposit', 'each', 'month'];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 12 }), (ws) => {
        expect(wholeDocumentKind(ws.join(' '))).toBeUndefined();
      }),
    );
  });

  it('property: "summarise" or "list every" before any document name is recognised for that document', () => {
    fc.assert(
      fc.property(fc.constantFrom(...DOCS), fc.constantFrom('Summarise', 'Give an overview of', 'List every date in', 'Find all deadlines in'), (doc, lead) => {
        expect(read(`${lead} ${doc.name}`)?.docId).toBe(doc.docId);
      }),
    );
  });
});
