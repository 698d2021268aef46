// The voy-search index behind the common contract, against the exact flat index: same top-k (voy's
// k-d tree finds exact Euclidean neighbours, which for normalised vectors are the best cosines), same
// filtered results (including a filter too narrow for voy's neighbours), removals, and refusals.
import { describe, expect, it } from 'vitest';
import { asChunkId, asModelId, type ChunkId } from '../../src/core/ids.ts';
import { DenseIndex } from '../../src/index/dense-index.ts';
import { VoyIndex } from '../../src/index/voy-index.ts';
import { loadVoy } from '../../tools/voy-node.ts';
import { clusteredVectors, rowOf } from '../../tools/vectors/clustered-vectors.ts';

const DIMS = 32;
const COUNT = 600;
const id = (i: number) => asChunkId(`c${String(i).padStart(4, '0')}`);

async function both() {
  const block = clusteredVectors({ count: COUNT + 20, dimensions: DIMS, seed: 7 });
  const entries = Array.from({ length: COUNT }, (_, i) => ({ chunkId: id(i), vector: rowOf(block, DIMS, i) }));
  const queries = Array.from({ length: 20 }, (_, i) => rowOf(block, DIMS, COUNT + i));
  const voy = new VoyIndex(await loadVoy(), asModelId('test'), DIMS);
  // Exact (f32), not the app's default (binary-int8, whose scores are 12-bit): voy's are exact.
  const flat = DenseIndex.create(asModelId('test'), DIMS, 'f32');
  voy.add(entries);
  flat.add(entries);
  return { voy, flat, queries };
}

const ids = (hits: Array<{ chunkId: ChunkId }>) => hits.map((h) => h.chunkId);

describe('VoyIndex', () => {
  it('finds the same top 10 as the exact flat index, with cosine scores', async () => {
    const { voy, flat, queries } = await both();
    for (const q of queries) {
      const [a, b] = await Promise.all([voy.search({ text: '', vector: q }, 10), flat.search({ text: '', vector: q }, 10)]);
      expect(ids(a)).toEqual(ids(b));
      a.forEach((h, i) => expect(h.score).toBeCloseTo(b[i]!.score, 4));
    }
    voy.dispose();
  });

  it('applies filters: the same results as the flat index, also when the filter is too narrow for voy\'s neighbours', async () => {
    const { voy, flat, queries } = await both();
    const everyThird = (c: ChunkId) => Number(c.slice(1)) % 3 === 0;
    const fewAndFar = new Set([id(5), id(250), id(599)]);
    for (const filter of [everyThird, (c: ChunkId) => fewAndFar.has(c)]) {
      for (const q of queries.slice(0, 5)) {
        expect(ids(await voy.search({ text: '', vector: q }, 10, filter))).toEqual(ids(await flat.search({ text: '', vector: q }, 10, filter)));
      }
    }
    voy.dispose();
  });

  it('forgets removed chunks, needs the question vector, and refuses wrong vectors', async () => {
    const { voy, flat, queries } = await both();
    const top = ids(await voy.search({ text: '', vector: queries[0] }, 3));
    await voy.remove(top);
    await flat.remove(top);
    expect(voy.size).toBe(COUNT - 3);
    expect(ids(await voy.search({ text: '', vector: queries[0] }, 10))).toEqual(ids(await flat.search({ text: '', vector: queries[0] }, 10)));
    expect(await voy.search({ text: 'no vector' }, 10)).toEqual([]);
    expect(() => voy.add([{ chunkId: id(9999), vector: new Float32Array(DIMS).fill(Number.NaN) }])).toThrow(/not 32 finite numbers/);
    expect(JSON.parse(voy.serialize())).toMatchObject({ version: 1, dimensions: DIMS });
    voy.dispose();
  });
});
