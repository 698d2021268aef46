import { describe, expect, it } from 'vitest';
import { asChunkId, type DocId } from '../../src/core/ids.ts';
import type { IndexEntry } from '../../src/core/types.ts';
import { ChunkOwners } from '../../src/index/chunk-owners.ts';

const entry = (chunk: string, doc: string, title: string): IndexEntry => ({ chunkId: asChunkId(chunk), docId: doc as DocId, text: '', title });

/** Owners with a chunk shared by two documents and a document retitled after some of its chunks were added. */
function owners(): ChunkOwners {
  const o = new ChunkOwners();
  o.add([entry('c1', 'docA', 'Lease'), entry('c2', 'docA', 'Lease'), entry('shared', 'docA', 'Lease')]);
  o.add([entry('shared', 'docB', 'Loan'), entry('c3', 'docB', 'Loan')]);
  o.add([entry('c4', 'docA', 'Lease, signed')]);
  return o;
}

const counts = (o: ChunkOwners) => Object.fromEntries([...o.chunkCounts()].sort());

describe('ChunkOwners snapshots', () => {
  it('a loaded snapshot tells its size and each document\'s chunk count before and after its map is made', () => {
    const before = owners();
    const expected = { docA: 4, docB: 2 };
    expect(counts(before)).toEqual(expected);
    expect(before.size).toBe(5);
    const loaded = ChunkOwners.load(before.serialize());
    // Read from the snapshot's lists, the map not made yet.
    expect(loaded.size).toBe(5);
    expect(counts(loaded)).toEqual(expected);
    // Made on first use: the same owners and titles.
    expect(loaded.ownersOf(asChunkId('shared'))).toEqual(['docA', 'docB']);
    expect(loaded.titleOf(asChunkId('c4'))).toBe('Lease, signed');
    expect(loaded.titleOf(asChunkId('c1'))).toBe('Lease');
    expect(loaded.size).toBe(5);
    expect(counts(loaded)).toEqual(expected);
    // And it changes as the original does.
    loaded.remove([{ chunkId: asChunkId('shared'), docId: 'docA' as DocId }]);
    before.remove([{ chunkId: asChunkId('shared'), docId: 'docA' as DocId }]);
    expect(counts(loaded)).toEqual(counts(before));
    expect(loaded.serialize()).toBe(before.serialize());
  });

  it('adding to a loaded snapshot before anything else reads it keeps every owner', () => {
    const loaded = ChunkOwners.load(owners().serialize());
    const change = loaded.add([entry('c5', 'docC', 'Deed'), entry('c1', 'docC', 'Deed')]);
    expect(change.fresh.map((e) => e.chunkId)).toEqual(['c5']);
    expect(loaded.ownersOf(asChunkId('c1'))).toEqual(['docA', 'docC']);
    expect(loaded.size).toBe(6);
  });

  it('refuses a damaged snapshot when it loads, not later (the indexes are rebuilt instead)', () => {
    const good = JSON.parse(owners().serialize());
    expect(() => ChunkOwners.load(JSON.stringify({ ...good, owners: [['docA', 'Lease', 'c1']] }))).toThrow(/damaged/);
    expect(() => ChunkOwners.load(JSON.stringify({ ...good, owners: [['docA', 7, ['c1']]] }))).toThrow(/damaged/);
    expect(() => ChunkOwners.load(JSON.stringify({ ...good, chunks: 'five' }))).toThrow(/damaged/);
    expect(() => ChunkOwners.load(JSON.stringify({ ...good, version: 1 }))).toThrow(expect.objectContaining({ code: 'schema-version' }));
  });

  it('loads a snapshot written before the chunk count was kept', () => {
    const { chunks, ...older } = JSON.parse(owners().serialize());
    expect(chunks).toBe(5);
    const loaded = ChunkOwners.load(JSON.stringify(older));
    expect(loaded.size).toBe(5);
    expect(counts(loaded)).toEqual({ docA: 4, docB: 2 });
  });
});
