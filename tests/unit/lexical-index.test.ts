import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asChunkId, asDocId, type ChunkId } from '../../src/core/ids.ts';
import { ChunkOwners } from '../../src/index/chunk-owners.ts';
import { IndexSet, type TextOf } from '../../src/index/index-set.ts';
import { LexicalIndex, type LexicalOptions } from '../../src/index/lexical-index.ts';
import type { Hit, IndexEntry } from '../../src/index/search-index.ts';
import { termsOf } from '../../src/text/tokenize.ts';

const OPTIONS: LexicalOptions = { k1: 1.2, b: 0.75 };

const entry = (chunk: string, doc: string, text: string, title = ''): IndexEntry => ({ chunkId: asChunkId(chunk), docId: asDocId(doc), text, title });
const ids = (hits: Array<{ chunkId: ChunkId }>) => hits.map((h) => h.chunkId as string);

/**
 * The lexical index as the library keeps it: with chunk ownership beside it (`IndexSet`), documents
 * added and removed as owners of chunks, and filters by document turned into chunk predicates.
 */
class Indexed {
  constructor(readonly set = new IndexSet(new ChunkOwners(), new LexicalIndex(OPTIONS))) {}
  add(entries: readonly IndexEntry[]): Promise<unknown> {
    return this.set.add(entries);
  }
  remove(entries: readonly IndexEntry[]): Promise<void> {
    return this.set.remove(entries);
  }
  removeDocuments(docIds: ReadonlySet<ReturnType<typeof asDocId>>, textOf: TextOf): Promise<void> {
    return this.set.removeDocuments(docIds, textOf);
  }
  search(q: string, k: number, filter?: { docIds: ReadonlySet<ReturnType<typeof asDocId>> }): Hit[] {
    return this.set.lexical.searchNow(q, k, filter && this.set.owners.ownedBy(filter.docIds));
  }
  get size(): number {
    expect(this.set.lexical.size).toBe(this.set.owners.size);
    return this.set.owners.size;
  }
  get documentCount(): number {
    return this.set.lexical.documentCount;
  }
  documentFrequency(term: string): number {
    return this.set.lexical.documentFrequency(term);
  }
  ownersOf(chunkId: ChunkId) {
    return this.set.owners.ownersOf(chunkId);
  }
  docIds() {
    return this.set.owners.docIds();
  }
  get options() {
    return this.set.lexical.options;
  }
  /** Saved and loaded as the library's snapshots are. */
  reloaded(): Indexed {
    return new Indexed(new IndexSet(ChunkOwners.load(this.set.owners.serialize()), LexicalIndex.load(this.set.lexical.serialize())));
  }
}

