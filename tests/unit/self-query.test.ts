import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asDocId } from '../../src/core/ids.ts';
import { readFilters, withChips, type QueryableDoc } from '../../src/retrieve/self-query.ts';

const DOCS: QueryableDoc[] = [
  { docId: asDocId('lease'), name: 'lease.pdf', folder: 'contracts/2024', type: 'pdf', tags: ['housing'] },
  { docId: asDocId('loan'), name: 'loan agreement.docx', folder: 'contracts', type: 'docx', tags: ['tax', 'bank'] },
  { docId: asDocId('notes'), name: 'notes.md', folder: '', type: 'markdown', tags: [] },
  { docId: asDocId('notes2'), name: 'notes.txt', folder: 'old', type: 'text', tags: [] },
];

const chips = (q: string) => readFilters(q, DOCS).map((c) => `${c.kind}:${c.label}`);

describe('readFilters (rule-based self-query)', () => {
  it('reads a document by its file name, or its name after "in"/"from"', () => {
    expect(chips('When is the rent due in lease.pdf?')).toEqual(['document:contracts/2024/lease.pdf']);
    expect(chips('What does the lease say about pets?')).toEqual([]);
    expect(chips('What is the deposit according to the lease?')).toEqual(['document:contracts/2024/lease.pdf']);
    expect(chips('interest rate in the loan agreement document')).toEqual(['document:contracts/loan agreement.docx']);
    // Two documents named "notes": only the full name says which.
    expect(chips('what is in notes?')).toEqual([]);
    expect(chips('what is in notes.txt?')).toEqual(['document:old/notes.txt']);
  });

  it('reads folders, types (plural or "files" forms only) and tags the library has', () => {
    expect(chips('deadlines in the contracts folder')).toEqual(['folder:contracts']);
    expect(chips('deadlines in folder contracts/2024')).toEqual(['folder:contracts/2024']);
    expect(chips('which PDFs mention the deposit?')).toEqual(['type:PDF']);
    expect(chips('how do I export a PDF?')).toEqual([]);
    expect(chips('in my Word documents, who is the guarantor?')).toEqual(['type:Word']);
    expect(chips('HTML pages about fees')).toEqual([]); // no HTML document in the library
    expect(chips('fees in documents tagged tax')).toEqual(['tag:#tax']);
    expect(chips('fees #bank')).toEqual(['tag:#bank']);
    expect(chips('fees tagged unknowntag')).toEqual([]);
  });

  it('combines chips with a chosen filter: kinds with AND, values of one kind with OR', () => {
    const found = readFilters('PDFs in the contracts folder tagged housing', DOCS);
    expect(withChips({ tags: ['bank'] }, found)).toEqual({ docIds: undefined, folders: ['contracts'], types: ['pdf'], tags: ['bank', 'housing'] });
  });

  it('never throws and never reads a filter the library does not have, whatever the question', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (q) => {
        for (const c of readFilters(q, DOCS)) {
          if (c.kind === 'document') expect(DOCS.some((d) => d.docId === c.docId)).toBe(true);
          if (c.kind === 'tag') expect(DOCS.some((d) => d.tags.includes(c.tag))).toBe(true);
          expect(q.toLowerCase()).toContain(c.matched.toLowerCase());
        }
      }),
    );
  });
});
