import { describe, expect, it } from 'vitest';
import { asChunkId, asDocId, type ChunkId, type DocId } from '../../src/core/ids.ts';
import type { BlockRecord, ChunkRecord, DocRecord, DocType, IndexEntry } from '../../src/core/types.ts';
import { IndexSet } from '../../src/index/index-set.ts';
import { hybridSearch, type RankedSearch } from '../../src/retrieve/hybrid.ts';
import { rerankedSearch } from '../../src/retrieve/reranked-search.ts';
import { allowedDocuments } from '../../src/core/query-filters.ts';
import { retrievePassages, type PassageSource } from '../../src/retrieve/retrieve.ts';

function doc(id: string, folder: string, type: DocType, tags: string[] = []): DocRecord {
  const name = `${id}.${type === 'markdown' ? 'md' : type}`;
  return { id: asDocId(id), name, folder, path: folder ? `${folder}/${name}` : name, type, size: 1, title: id, addedAt: 0, tags, chunkCount: 1 };
}

const DOCS = [doc('a', 'cases/2024', 'pdf', ['urgent']), doc('b', 'cases', 'markdown'), doc('c', 'casework', 'pdf', ['urgent', 'tax']), doc('d', '', 'text', ['tax'])];
const ids = (s: Set<DocId> | undefined) => (s ? [...s].sort() : s);

describe('allowedDocuments', () => {
  it('allows everything without a filter or with an empty one', () => {
    expect(allowedDocuments(DOCS, undefined)).toBeUndefined();
    expect(allowedDocuments(DOCS, {})).toBeUndefined();
    expect(allowedDocuments(DOCS, { folders: [], tags: [] })).toBeUndefined();
  });

  it('filters by folder including sub-folders, but not folders that merely share a prefix', () => {
    expect(ids(allowedDocuments(DOCS, { folders: ['cases'] }))).toEqual(['a', 'b']);
    expect(ids(allowedDocuments(DOCS, { folders: ['cases/2024'] }))).toEqual(['a']);
  });

  it('filters by type and by any of the tags, combining fields with AND', () => {
    expect(ids(allowedDocuments(DOCS, { types: ['pdf'] }))).toEqual(['a', 'c']);
    expect(ids(allowedDocuments(DOCS, { tags: ['tax'] }))).toEqual(['c', 'd']);
    expect(ids(allowedDocuments(DOCS, { tags: ['urgent', 'tax'] }))).toEqual(['a', 'c', 'd']);
    expect(ids(allowedDocuments(DOCS, { types: ['pdf'], tags: ['tax'] }))).toEqual(['c']);
    expect(ids(allowedDocuments(DOCS, { folders: ['cases'], tags: ['tax'] }))).toEqual([]);
    expect(ids(allowedDocuments(DOCS, { docIds: [asDocId('b'), asDocId('d')], types: ['text'] }))).toEqual(['d']);
  });
});

