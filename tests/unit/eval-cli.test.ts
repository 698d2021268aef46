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
  // The same collection with SciFact-style claims, for the answer evaluation.
  const claimed = join(dir, 'claims');
  await mkdir(join(claimed, 'qrels'), { recursive: true });
  await writeFile(join(claimed, 'corpus.jsonl'), corpus.map((d) => JSON.stringify(d)).join('\n'));
  await writeFile(join(claimed, 'queries.jsonl'), queries.map((q) => JSON.stringify(q)).join('\n'));
  await writeFile(join(claimed, 'qrels', 'test.tsv'), 'query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\n');
  const claims = [
    { id: 1, claim: 'Vitamin D supplements raise bone density.', cited_doc_ids: ['d1'], evidence: { d1: { label: 'SUPPORT', sentences: [[0]] } } },
    { id: 2, claim: 'Sleep deprivation impairs memory consolidation.', cited_doc_ids: ['d2'], evidence: { d2: { label: 'SUPPORT', sentences: [[0]] } } },
    { id: 3, claim: 'Coffee consumption causes heart disease.', cited_doc_ids: ['d3'], evidence: { d3: { label: 'CONTRADICT', sentences: [[0]] } } },
    { id: 4, claim: 'Glaciers retreat in warm summers.', cited_doc_ids: ['d2'], evidence: { d2: { label: 'SUPPORT', sentences: [[0]] } } },
    { id: 5, claim: 'A claim without evidence.', cited_doc_ids: ['d1'], evidence: {} },
  ];
  await writeFile(join(claimed, 'claims_dev.jsonl'), claims.map((c) => JSON.stringify(c)).join('\n'));
  await run('npx', ['tsx', 'tools/fixtures-models.ts', join(dir, 'models')]);
}, 120_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

async function evalJson(...args: string[]): Promise<Record<string, unknown>> {
  return evalJsonOn('beir', ...args);
}

