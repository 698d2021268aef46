import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asDocId } from '../../src/core/ids.ts';
import { dateOf, inRange } from '../../src/core/query-filters.ts';
import { readDatePhrase } from '../../src/question/date-phrases.ts';
import { withChips } from '../../src/core/query-filters.ts';
import { readFilters, type QueryableDoc } from '../../src/question/self-query.ts';

const day = (y: number, m: number, d: number) => new Date(y, m - 1, d).getTime();
/** Saturday 30 November 2024, noon. */
const NOW = new Date(2024, 10, 30, 12).getTime();

const DOCS: QueryableDoc[] = [
  { docId: asDocId('lease'), name: 'lease.pdf', folder: 'contracts/2024', type: 'pdf', tags: ['housing'], addedAt: day(2024, 3, 5), date: day(2023, 6, 1) },
  { docId: asDocId('loan'), name: 'loan agreement.docx', folder: 'contracts', type: 'docx', tags: ['tax', 'bank'], addedAt: day(2024, 11, 20), date: day(2021, 2, 10) },
  { docId: asDocId('notes'), name: 'notes.md', folder: '', type: 'markdown', tags: [], addedAt: day(2024, 11, 28) },
  { docId: asDocId('notes2'), name: 'notes.txt', folder: 'old', type: 'text', tags: [], addedAt: day(2019, 5, 1) },
];

const chips = (q: string) => readFilters(q, DOCS, NOW).map((c) => `${c.kind}:${c.label}`);

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

  it('does not read a subject that also names a folder as its one document named so', () => {
    // Debian's SQLite manual: "sqlite.html" (the command-line shell's page) sits in the folder "sqlite".
    const manual: QueryableDoc[] = ['sqlite.html', 'limits.html', 'lang_attach.html'].map((name) => ({ docId: asDocId(name), name, folder: 'docs/sqlite', type: 'html', tags: [], addedAt: day(2024, 1, 1) }));
    const read = (q: string) => readFilters(q, manual, NOW).map((c) => `${c.kind}:${c.label}`);
    expect(read('What is the maximum number of attached databases in SQLite?')).toEqual([]);
    expect(read('How do I quit the shell in sqlite.html?')).toEqual(['document:docs/sqlite/sqlite.html']);
    expect(read('What does it say about ATTACH in lang_attach?')).toEqual(['document:docs/sqlite/lang_attach.html']);
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

  it('reads date phrases against today: the documents\' own dates, or when they were added when the question says so or none has one', () => {
    expect(chips('what do the contracts from 2023 say about pets?')).toEqual(['date:dated 2023']);
    expect(chips('what was signed in February 2021?')).toEqual(['date:dated in Feb 2021']);
    expect(chips('notes added last week')).toEqual(['date:added since 23 Nov 2024']);
    expect(chips('what did I add this month?')).toEqual(['date:added since 1 Nov 2024']);
    expect(chips('deadlines in documents added since March 2024')).toEqual(['date:added since 1 Mar 2024']);
    expect(chips('anything before 2020?')).toEqual(['date:added before 1 Jan 2020']);
    expect(chips('what changed in the last 3 days?')).toEqual(['date:added since 27 Nov 2024']);
    expect(chips('which files were added in 2024?')).toEqual(['date:added 2024']);
    expect(readFilters('what did I add yesterday?', DOCS, day(2024, 11, 29) + 3_600_000).map((c) => c.label)).toEqual(['added on 28 Nov 2024']);
  });

  it('offers no date chip that would empty the library or restrict nothing, and none for words that only look like dates', () => {
    expect(chips('reports from 2030')).toEqual([]);
    expect(chips('everything added since 2000')).toEqual([]);
    expect(chips('may I see the 2023 budget?')).toEqual([]);
    expect(chips('the 1999 report')).toEqual([]);
  });

  it('says which words asked for the date', () => {
    expect(readDatePhrase('Which notes were added last week?', NOW)).toEqual({ range: { from: day(2024, 11, 23) }, field: 'added', matched: 'added last week' });
    expect(readDatePhrase('the memo from March 2024', NOW)).toEqual({ range: { from: day(2024, 3, 1), before: day(2024, 4, 1) }, matched: 'from March 2024' });
    expect(readDatePhrase('until 2021', NOW)).toEqual({ range: { before: day(2022, 1, 1) }, matched: 'until 2021' });
    expect(readDatePhrase('after 2021', NOW)).toEqual({ range: { from: day(2022, 1, 1) }, matched: 'after 2021' });
  });

  it('narrows a chosen date range with a date chip', () => {
    const found = readFilters('contracts added since March 2024', DOCS, NOW);
    expect(withChips({ added: { before: day(2024, 12, 1) } }, found).added).toEqual({ from: day(2024, 3, 1), before: day(2024, 12, 1) });
  });

  it('never throws and never reads a filter the library does not have, whatever the question (dates included)', () => {
    const datey = fc
      .tuple(
        fc.constantFrom('in', 'from', 'since', 'before', 'after', 'until', 'added in', 'added since', 'dated', 'the last', 'last', 'this', 'during'),
        fc.constantFrom('2019', '2021', '2023', '2024', 'March 2024', 'may 2021', 'week', 'month', 'year', '30 days', 'today', 'yesterday'),
        fc.string({ maxLength: 40 }),
      )
      .map(([a, b, rest]) => `${rest} ${a} ${b}`);
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 200 }), datey), fc.integer({ min: day(2018, 1, 1), max: day(2026, 1, 1) }), (q, now) => {
        const found = readFilters(q, DOCS, now);
        for (const c of found) {
          if (c.kind === 'document') expect(DOCS.some((d) => d.docId === c.docId)).toBe(true);
          if (c.kind === 'tag') expect(DOCS.some((d) => d.tags.includes(c.tag))).toBe(true);
          if (c.kind === 'date') {
            const inside = DOCS.filter((d) => inRange(dateOf(d, c.field), c)).length;
            expect(inside).toBeGreaterThan(0);
            expect(inside).toBeLessThan(DOCS.length);
          }
          expect(q.toLowerCase()).toContain(c.matched.toLowerCase());
        }
      }),
    );
  });
});
