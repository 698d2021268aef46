import fc from 'fast-check';
import MiniSearch from 'minisearch';
import { describe, expect, it, vi } from 'vitest';
import { headedText } from '../../src/core/doc-title.ts';
import { asChunkId } from '../../src/core/ids.ts';
import { LexicalIndex, type LexicalOptions } from '../../src/index/lexical-index.ts';
import { LexicalSegment } from '../../src/index/lexical-segment.ts';
import { segmentOf } from '../../src/index/segment-builder.ts';
import { SegmentMerge } from '../../src/index/segment-merge.ts';
import { processTerm, termsOf, tokenize } from '../../src/text/tokenize.ts';

/**
 * The lexical index keeps MiniSearch's ranking as its definition while it holds most chunks in segments:
 * one MiniSearch over the chunks that survive is the oracle.
 */
const OPTIONS: LexicalOptions = { k1: 1.2, b: 0.5 };

/**
 * MiniSearch as the app used it before segments: BM25 with d = 0, the field length counting every term
 * (each token made distinct by its position), scores divided by the distinct query terms matched.
 */
function oracle(chunks: ReadonlyMap<string, { text: string; title: string }>, options = OPTIONS) {
  const ms = new MiniSearch<{ id: string; text: string }>({
    fields: ['text'],
    tokenize: (text) => termsOf(text).map((t, i) => `${i}\u0000${t}`),
    processTerm: (t) => t.slice(t.indexOf('\u0000') + 1),
    searchOptions: { tokenize, processTerm },
  });
  ms.addAll([...chunks].map(([id, c]) => ({ id, text: headedText(c.title, c.text) })));
  return {
    search(q: string) {
      return ms.search(q, { combineWith: 'OR', prefix: false, fuzzy: false, bm25: { k: options.k1, b: options.b, d: 0 } }).map((r) => ({ chunkId: String(r.id), score: r.score / Math.max(1, r.queryTerms.length) }));
    },
    documentFrequency(term: string) {
      let n = 0;
      for (const c of chunks.values()) if (termsOf(headedText(c.title, c.text)).includes(term)) n++;
      return n;
    },
    size: ms.documentCount,
  };
}

const WORDS = ['tenant', 'tenants', 'landlord', 'deposit', 'kitchen', 'treaty', 'quota', 'fish', 'appeal', 'court', 'running', 'payment', 'the', 'of', 'café', 'naïve', '東京', 'z'];
const QUERIES = ['tenant', 'deposit kitchen', 'fish fish treaty', 'court appeal landlord payment', 'the of', 'café naïve', '東京', 'zebra', 'tenant z tenant', 'lease notes'];
const text = fc.array(fc.constantFrom(...WORDS), { minLength: 0, maxLength: 12 }).map((w) => w.join(' '));
const title = fc.constantFrom('', 'Lease', 'Treaty of fish', 'Landlord notes');
const id = fc.integer({ min: 0, max: 30 }).map((n) => `c${n}`);

type Op =
  | { kind: 'add'; chunks: Array<{ id: string; text: string; title: string }> }
  | { kind: 'remove'; ids: string[] }
  | { kind: 'snapshot' }
  | { kind: 'search'; query: string };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('add' as const), chunks: fc.array(fc.record({ id, text, title }), { minLength: 1, maxLength: 7 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('remove' as const), ids: fc.array(id, { minLength: 1, maxLength: 6 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('snapshot' as const) }) },
  // A search puts the chunks added since into the live MiniSearch; later adds wait again.
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('search' as const), query: fc.constantFrom(...QUERIES) }) },
);

function expectSameAsOracle(index: LexicalIndex, chunks: ReadonlyMap<string, { text: string; title: string }>): void {
  const o = oracle(chunks);
  expect(index.size).toBe(o.size);
  expect(index.documentCount).toBe(o.size);
  for (const [cid] of chunks) expect(index.has(asChunkId(cid))).toBe(true);
  for (const term of termsOf(WORDS.join(' ') + ' lease notes')) expect(index.documentFrequency(term), `df of ${term}`).toBe(o.documentFrequency(term));
  for (const q of QUERIES) {
    const expected = o.search(q);
    const actual = index.searchNow(q, 100);
    expect(actual.length, `hits for ${q}`).toBe(expected.length);
    const score = new Map(expected.map((h) => [h.chunkId, h.score]));
    for (const h of actual) expect(Math.abs(h.score - score.get(h.chunkId)!), `score of ${h.chunkId} for ${q}`).toBeLessThan(1e-9 * Math.max(1, h.score));
    const odd = new Set(['c1', 'c4', 'c9', 'c16']);
    const filtered = index.searchNow(q, 100, (cid) => odd.has(cid));
    expect(filtered.map((h) => h.chunkId)).toEqual(actual.filter((h) => odd.has(h.chunkId)).map((h) => h.chunkId));
  }
}