/** Each test's vectors are cached in a folder of its own (`cache`), never in the person's. */
async function evalJsonOn(data: string, ...args: string[]): Promise<Record<string, unknown>> {
  const cache = args.includes('--cache-dir') ? args.splice(args.indexOf('--cache-dir'), 2)[1]! : join(dir, 'vectors', String(Math.random()));
  const { stdout } = await run('npx', ['tsx', 'tools/eval.ts', '--data', join(dir, data), '--json', ...args], { env: { ...process.env, DOCQA_VECTOR_CACHE: cache } });
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

  it('with a model and no --mode, reports every mode over one embedding, and a second run embeds nothing', async () => {
    const model = join(dir, 'models', 'tiny-encoder');
    const cache = join(dir, 'vectors', 'shared');
    const first = await evalJson('--model', model, '--cache-dir', cache);
    const [bm25, dense] = await Promise.all([evalJson('--mode', 'bm25'), evalJson('--mode', 'dense', '--model', model)]);
    const modes = first.modes as Record<string, Record<string, number>>;
    expect(Object.keys(modes)).toEqual(['bm25', 'dense', 'hybrid']);
    expect(first).toMatchObject({ mode: 'hybrid', model: 'local:tiny-encoder' });
    expect(modes.bm25!['ndcg@10']).toBe(bm25['ndcg@10']);
    expect(modes.dense!['ndcg@10']).toBe(dense['ndcg@10']);
    // 3 chunks and 2 questions, each embedded once (hybrid reads the questions dense embedded); the
    // second run reads everything from the cache and ranks the same.
    expect(first).toMatchObject({ embedded_texts: 5, cached_texts: 2 });
    const second = await evalJson('--model', model, '--cache-dir', cache);
    expect(second).toMatchObject({ embedded_texts: 0, cached_texts: 7 });
    const ranking = (report: Record<string, unknown>) => Object.values(report.modes as Record<string, Record<string, number>>).map((m) => [m['ndcg@10'], m['recall@10'], m['mrr@10']]);
    expect(ranking(second)).toEqual(ranking(first));
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

/** The keys every answer evaluation reports, whatever writes the answers. */
const ANSWER_KEYS = [
  'answer_generator', 'answer_claims', 'answered_rate', 'answer_not_found_rate', 'cited_evidence_rate', 'cited_evidence_rate_answered', 'citation_precision',
  'sources_per_answer', 'sentences_per_answer', 'cited_sentence_rate', 'supported_sentence_rate', 'removed_citations_per_answer', 'removed_no_such_passage',
  'removed_not_supported', 'evidence_sentence_rate', 'ms_per_answer_p50', 'ms_per_answer_p95', 'retrieve_ms_p50',
];
const RATES = ['answered_rate', 'answer_not_found_rate', 'cited_evidence_rate', 'cited_evidence_rate_answered', 'citation_precision', 'cited_sentence_rate', 'supported_sentence_rate', 'evidence_sentence_rate'];

function expectSaneAnswerReport(report: Record<string, unknown>, claims: number): void {
  for (const key of ANSWER_KEYS) expect(report, key).toHaveProperty(key);
  expect(report.answer_claims).toBe(claims);
  for (const key of RATES) {
    if (report[key] === null) continue;
    expect(report[key], key).toBeGreaterThanOrEqual(0);
    expect(report[key], key).toBeLessThanOrEqual(1);
  }
  expect((report.answered_rate as number) + (report.answer_not_found_rate as number)).toBeCloseTo(1, 3);
  expect(report.cited_evidence_rate as number).toBeLessThanOrEqual(report.answered_rate as number);
  if (report.removed_citations_per_answer !== null) {
    const removed = (report.removed_no_such_passage as number) + (report.removed_not_supported as number);
    expect(report.removed_citations_per_answer).toBeCloseTo(removed / claims, 2);
  }
  expect(report.ms_per_answer_p50 as number).toBeGreaterThanOrEqual(0);
  expect(report.ms_per_answer_p95 as number).toBeGreaterThanOrEqual(report.ms_per_answer_p50 as number);
}

describe('npm run eval --answers --generator', () => {
  it('writes answers with the generated tiny decoder (a real transformers.js model folder) over --limit claims, checked', async () => {
    const report = await evalJsonOn('claims', '--answers', '--generator', join(dir, 'models', 'tiny-decoder'), '--limit', '3', '--max-tokens', '24');
    expectSaneAnswerReport(report, 3);
    expect(report.answer_generator).toBe('local:tiny-decoder');
    // Checked: the checker's figures are numbers, not null.
    expect(typeof report.supported_sentence_rate).toBe('number');
    // The decoder wrote text (greedy, fixed weights) that reached the checker: sentences were judged.
    expect(report.sentences_per_answer as number).toBeGreaterThan(0);
    expect(report.mode).toBe('bm25'); // the retrieval figures are still there
  }, 180_000);

  it('the quote baseline cites the evidence documents with supported sentences; extractive reports nothing checked', async () => {
    const [quote, extractive] = await Promise.all([evalJsonOn('claims', '--answers', '--generator', 'quote'), evalJsonOn('claims', '--answers')]);
    expectSaneAnswerReport(quote, 4);
    // Claim 4 (glaciers) matches no document: not found; the others quote their evidence document.
    expect(quote).toMatchObject({ answer_generator: 'quote', answered_rate: 0.75, cited_evidence_rate: 0.75, supported_sentence_rate: 1, removed_citations_per_answer: 0 });
    expectSaneAnswerReport(extractive, 4);
    expect(extractive).toMatchObject({ answer_generator: 'extractive', supported_sentence_rate: null, cited_evidence_rate: 0.75 });
  }, 180_000);

  it('says what is wrong with the answer flags', async () => {
    await expect(run('npx', ['tsx', 'tools/eval.ts', '--data', join(dir, 'beir'), '--answers'])).rejects.toMatchObject({ stderr: expect.stringContaining('has no claims_dev.jsonl') });
    await expect(run('npx', ['tsx', 'tools/eval.ts', '--data', join(dir, 'claims'), '--generator', 'quote'])).rejects.toMatchObject({ stderr: expect.stringContaining('--generator need --answers') });
    await expect(run('npx', ['tsx', 'tools/eval.ts', '--data', join(dir, 'claims'), '--answers', '--limit', '0'])).rejects.toMatchObject({ stderr: expect.stringContaining('--limit must be a whole number') });
    await expect(run('npx', ['tsx', 'tools/eval.ts', '--data', join(dir, 'claims'), '--answers', '--generator', join(dir, 'models', 'tiny-encoder')])).rejects.toMatchObject({
      stderr: expect.stringContaining('not a text-generation model'),
    });
  }, 120_000);
});

describe('npm run eval --questions --docs', () => {
  /** A folder of pages and a question set over them, as tests/fixtures/real-questions/*.json are. */
  async function writeSet(): Promise<{ set: string; docs: string }> {
    const docs = join(dir, 'manuals');
    await mkdir(join(docs, 'db'), { recursive: true });
    await writeFile(join(docs, 'db', 'limits.html'), '<html><head><title>Limits</title></head><body><h1>Limits</h1><p>The maximum number of columns in a table is 2000 by default.</p></body></html>');
    await writeFile(join(docs, 'db', 'keys.html'), '<html><head><title>Keys</title></head><body><h1>Foreign keys</h1><p>Foreign key constraints are disabled by default.</p></body></html>');
    await writeFile(join(docs, 'db', 'notes.txt'), 'Foreign key notes that the set leaves out: only HTML pages are read.');
    const set = join(dir, 'set.json');
    await writeFile(set, JSON.stringify({
      about: 'test',
      extensions: ['html'],
      folders: ['db'],
      answerable: [
        { id: 'columns', question: 'What is the maximum number of columns in a table?', document: 'db/limits.html', fact: '2000' },
        { id: 'keys', question: 'Are foreign key constraints enabled by default?', document: 'db/keys.html', fact: 'disabled by default' },
      ],
      unanswerable: [{ id: 'volcano', question: 'When did the Vesuvius volcano erupt?' }],
    }));
    return { set, docs };
  }

  async function questionsJson(...args: string[]): Promise<Record<string, unknown>> {
    const { stdout } = await run('npx', ['tsx', 'tools/eval.ts', '--json', ...args], { env: { ...process.env, DOCQA_VECTOR_CACHE: join(dir, 'vectors', String(Math.random())) } });
    return JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
  }

  it('ingests the pages, asks every question, and reports answered, fact quoted and Not found (BM25, and hybrid with --model)', async () => {
    const { set, docs } = await writeSet();
    const bm25 = await questionsJson('--questions', set, '--docs', docs);
    expect(bm25).toMatchObject({ mode: 'bm25', answerable: 2, answered_rate: 1, fact_quoted_rate: 1, document_retrieved_rate: 1, unanswerable: 1, not_found_rate: 1 });
    expect((bm25.outcomes as Array<{ id: string }>).map((o) => o.id)).toEqual(['columns', 'keys', 'volcano']);
    const hybrid = await questionsJson('--questions', set, '--docs', docs, '--model', join(dir, 'models', 'tiny-encoder'));
    expect(hybrid).toMatchObject({ mode: 'hybrid', model: expect.stringContaining('tiny-encoder'), answerable: 2, unanswerable: 1 });
  }, 180_000);

  it('says what is missing: the folder, or a page the set names', async () => {
    const { set } = await writeSet();
    await expect(run('npx', ['tsx', 'tools/eval.ts', '--questions', set])).rejects.toMatchObject({ stderr: expect.stringContaining('--questions <set.json> --docs <folder>') });
    const empty = join(dir, 'no-manuals');
    await mkdir(join(empty, 'db'), { recursive: true });
    await expect(run('npx', ['tsx', 'tools/eval.ts', '--questions', set, '--docs', empty])).rejects.toMatchObject({ stderr: expect.stringContaining('no db/limits.html, db/keys.html') });
  }, 120_000);
});