describe('LexicalIndex examples', () => {
  const index = async () => {
    const ix = new Indexed();
    await ix.add([
      entry('c1', 'docA', 'The tenants were running late with the payments.', 'Lease'),
      entry('c2', 'docA', 'The landlord inspected the kitchen.', 'Lease'),
      entry('c3', 'docB', 'Fisheries quotas were reduced by the treaty.', 'Treaty'),
    ]);
    return ix;
  };

  it('finds words by their stem (runs / running, tenant / tenants)', async () => {
    const ix = await index();
    expect(ids(ix.search('tenant runs', 10))).toEqual(['c1']);
    expect(ids(ix.search('quota', 10))).toEqual(['c3']);
    expect(ix.search('zebra', 10)).toEqual([]);
  });

  it('counts the chunks indexed and the chunks holding a term (the IDF the answer weighs by), title headers included', async () => {
    const ix = await index();
    expect(ix.documentCount).toBe(3);
    expect(ix.documentFrequency('tenant')).toBe(1);
    expect(ix.documentFrequency('leas')).toBe(2); // "Lease", the title header of c1 and c2 (stemmed)
    expect(ix.documentFrequency('zebra')).toBe(0);
    await ix.remove([entry('c1', 'docA', 'The tenants were running late with the payments.', 'Lease')]);
    expect([ix.documentCount, ix.documentFrequency('tenant'), ix.documentFrequency('leas')]).toEqual([2, 0, 1]);
    const loaded = ix.reloaded();
    expect([loaded.documentCount, loaded.documentFrequency('leas')]).toEqual([2, 1]);
  });

  it('finds a Japanese or Chinese word inside a longer sentence written without spaces', async () => {
    const ix = new Indexed();
    await ix.add([
      entry('ja', 'docJ', '私は東京都に住んでいます。毎朝コンピューターを使います。'),
      entry('zh', 'docZ', '我们在北京大学学习中文。'),
      entry('en', 'docE', 'Tokyo and Beijing are capitals.'),
    ]);
    expect(ids(ix.search('東京', 10))).toEqual(['ja']);
    expect(ids(ix.search('コンピューター', 10))).toEqual(['ja']);
    expect(ids(ix.search('北京', 10))).toEqual(['zh']);
    expect(ids(ix.search('beijing', 10))).toEqual(['en']);
  });

  it('finds a document with "café" from a question typed in decomposed form (NFC)', async () => {
    const ix = new Indexed();
    await ix.add([entry('fr', 'docF', 'Le café ouvre à huit heures.'), entry('en', 'docE', 'The cafe opens at eight.')]);
    const decomposed = 'cafe\u0301 ouvre';
    expect(decomposed).not.toBe(decomposed.normalize('NFC'));
    expect(ids(ix.search('cafe\u0301', 10))).toEqual(['fr']);
    expect(ids(ix.search('Cafe\u0301 huit', 10))).toEqual(['fr']);
  });

  it('searches the title too', async () => {
    expect(ids((await index()).search('treaty', 10))).toEqual(['c3']);
    expect(ids((await index()).search('lease', 10)).sort()).toEqual(['c1', 'c2']);
  });

  it('returns at most k hits, best first', async () => {
    const hits = (await index()).search('lease landlord kitchen', 1);
    expect(ids(hits)).toEqual(['c2']);
    const all = (await index()).search('lease landlord kitchen', 10);
    for (let i = 1; i < all.length; i++) expect(all[i]!.score).toBeLessThanOrEqual(all[i - 1]!.score);
  });

  it('restricts hits to the documents of a filter', async () => {
    const ix = await index();
    expect(ids(ix.search('treaty lease', 10, { docIds: new Set([asDocId('docB')]) }))).toEqual(['c3']);
    expect(ix.search('treaty', 10, { docIds: new Set([asDocId('docA')]) })).toEqual([]);
    expect(ix.search('treaty', 10, { docIds: new Set() })).toEqual([]);
  });

  it('indexes a chunk shared by two documents once, and keeps it while one owner remains', async () => {
    const ix = new Indexed();
    const shared = 'Shared boilerplate about confidentiality obligations.';
    await ix.add([entry('s', 'docA', shared, 'A'), entry('a1', 'docA', 'Only in the first contract.', 'A')]);
    await ix.add([entry('s', 'docB', shared, 'B')]);
    expect(ix.size).toBe(2);
    expect(ix.ownersOf(asChunkId('s'))).toEqual(['docA', 'docB']);
    expect(ids(ix.search('confidentiality', 10))).toEqual(['s']);
    // Filtering by either owner finds it.
    expect(ids(ix.search('confidentiality', 10, { docIds: new Set([asDocId('docB')]) }))).toEqual(['s']);

    await ix.remove([entry('s', 'docA', shared, 'A'), entry('a1', 'docA', 'Only in the first contract.', 'A')]);
    expect(ix.size).toBe(1);
    expect(ix.ownersOf(asChunkId('s'))).toEqual(['docB']);
    expect([...ix.docIds()]).toEqual(['docB']);
    expect(ids(ix.search('confidentiality', 10))).toEqual(['s']);
    expect(ix.search('first contract', 10)).toEqual([]);

    await ix.remove([entry('s', 'docB', shared, 'B')]);
    expect(ix.size).toBe(0);
    expect(ix.search('confidentiality', 10)).toEqual([]);
  });

  it('ignores removal of an owner that was never added', async () => {
    const ix = await index();
    await ix.remove([entry('c1', 'docZ', 'The tenants were running late with the payments.', 'Other')]);
    expect(ix.size).toBe(3);
    expect(ids(ix.search('tenant', 10))).toEqual(['c1']);
  });

  it('round-trips through serialize/load with identical search results', async () => {
    const ix = await index();
    await ix.add([entry('c2', 'docC', 'The landlord inspected the kitchen.', 'Another lease')]);
    const loaded = ix.reloaded();
    expect(loaded.size).toBe(ix.size);
    expect(loaded.docIds()).toEqual(ix.docIds());
    expect(loaded.options).toEqual(OPTIONS);
    for (const q of ['tenant', 'landlord kitchen', 'treaty quota', 'lease', 'another']) {
      expect(loaded.search(q, 10)).toEqual(ix.search(q, 10));
    }
    // The loaded index keeps working: removing an owner and adding a chunk behave as on the original.
    await loaded.remove([entry('c2', 'docA', 'The landlord inspected the kitchen.', 'Lease')]);
    await ix.remove([entry('c2', 'docA', 'The landlord inspected the kitchen.', 'Lease')]);
    await loaded.add([entry('c4', 'docB', 'Penalties for late payments.', 'Treaty')]);
    await ix.add([entry('c4', 'docB', 'Penalties for late payments.', 'Treaty')]);
    for (const q of ['landlord', 'payments late', 'another lease']) expect(loaded.search(q, 10)).toEqual(ix.search(q, 10));
  });

  it('refuses a snapshot of an unknown version, an older JSON one and a damaged one, with code schema-version (the index is rebuilt)', async () => {
    const snapshot = (await index()).set.lexical.serialize();
    const newer = snapshot.slice();
    new DataView(newer.buffer).setUint32(4, 999, true);
    expect(() => LexicalIndex.load(newer)).toThrow(expect.objectContaining({ code: 'schema-version', message: expect.stringContaining('version 999') }));
    expect(() => LexicalIndex.load(JSON.stringify({ version: 3, options: {}, minisearch: {} }))).toThrow(expect.objectContaining({ code: 'schema-version' }));
    expect(() => LexicalIndex.load(snapshot.slice(0, snapshot.byteLength - 9))).toThrow(expect.objectContaining({ code: 'schema-version' }));
    expect(LexicalIndex.load(snapshot).size).toBe(3);
  });
});

