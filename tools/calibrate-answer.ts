/**
 * `npx tsx tools/calibrate-answer.ts --scifact <BEIR dir> --docs <folder> --dev <set.json> [--model <folder> [--dtype q8|fp32]] [--claims N] [--json]`:
 * chooses the answer's relevance thresholds, the extractive answer's `minCoverage` (with `CONTEXT_SHARE`) and, with a model,
 * the encoder answer's `MIN_SIMILARITY` (with `LEXICAL_WEIGHT`; `src/eval/calibrate-answer.ts`), on questions none of the
 * reported figures use:
 *   answerable    SciFact's train claims (the first N with train judgments, default 300) asked of SciFact;
 *                 the calibration split's answerable questions (`--dev`, tests/fixtures/real-questions/debian-manuals-dev.json) asked of its manuals
 *   unanswerable  Python's FAQ question headings (from `--docs`, usr/share/doc/python3.11/html/faq) asked of SciFact;
 *                 the split's unanswerable questions and the same SciFact claims asked of the manuals
 * Retrieval as the eval's: BM25, or with `--model` hybrid BM25 + dense. Prints the best thresholds (each
 * group weighing the same) and writes nothing: the constants are set by hand from its output.
 * The figures reported (`npm run eval`: SciFact's test claims, the Debian FAQ, debian-manuals.json) are
 * never read here.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadBeir } from '../src/eval/beir.ts';
import { groupFigures, sweepThresholds, thresholdGrid, type CalibrationGroup, type GroupFigures } from '../src/eval/calibrate-answer.ts';
import { indexCollection, indexFiles } from '../src/eval/evaluate.ts';
import { faqQuestions } from '../src/eval/faq-questions.ts';
import { parseQuestionSet } from '../src/eval/real-questions.ts';
import { CONTEXT_SHARE } from '../src/generate/extractive-answer.ts';
import { LEXICAL_WEIGHT, MIN_SIMILARITY } from '../src/generate/encoder-answer.ts';
import { filesUnder } from './eval-questions.ts';
import { loadFolderEmbedder, weightsOfFolder } from './model-folder.ts';
import { cachingEmbedder, modelCacheKey } from './vector-cache.ts';

const { values } = parseArgs({
  options: {
    scifact: { type: 'string' },
    docs: { type: 'string' },
    dev: { type: 'string' },
    model: { type: 'string' },
    dtype: { type: 'string' },
    claims: { type: 'string', default: '300' },
    json: { type: 'boolean', default: false },
  },
});
if (!values.scifact || !values.docs || !values.dev || (values.dtype && values.dtype !== 'q8' && values.dtype !== 'fp32')) {
  console.error('usage: npx tsx tools/calibrate-answer.ts --scifact <BEIR dir> --docs <folder> --dev <set.json> [--model <folder> [--dtype q8|fp32]] [--claims N] [--json]');
  process.exit(2);
}
const folderEmbedder = values.model ? await loadFolderEmbedder(values.model, 32, values.dtype as 'q8' | 'fp32' | undefined) : undefined;
const embedder = folderEmbedder && cachingEmbedder(folderEmbedder, modelCacheKey(folderEmbedder.model, weightsOfFolder(values.model!, folderEmbedder.model.dtype)));
const mode = embedder ? 'hybrid' : 'bm25';

const train = await loadBeir(values.scifact, 'train');
const claims = [...train.qrels.keys()].map((id) => train.queries.get(id)).filter((q): q is string => Boolean(q)).slice(0, Number(values.claims));
const faqDir = join(values.docs, 'usr/share/doc/python3.11/html/faq');
const faqNames = (await readdir(faqDir)).filter((n) => n.endsWith('.html')).sort();
const pythonFaq = faqQuestions(await Promise.all(faqNames.map(async (name) => ({ name, bytes: new Uint8Array(await readFile(join(faqDir, name))) }))));
const dev = parseQuestionSet(await readFile(values.dev, 'utf8'), values.dev);

process.stderr.write(`calibrate: indexing SciFact (${mode})\n`);
const scifact = await indexCollection(train, { mode }, embedder);
process.stderr.write(`calibrate: indexing the manuals of ${values.dev} (${mode})\n`);
const manuals = await indexFiles(await filesUnder(values.docs, dev.folders, dev.extensions), { mode }, embedder);
const groups: CalibrationGroup[] = [
  { name: 'scifact-train-claims', answerable: true, questions: claims, indexed: scifact },
  { name: 'dev-answerable', answerable: true, questions: dev.answerable.map((q) => q.question), indexed: manuals },
  { name: 'python-faq@scifact', answerable: false, questions: pythonFaq, indexed: scifact },
  { name: 'dev-unanswerable', answerable: false, questions: dev.unanswerable.map((q) => q.question), indexed: manuals },
  { name: 'scifact-claims@manuals', answerable: false, questions: claims, indexed: manuals },
];
/** Context shares swept with minCoverage (CONTEXT_SHARE is one of them). */
const CONTEXT_SHARES = [0, 0.25, 0.5, 0.75, 1];
/** Lexical weights swept with MIN_SIMILARITY (LEXICAL_WEIGHT is one of them). */
const LEXICAL_WEIGHTS = [0, 0.05, 0.1, 0.15, 0.2, 0.3];
const figures: GroupFigures[] = [];
for (const g of groups) {
  process.stderr.write(`calibrate: ${g.name} (${g.questions.length} questions)\n`);
  // The sentences are embedded by the model itself, one call per question as in the app (never from the cache).
  figures.push(await groupFigures(g, folderEmbedder, CONTEXT_SHARES, LEXICAL_WEIGHTS));
}

