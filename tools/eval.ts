/**
 * Evaluation CLI: `npm run eval -- --data <BEIR dir> [--split test] [--json]`.
 * Uses the app's own ingest, index, retrieval and answer code with default settings. When the collection
 * has SciFact's `claims_dev.jsonl`, it also checks that answers cite the documents each claim comes from.
 */
import { parseArgs } from 'node:util';
import { loadBeir, loadClaims } from '../src/eval/beir.ts';
import { evaluateAnswers } from '../src/eval/evaluate-answers.ts';
import { evaluateRetrieval, indexCollection } from '../src/eval/evaluate.ts';

const { values } = parseArgs({
  options: { data: { type: 'string' }, split: { type: 'string', default: 'test' }, json: { type: 'boolean', default: false } },
});
if (!values.data) {
  console.error('usage: npm run eval -- --data <dir in BEIR layout> [--split test] [--json]');
  process.exit(2);
}
const collection = await loadBeir(values.data, values.split);
const indexed = await indexCollection(collection);
const report = evaluateRetrieval(collection, indexed);
console.log(`collection   ${values.data} (${values.split}): ${report.documents} documents, ${report.chunks} chunks, ${report.queries} queries`);
console.log(`skipped      ${report.skipped} empty records (no title, no text)`);
console.log(`nDCG@10      ${report['ndcg@10'].toFixed(4)}`);
console.log(`recall@100   ${report['recall@100'].toFixed(4)}`);
console.log(`MRR@10       ${report['mrr@10'].toFixed(4)}`);
console.log(`index time   ${report.index_ms} ms`);
console.log(`query p50    ${report.query_p50_ms} ms`);
const claims = await loadClaims(values.data);
const answers = claims && (await evaluateAnswers(indexed, claims));
if (answers) {
  console.log(`answers      ${answers.claims} claims: [1] cites a right document ${(answers['cite@1'] * 100).toFixed(1)} %, `
    + `any of 5 citations ${(answers['cite_any@5'] * 100).toFixed(1)} %, citation precision ${(answers.cite_precision * 100).toFixed(1)} %`);
}
if (values.json) console.log(JSON.stringify({ ...report, ...(answers ? { answer_claims: answers.claims, 'answer_cite@1': answers['cite@1'], 'answer_cite_any@5': answers['cite_any@5'], answer_cite_precision: answers.cite_precision } : {}) }));