// ---------------------------------------------------------------------------------------------------
// Incremental updates equal a rebuild from scratch.

const VOCAB = ['tenant', 'tenants', 'landlord', 'deposit', 'kitchen', 'treaty', 'quota', 'fish', 'appeal', 'court', 'running', 'payment', 'the', 'of'];
/** A small pool of chunk texts, so documents overlap (share chunks). */
const POOL = [
  'tenant deposit kitchen',
  'the landlord kept the deposit of the tenant',
  'treaty quota fish fish',
  'appeal to the court',
  'running payment payment payment late',
  'tenants running to court',
  'kitchen',
  'fish quota treaty appeal landlord tenant deposit',
];
const TITLES = ['', 'Lease', 'Treaty of fish', 'court appeal', 'Landlord notes'];
const DOCS = ['d0', 'd1', 'd2', 'd3', 'd4', 'd5'];
const QUERIES = [...VOCAB, 'tenant deposit', 'fish treaty court', 'landlord kitchen payment', 'the of', 'lease', 'notes appeal', 'zebra'];

type Content = { chunks: number[]; title: string };
type Op =
  | { kind: 'add'; doc: string; content: Content }
  | { kind: 'replace-same'; doc: string; content: Content }
  | { kind: 'replace-new'; doc: string; next: string; content: Content }
  | { kind: 'delete'; doc: string };

const content = fc.record({ chunks: fc.uniqueArray(fc.nat(POOL.length - 1), { minLength: 1, maxLength: 4 }), title: fc.constantFrom(...TITLES) });
const docName = fc.constantFrom(...DOCS);
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('add' as const), doc: docName, content }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('replace-same' as const), doc: docName, content }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('replace-new' as const), doc: docName, next: docName, content }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), doc: docName }) },
);

const entriesOf = (doc: string, c: Content): IndexEntry[] => c.chunks.map((i) => entry(`c${i}`, doc, POOL[i]!, c.title));

/** Applies operations as the library does, keeping the model (surviving documents) alongside. */
async function applyOps(ops: readonly Op[]): Promise<{ index: Indexed; docs: Map<string, Content> }> {
  const index = new Indexed();
  const docs = new Map<string, Content>();
  for (const o of ops) {
    const old = docs.get(o.doc);
    switch (o.kind) {
      case 'add':
        if (old) break;
        await index.add(entriesOf(o.doc, o.content));
        docs.set(o.doc, o.content);
        break;
      case 'replace-same':
        if (!old) break;
        await index.remove(entriesOf(o.doc, old));
        await index.add(entriesOf(o.doc, o.content));
        docs.set(o.doc, o.content);
        break;
      case 'replace-new':
        // A changed file gets a new id; the library adds the new version before removing the old one.
        if (!old || docs.has(o.next)) break;
        await index.add(entriesOf(o.next, o.content));
        await index.remove(entriesOf(o.doc, old));
        docs.delete(o.doc);
        docs.set(o.next, o.content);
        break;
      case 'delete':
        if (!old) break;
        await index.remove(entriesOf(o.doc, old));
        docs.delete(o.doc);
        break;
    }
  }
  return { index, docs };
}

async function rebuild(docs: Map<string, Content>, reverse = false): Promise<Indexed> {
  const index = new Indexed();
  const order = [...docs].sort(([a], [b]) => (a < b ? -1 : 1));
  if (reverse) order.reverse();
  for (const [doc, c] of order) await index.add(entriesOf(doc, c));
  return index;
}