describe('LexicalIndex over segments and a live MiniSearch', () => {
  it('scores exactly as one MiniSearch over the surviving chunks, after adds, replaces, removes, segment writes, merges and snapshots in any order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 30 }), fc.integer({ min: 1, max: 8 }), fc.boolean(), async (ops, liveLimit, sliced) => {
        // Sliced: each change merges one term and returns, so merges stay under way across many changes
        // (adds, removals, searches and snapshots land in the middle of them).
        const make = (index: LexicalIndex) => {
          if (sliced) index.mergeSliceMs = 0;
          return index;
        };
        let index = make(new LexicalIndex(OPTIONS, liveLimit, sliced ? 1 : undefined));
        const chunks = new Map<string, { text: string; title: string }>();
        for (const o of ops) {
          if (o.kind === 'add') {
            index.add(o.chunks.map((c) => ({ chunkId: asChunkId(c.id), text: c.text, title: c.title })));
            const seen = new Set<string>();
            for (const c of o.chunks) {
              if (seen.has(c.id)) continue; // The first of a repeated id wins, as in add().
              seen.add(c.id);
              chunks.set(c.id, { text: c.text, title: c.title });
            }
          } else if (o.kind === 'remove') {
            await index.remove(o.ids.map(asChunkId));
            for (const cid of o.ids) chunks.delete(cid);
          } else if (o.kind === 'search') {
            const expected = oracle(chunks).search(o.query);
            expect(index.searchNow(o.query, 100).map((h) => h.chunkId).sort()).toEqual(expected.map((h) => h.chunkId).sort());
          } else {
            index = make(LexicalIndex.load(index.serialize(), liveLimit, sliced ? 1 : undefined));
          }
        }
        expectSameAsOracle(index, chunks);
        if (sliced) {
          while (!index.maintainFor(0)) expectSameAsOracle(index, chunks);
          expect(index.needsMerging).toBe(false);
          expectSameAsOracle(index, chunks);
        }
        expect(index.segmentCount).toBeLessThanOrEqual(2 + Math.ceil(Math.log2(1 + chunks.size)));
      }),
      { numRuns: 300 },
    );
  });

  it('writes a big batch straight into a segment, merges small ones as they come, and rewrites a mostly deleted one', async () => {
    const index = new LexicalIndex(OPTIONS, 4);
    const chunks = new Map<string, { text: string; title: string }>();
    const add = (from: number, to: number) => {
      const batch = [];
      for (let i = from; i < to; i++) batch.push({ chunkId: asChunkId(`c${i}`), text: `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} tenant`, title: i % 3 ? 'Lease' : '' });
      index.add(batch);
      for (const c of batch) chunks.set(c.chunkId, { text: c.text, title: c.title });
    };
    add(0, 40);
    expect(index.segmentCount).toBe(1);
    for (let i = 40; i < 80; i += 2) add(i, i + 2);
    expect(index.segmentCount).toBeLessThanOrEqual(6);
    expectSameAsOracle(index, chunks);
    const gone = [...chunks.keys()].filter((_, i) => i % 4 !== 0);
    await index.remove(gone.map(asChunkId));
    for (const cid of gone) chunks.delete(cid);
    expectSameAsOracle(index, chunks);
  });
});

describe('LexicalSegment', () => {
  it('keeps terms in byte order, postings as given, and survives bytes and damage', () => {
    const segment = segmentOf([
      { id: 'a', terms: ['tenant', 'café', 'tenant'] },
      { id: 'b', terms: ['東京', 'tenant'] },
      { id: 'c', terms: [] },
    ]);
    const terms = Array.from({ length: segment.termCount }, (_, t) => segment.termText(t));
    expect(terms).toEqual(['café', 'tenant', '東京']);
    const back = LexicalSegment.fromBytes(segment.toBytes());
    expect(back.ids).toEqual(['a', 'b', 'c']);
    expect([...back.lengths]).toEqual([3, 2, 0]);
    const t = back.find('tenant');
    expect(back.frequency(t)).toBe(2);
    const { ordinals, frequencies } = back.postingsOf(t);
    expect([...ordinals]).toEqual([0, 1]);
    expect([...frequencies]).toEqual([2, 1]);
    expect(back.find('tenants')).toBe(-1);
    const bytes = segment.toBytes();
    expect(() => LexicalSegment.fromBytes(bytes.slice(0, bytes.length - 8))).toThrow(expect.objectContaining({ code: 'schema-version' }));
    const newer = bytes.slice();
    newer[4] = 9;
    expect(() => LexicalSegment.fromBytes(newer)).toThrow(/version 9/);
  });

  it('codes gaps and frequencies past one byte (ordinals in the thousands, a term repeated 300 times)', () => {
    const chunks = Array.from({ length: 5000 }, (_, i) => ({ id: `c${i}`, terms: i % 1234 === 0 ? Array(300).fill('rare') : ['common'] }));
    const segment = LexicalSegment.fromBytes(segmentOf(chunks).toBytes());
    const { ordinals, frequencies } = segment.postingsOf(segment.find('rare'));
    expect([...ordinals]).toEqual([0, 1234, 2468, 3702, 4936]);
    expect([...frequencies]).toEqual([300, 300, 300, 300, 300]);
    expect(segment.frequency(segment.find('common'))).toBe(4995);
  });
});

describe('a merge that fails', () => {
  it('leaves every chunk found with the same scores (the index whole, in more segments), and the next merge catches up', async () => {
    const index = new LexicalIndex(OPTIONS, 2);
    const chunks = new Map<string, { text: string; title: string }>();
    const add = (i: number) => {
      const c = { chunkId: asChunkId(`c${i}`), text: `${WORDS[i % WORDS.length]} tenant ${WORDS[(i * 5) % WORDS.length]}`, title: 'Lease' };
      index.add([c]);
      chunks.set(c.chunkId, { text: c.text, title: c.title });
    };
    for (let i = 0; i < 6; i++) add(i);
    const segments = index.segmentCount;
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const merge = vi.spyOn(SegmentMerge.prototype, 'run').mockImplementation(() => {
      throw new RangeError('Array buffer allocation failed');
    });
    try {
      for (let i = 6; i < 10; i++) add(i);
      expect(index.segmentCount).toBeGreaterThan(segments);
      expect(warn).toHaveBeenCalledWith('lexical index: segments not merged', expect.any(RangeError));
      expectSameAsOracle(index, chunks);
    } finally {
      merge.mockRestore();
      warn.mockRestore();
    }
    add(10);
    add(11);
    expect(index.segmentCount).toBeLessThanOrEqual(3);
    expectSameAsOracle(index, chunks);
  });
});
