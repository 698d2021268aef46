// The fusion sweep scores each candidate setting exactly as the hybrid evaluation would rank with it:
// the same lists, fused by the app's RRF, ranked by best chunk per document. Runs on the generated tiny
// encoder (random weights: the figures mean nothing, only their agreement does).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BeirCollection } from '../../src/eval/beir.ts';
import { evaluateRetrieval, indexCollection, withMode } from '../../src/eval/evaluate.ts';
import { fusionGrid, sweepFusion } from '../../src/eval/fusion-sweep.ts';
import { chunkEmbedderOf } from '../../src/embed/chunk-embedder.ts';
import { loadEmbedder } from '../../src/models/encoder/embedder.ts';
import { localModel } from '../../src/models/catalogue.ts';
import { createTinyModelDir, type TinyModelDir } from '../support/tiny-model-dir.ts';

let tiny: TinyModelDir;
beforeAll(async () => {
  tiny = await createTinyModelDir();
});
afterAll(() => tiny.remove());

const topics = ['vitamin D and bone density', 'sleep and memory', 'coffee and the heart', 'exercise and mood', 'salt and blood pressure', 'reading and eyesight'];
const collection: BeirCollection = {
  corpus: topics.flatMap((t, i) => [
    { id: `d${i}a`, title: t, text: `A trial of ${t} in older adults found a small effect.` },
    { id: `d${i}b`, title: `More on ${t}`, text: `Cohort studies of ${t} disagree with the trial.` },
  ]),
  queries: new Map(topics.map((t, i) => [`q${i}`, `what is known about ${t.split(' and ')[0]}`])),
  qrels: new Map(topics.map((_, i) => [`q${i}`, new Map([[`d${i}a`, 1], [`d${(i + 1) % topics.length}b`, 1]])])),
};

describe('sweepFusion', () => {
  it('scores every candidate as the hybrid evaluation ranks with it, best first', async () => {
    const embedder = chunkEmbedderOf(await loadEmbedder(localModel({ folder: 'tiny-encoder', dims: 32, pooling: 'mean' }), { source: { kind: 'folder', root: tiny.dir } }));
    const indexed = await indexCollection(collection, { mode: 'hybrid' }, embedder);
    const grid = fusionGrid([1, 60], [0.5, 1, 3]);
    const swept = await sweepFusion(collection, indexed, grid);
    expect(swept).toHaveLength(6);
    for (let i = 1; i < swept.length; i++) expect(swept[i]!['ndcg@10']).toBeLessThanOrEqual(swept[i - 1]!['ndcg@10']);
    for (const { k, denseWeight } of grid) {
      const report = await evaluateRetrieval(collection, withMode(indexed, 'hybrid', { fusion: { k, weights: { Dense: denseWeight } } }));
      expect(swept.find((s) => s.k === k && s.denseWeight === denseWeight)!['ndcg@10']).toBe(report['ndcg@10']);
    }
  });
});