/** Columns padded to their widest cell. */
function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return [head, ...rows].map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')).join('\n');
}
const pct = (x: number) => `${(x * 100).toFixed(1)}`;
function report(key: 'coverage' | 'similarity', grid: number[], current: number): ReturnType<typeof sweepThresholds> {
  const sweep = sweepThresholds(figures, key, grid);
  const rows = [...sweep.slice(0, 8), ...sweep.filter((r) => r.threshold === current)];
  console.log(`\n${key === 'coverage' ? 'minCoverage (no model; CONTEXT_SHARE ' + CONTEXT_SHARE + ')' : 'MIN_SIMILARITY (' + embedder!.model.id + ')'}: best first, then the current value ${current}`);
  console.log(table(['threshold', ...figures.map((f) => `${f.name} ${f.answerable ? 'answered' : 'not found'} %`), 'balanced %'], rows.map((r) => [String(r.threshold), ...figures.map((f) => pct(r.rates[f.name]!)), pct(r.balanced)])));
  return sweep;
}
const coverage = report('coverage', thresholdGrid(0.3, 0.8, 0.025), 0.5);
console.log('\nminCoverage at each context share: the best threshold, and 0.5');
const byShare = CONTEXT_SHARES.map((share) => {
  const sweep = sweepThresholds(figures, 'coverage', thresholdGrid(0.3, 0.8, 0.025), share);
  return { share, best: sweep[0]!, half: sweep.find((r) => r.threshold === 0.5)! };
});
console.log(table(['context share', 'best minCoverage', 'balanced %', 'balanced % at 0.5'], byShare.map((r) => [String(r.share), String(r.best.threshold), pct(r.best.balanced), pct(r.half.balanced)])));
const similarity = embedder ? report('similarity', thresholdGrid(0.5, 1.1, 0.01), MIN_SIMILARITY) : undefined;
const byWeight = embedder
  ? LEXICAL_WEIGHTS.map((weight) => {
      const sweep = sweepThresholds(figures, 'similarity', thresholdGrid(0.5, 1.1, 0.01), weight);
      return { weight, best: sweep[0]! };
    })
  : undefined;
if (byWeight) {
  console.log(`\nMIN_SIMILARITY at each lexical weight (LEXICAL_WEIGHT ${LEXICAL_WEIGHT}): the best threshold`);
  console.log(table(['lexical weight', 'best MIN_SIMILARITY', ...figures.map((f) => `${f.name} %`), 'balanced %'], byWeight.map((r) => [String(r.weight), String(r.best.threshold), ...figures.map((f) => pct(r.best.rates[f.name]!)), pct(r.best.balanced)])));
}
if (values.json) console.log(JSON.stringify({ mode, model: embedder?.model.id ?? '', groups: figures.map((f) => ({ name: f.name, answerable: f.answerable, questions: f.coverage.length })), coverage: coverage.slice(0, 5), byContextShare: byShare, similarity: similarity?.slice(0, 5), byLexicalWeight: byWeight }));
