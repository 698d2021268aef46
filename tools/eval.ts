/**
 * Evaluation CLI: `npm run eval -- --data <BEIR dir> [--split test] [--json]`.
 * Uses the app's own ingest and index code with default settings.
 */
import { parseArgs } from 'node:util';
import { loadBeir } from '../src/eval/beir.ts';
import { evaluateLexical } from '../src/eval/evaluate.ts';

const { values } = parseArgs({
  options: { data: { type: 'string' }, split: { type: 'string', default: 'test' }, json: { type: 'boolean', default: false } },
});
if (!values.data) {
  console.error('usage: npm run eval -- --data <dir in BEIR layout> [--split test] [--json]');
  process.exit(2);
}
const collection = await loadBeir(values.data, values.split);
const report = await evaluateLexical(collection);
console.log(`collection   ${values.data} (${values.split}): ${report.documents} documents, ${report.chunks} chunks, ${report.queries} queries`);
console.log(`nDCG@10      ${report['ndcg@10'].toFixed(4)}`);
console.log(`recall@100   ${report['recall@100'].toFixed(4)}`);
console.log(`MRR@10       ${report['mrr@10'].toFixed(4)}`);
console.log(`index time   ${report.index_ms} ms`);
console.log(`query p50    ${report.query_p50_ms} ms`);
if (values.json) console.log(JSON.stringify(report));
