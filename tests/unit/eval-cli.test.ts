// `npm run eval -- --mode bm25|dense|hybrid|rerank --model <folder> --reranker <folder>` end to end, as
// a person runs it: the CLI in a child process, on a BEIR-layout collection written here and the
// generated tiny encoder and cross-encoder written by `npm run fixtures:models`. Proves the dense,
// hybrid and rerank paths (ingest → embed → vector index → RRF → cross-encoder → metrics) run in Node
// on any transformers.js model folders. The tiny models' weights are random, so only BM25's figures
// are checked for quality.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'eval-cli-'));
  const beir = join(dir, 'beir');
  await mkdir(join(beir, 'qrels'), { recursive: true });
  const corpus = [
    { _id: 'd1', title: 'Vitamin D and bone density', text: 'Vitamin D supplements increase bone mineral density in older adults.' },
    { _id: 'd2', title: 'Sleep and memory', text: 'Sleep deprivation impairs the consolidation of episodic memory.' },
    { _id: 'd3', title: 'Coffee consumption', text: 'Moderate coffee consumption is not associated with heart disease.' },
  ];
  const queries = [
    { _id: 'q1', text: 'does vitamin D improve bone density' },
    { _id: 'q2', text: 'sleep loss and memory consolidation' },
  ];
  await writeFile(join(beir, 'corpus.jsonl'), corpus.map((d) => JSON.stringify(d)).join('\n'));
  await writeFile(join(beir, 'queries.jsonl'), queries.map((q) => JSON.stringify(q)).join('\n'));
  await writeFile(join(beir, 'qrels', 'test.tsv'), 'query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\n');
  await run('npx', ['tsx', 'tools/fixtures-models.ts', join(dir, 'models')]);
}, 120_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

async function evalJson(...args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await run('npx', ['tsx', 'tools/eval.ts', '--data', join(dir, 'beir'), '--json', ...args]);
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
}

describe('npm run eval --mode', () => {
  it('runs bm25, dense and hybrid on a generated model folder, with mode and model in the JSON', async () => {
    const model = join(dir, 'models', 'tiny-encoder');
    const [bm25, dense, hybrid, voy] = await Promise.all([
      evalJson('--mode', 'bm25'),
      evalJson('--mode', 'dense', '--model', model),
      evalJson('--mode', 'hybrid', '--model', model),
      evalJson('--mode', 'hybrid', '--model', model, '--vector-index', 'voy'),
    ]);
    expect(bm25).toMatchObject({ mode: 'bm25', model: '', reranker: '', vector_index: '', 'ndcg@10': 1, queries: 2, chunks: 3 });
    // voy-search behind the same contract ranks as the flat index does (exact neighbours).
    expect(voy).toMatchObject({ mode: 'hybrid', vector_index: 'voy', 'ndcg@10': hybrid['ndcg@10'], 'mrr@10': hybrid['mrr@10'] });
    expect(hybrid.vector_index).toBe('flat');
    for (const report of [dense, hybrid]) {
      expect(report).toMatchObject({ model: 'local:tiny-encoder', reranker: '', queries: 2, chunks: 3, documents: 3 });
      expect(report['ndcg@10']).toBeGreaterThan(0);
      expect(report.embed_ms).toBeGreaterThan(0);
    }
    expect(dense.mode).toBe('dense');
    expect(hybrid.mode).toBe('hybrid');
    // The same keys in every mode.
    expect(Object.keys(dense).sort()).toEqual(Object.keys(bm25).sort());
  }, 180_000);

  it('runs rerank (BM25 and dense fused, then reranked by the tiny cross-encoder), and reranks bm25 with --reranker', async () => {
    const model = join(dir, 'models', 'tiny-encoder');
    const reranker = join(dir, 'models', 'tiny-cross-encoder');
    const [rerank, bm25] = await Promise.all([evalJson('--mode', 'rerank', '--model', model, '--reranker', reranker), evalJson('--mode', 'bm25', '--reranker', reranker)]);
    expect(rerank).toMatchObject({ mode: 'rerank', model: 'local:tiny-encoder', reranker: 'local:tiny-cross-encoder', queries: 2, chunks: 3, documents: 3 });
    expect(rerank['ndcg@10']).toBeGreaterThan(0);
    expect(rerank['recall@100']).toBe(1); // every document is still ranked: reranking reorders, never drops
    expect(rerank.embed_ms).toBeGreaterThan(0);
    expect(bm25).toMatchObject({ mode: 'bm25', model: '', reranker: 'local:tiny-cross-encoder', 'recall@100': 1 });
    const plain = await evalJson('--mode', 'bm25');
    expect(Object.keys(rerank).sort()).toEqual(Object.keys(plain).sort());
  }, 180_000);

  it('says what is missing when rerank has no --reranker, or the reranker folder is an encoder without a head', async () => {
    await expect(run('npx', ['tsx', 'tools/eval.ts', '--data', join(dir, 'beir'), '--mode', 'rerank', '--model', join(dir, 'models', 'tiny-encoder')])).rejects.toMatchObject({
      stderr: expect.stringContaining('rerank needs --reranker'),
    });
    await expect(run('npx', ['tsx', 'tools/eval.ts', '--data', join(dir, 'beir'), '--reranker', join(dir, 'models', 'tiny-encoder')])).rejects.toMatchObject({
      stderr: expect.stringContaining('not a cross-encoder'),
    });
  }, 120_000);

  it('says what is missing when dense or hybrid has no --model, or the folder is not a model', async () => {
    await expect(run('npx', ['tsx', 'tools/eval.ts', '--data', join(dir, 'beir'), '--mode', 'hybrid'])).rejects.toMatchObject({ stderr: expect.stringContaining('dense, hybrid and rerank need --model') });
    await expect(run('npx', ['tsx', 'tools/eval.ts', '--data', join(dir, 'beir'), '--mode', 'dense', '--model', dir])).rejects.toMatchObject({ stderr: expect.stringContaining('no config.json here') });
  }, 120_000);
});