function expectSameIndex(actual: Indexed, expected: Indexed): void {
  expect(actual.size).toBe(expected.size);
  expect(actual.documentCount).toBe(expected.documentCount);
  for (const term of termsOf(QUERIES.join(' '))) expect(actual.documentFrequency(term), `df of ${term}`).toBe(expected.documentFrequency(term));
  expect([...actual.docIds()].sort()).toEqual([...expected.docIds()].sort());
  POOL.forEach((_, i) => expect(actual.ownersOf(asChunkId(`c${i}`))).toEqual(expected.ownersOf(asChunkId(`c${i}`))));
  for (const q of QUERIES) {
    const a = actual.search(q, 20);
    const e = expected.search(q, 20);
    expect(ids(a), `query ${JSON.stringify(q)}`).toEqual(ids(e));
    a.forEach((h, i) => expect(Math.abs(h.score - e[i]!.score), `score for ${JSON.stringify(q)}`).toBeLessThan(1e-9));
    const filter = { docIds: new Set([asDocId('d0'), asDocId('d3')]) };
    expect(ids(actual.search(q, 20, filter)), `filtered query ${JSON.stringify(q)}`).toEqual(ids(expected.search(q, 20, filter)));
  }
}

describe('LexicalIndex incremental updates', () => {
  // Pinned from the property below (fast-check seed -144689981, shrunk). Two chunks score exactly the
  // same for "tenant"; the incremental index returns them in insertion order (c5, c0) while a rebuild
  // returns (c0, c5), so the order of equally good passages changes when the index is rebuilt at start-up.
  // Fails until LexicalIndex.search breaks ties deterministically (src/index/lexical-index.ts).
  it('orders equally scored hits the same as a rebuild (pinned counterexample)', async () => {
    const ops: Op[] = [
      { kind: 'add', doc: 'd1', content: { chunks: [0], title: '' } },
      { kind: 'replace-same', doc: 'd1', content: { chunks: [5], title: 'court appeal' } },
      { kind: 'add', doc: 'd0', content: { chunks: [0], title: 'court appeal' } },
    ];
    const { index, docs } = await applyOps(ops);
    expectSameIndex(index, await rebuild(docs));
  });

  // Pinned from the property below (another run, shrunk): no removal at all, only insertion order. Adding
  // d0 then d5 ranks the tied chunks (c0, c5); building from d5 then d0 ranks them (c5, c0).
  it('orders equally scored hits independently of the order documents were added (pinned counterexample)', async () => {
    const { index, docs } = await applyOps([
      { kind: 'add', doc: 'd0', content: { chunks: [0], title: 'Treaty of fish' } },
      { kind: 'add', doc: 'd5', content: { chunks: [5, 0], title: 'Landlord notes' } },
    ]);
    expectSameIndex(index, await rebuild(docs, true));
  });

  it('equals an index rebuilt from the surviving documents after any sequence of add / replace / delete', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 25 }), async (ops) => {
        const { index, docs } = await applyOps(ops);
        expectSameIndex(index, await rebuild(docs));
        expectSameIndex(index, await rebuild(docs, true));
        expectSameIndex(index.reloaded(), await rebuild(docs));
      }),
      { numRuns: 400 },
    );
  });
});

describe('removeDocuments (documents deleted elsewhere, texts gone)', () => {
  it('leaves the index as a rebuild from the surviving documents would be', async () => {
    const shared = 'Both reports describe the harbour inspection in April.';
    const docs: Record<string, IndexEntry[]> = {
      a: [entry('a1', 'a', 'Alpha notes on the harbour cranes and their repairs.', 'Alpha'), entry('s', 'a', shared, 'Alpha')],
      b: [entry('b1', 'b', 'Beta notes on harbour tides and pilots.', 'Beta'), entry('s', 'b', shared, 'Beta')],
      c: [entry('c1', 'c', 'Gamma notes on the lighthouse keeper and the harbour.', 'Gamma')],
    };
    const ix = new Indexed();
    for (const d of ['a', 'b', 'c']) ix.add(docs[d]!);
    // Only the shared chunk's text is still in the store; a1's text is gone.
    const store = new Map([['s', shared]]);
    await ix.removeDocuments(new Set([asDocId('a')]), async (id) => store.get(id));

    const rebuilt = new Indexed();
    for (const d of ['b', 'c']) rebuilt.add(docs[d]!);
    expect(ix.size).toBe(rebuilt.size);
    expect([...ix.docIds()].sort()).toEqual(['b', 'c']);
    expect(ix.ownersOf(asChunkId('s'))).toEqual(['b']);
    for (const q of ['harbour notes', 'alpha cranes repairs', 'beta inspection april', 'lighthouse']) {
      const got = ix.search(q, 10);
      const want = rebuilt.search(q, 10);
      expect(ids(got)).toEqual(ids(want));
      got.forEach((h, i) => expect(h.score).toBeCloseTo(want[i]!.score, 9));
    }
  });
});