describe('retrievePassages', () => {
  // Two blocks per document; the text is repeated per document so every document can answer.
  const BLOCK_TEXT = 'The rent is due on the first day.\n\nHeating repairs are made within ten days.';
  async function setup(section?: string) {
    const set = IndexSet.create({ k1: 1.2, b: 0.75 });
    const entries: IndexEntry[] = [];
    const chunks = new Map<ChunkId, ChunkRecord>();
    const blocks = new Map<string, BlockRecord>();
    for (const d of DOCS) {
      blocks.set(`${d.id}:0`, { docId: d.id, index: 0, label: `${d.name} page 1`, page: 1, ...(section && { section }), text: BLOCK_TEXT });
      const sentences = BLOCK_TEXT.split('\n\n');
      sentences.forEach((s, i) => {
        const id = asChunkId(`${d.id}-${i}-${s}`);
        const start = BLOCK_TEXT.indexOf(s);
        chunks.set(id, { id, text: s, locations: [{ docId: d.id, block: 0, start, end: start + s.length, parentStart: 0, parentEnd: BLOCK_TEXT.length, ordinal: i }] });
        entries.push({ chunkId: id, docId: d.id, text: s, title: d.title });
      });
    }
    await set.add(entries);
    const index: RankedSearch = hybridSearch([{ index: set.lexical }]);
    const source: PassageSource = {
      listDocuments: async () => DOCS,
      getChunks: async (list) => list.map((id) => chunks.get(id)),
      getBlock: async (docId, i) => blocks.get(`${docId}:${i}`),
    };
    return { index, source, set };
  }

  it('says where each passage stood in each retriever ("Why this passage")', async () => {
    const { index, source } = await setup();
    const [first] = await retrievePassages(index, source, { text: 'heating repairs' }, { k: 3, retrievers: ['BM25', 'Dense'] });
    expect(first!.ranks).toEqual([{ name: 'BM25', rank: 1, score: expect.any(Number) }]);
    expect(first!.why).toBe(`BM25 #1 · Dense – · RRF ${(1 / 61).toFixed(4)}`);
  });

  it('passes a reranked hit\'s place and score on to the passage and its "Why this passage" line', async () => {
    const { index, source } = await setup();
    // A scorer that prefers the rent sentence, which BM25 ranks below the heating one for this question.
    const reranked = rerankedSearch(index, async (list) => list.map((id) => id as string), async (_q, texts) => Float32Array.from(texts.map((t) => (t.includes('rent') ? 5 : -1))));
    const passages = await retrievePassages(reranked, source, { text: 'heating repairs rent' }, { k: 2, retrievers: ['BM25'] });
    expect(passages[0]!.window.slice(passages[0]!.hitStart, passages[0]!.hitEnd)).toBe('The rent is due on the first day.');
    expect(passages[0]!.rerank).toEqual({ rank: 1, score: 5 });
    expect(passages[0]!.why).toMatch(/^BM25 #\d+ · RRF 0\.\d{4} · Rerank #1 \(5\.00\)$/);
    const plain = await retrievePassages(index, source, { text: 'heating repairs' }, { k: 1 });
    expect(plain[0]!.rerank).toBeUndefined();
  });

  it('resolves hits to their parent window with the hit range inside it', async () => {
    const { index, source } = await setup();
    const passages = await retrievePassages(index, source, { text: 'heating repairs' }, { k: 10 });
    expect(passages.length).toBe(DOCS.length);
    for (const p of passages) {
      expect(p.window).toBe(BLOCK_TEXT);
      expect(p.window.slice(p.hitStart, p.hitEnd)).toBe('Heating repairs are made within ten days.');
      expect(p.label).toBe(`${p.docName} page 1`);
      expect(p.page).toBe(1);
    }
  });

  it('names a PDF page with its section, as the Source dialog does', async () => {
    const { index, source } = await setup('Lease › Repairs');
    const passages = await retrievePassages(index, source, { text: 'heating repairs' }, { k: 1 });
    expect(passages[0]!.label).toBe(`${passages[0]!.docName} page 1 · Lease › Repairs`);
  });

  it('returns one passage per parent window (the best chunk in it)', async () => {
    const { index, source } = await setup();
    const passages = await retrievePassages(index, source, { text: 'rent heating' }, { k: 10 });
    expect(new Set(passages.map((p) => p.docId)).size).toBe(passages.length);
  });

  it('leaves out a hit inside a window already taken, so the passages show five places, not one twice', async () => {
    // One long block, windows centred on each chunk (as chunkBlocks makes them): the second chunk lies
    // inside the first one's window although its own window starts elsewhere; the third lies outside it.
    const parts = ['Stash saves your changes away.', 'It resets the working tree to HEAD.', 'Far below, stash list shows the entries.'];
    const text = parts.join(' ');
    const starts = parts.map((p) => text.indexOf(p));
    const windows = [
      { parentStart: 0, parentEnd: starts[2]! - 1 },
      { parentStart: starts[1]!, parentEnd: text.length },
      { parentStart: starts[2]!, parentEnd: text.length },
    ];
    const doc = DOCS[0]!;
    const set = IndexSet.create({ k1: 1.2, b: 0.75 });
    const chunks = new Map<ChunkId, ChunkRecord>();
    const entries: IndexEntry[] = parts.map((p, i) => {
      const id = asChunkId(`long-${i}`);
      chunks.set(id, { id, text: p, locations: [{ docId: doc.id, block: 0, start: starts[i]!, end: starts[i]! + p.length, ...windows[i]!, ordinal: i }] });
      return { chunkId: id, docId: doc.id, text: p, title: '' };
    });
    await set.add(entries);
    const source: PassageSource = {
      listDocuments: async () => [doc],
      getChunks: async (list) => list.map((id) => chunks.get(id)),
      getBlock: async () => ({ docId: doc.id, index: 0, label: 'git-stash', text }),
    };
    const passages = await retrievePassages(hybridSearch([{ index: set.lexical }]), source, { text: 'stash saves changes tree' }, { k: 5 });
    const shown = passages.map((p) => p.window.slice(p.hitStart, p.hitEnd));
    expect(shown).toHaveLength(2);
    expect(shown).toContain(parts[0]);
    expect(shown).toContain(parts[2]);
  });

  it('keeps only passages of documents the filter allows, and at most k', async () => {
    const { index, source, set } = await setup();
    const tax = await retrievePassages(index, source, { text: 'rent' }, { k: 10, filter: { tags: ['tax'] }, chunkFilter: (d) => set.owners.ownedBy(d) });
    expect(tax.map((p) => p.docId).sort()).toEqual(['c', 'd']);
    expect(await retrievePassages(index, source, { text: 'rent' }, { k: 10, filter: { folders: ['nowhere'] }, chunkFilter: (d) => set.owners.ownedBy(d) })).toEqual([]);
    expect(await retrievePassages(index, source, { text: 'rent' }, { k: 1 })).toHaveLength(1);
  });
});
