/**
 * Evaluation CLI: `npm run eval -- --data <BEIR dir> [--split test] [--mode bm25|dense|hybrid|rerank]
 * [--model <model folder> [--dtype q8|fp32]] [--reranker <cross-encoder folder>] [--unanswerable <queries.jsonl>] [--json]`.
 * Uses the app's own ingest, index, embedding, retrieval, reranking and answer code with default settings. `dense`,
 * `hybrid` and `rerank` embed every chunk with the transformers.js model folder given (`npm run fixtures:models`
 * writes tiny ones); hybrid fuses BM25 and dense with Reciprocal Rank Fusion, as the app does; rerank
 * fuses them too, then reranks the fused top 40 with the cross-encoder folder given by `--reranker`
 * (which also reranks any other mode's list when given). When the collection
 * has SciFact's `claims_dev.jsonl`, it also checks that answers cite the documents each claim comes from
 * and quote its rationale sentences. `--unanswerable` asks another collection's questions (any BEIR-style
 * `queries.jsonl`) and counts how often the answer is "Not found in your documents.". With `--model`
 * (outside bm25 mode) both answer by meaning, as the app does once an embedding model is chosen
 * (`generate/encoder-answer.ts`); without, the extractive answer by words.
 *
 * `--answers [--generator extractive|quote|restate|<model folder>] [--limit N] [--max-tokens N] [--context-tokens N]`
 * evaluates answers instead, with any answerer (`tools/eval-answers.ts`): the claims of
 * `claims_dev.jsonl` that have evidence documents (the first N with `--limit`), asked as the question
 * text; the figures say how often the answer's Sources include the claim's evidence document and what
 * the citation checker made of the sentences written, with the time per answer.
 *
 * `--steps --generator <folder>|<file.gguf> [--limit N]` runs the model steps that serve retrieval (follow-up
 * rewriting, query expansion, filters, the multi-hop judge) on the first N queries and counts the replies
 * their parsers cannot use (`tools/eval-steps.ts`); a `.gguf` file runs in Chromium on llama.cpp.
 *
 * `--questions <set.json> --docs <folder> [--model <folder>]` asks a question set over real documents
 * instead (`tools/eval-questions.ts`): answered, fact quoted and "Not found" rates.
 */
import { parseArgs } from 'node:util';
import { loadBeir, loadClaims, loadQueryTexts } from '../src/eval/beir.ts';
import { evaluateAnswers, evaluateNotFound } from '../src/eval/evaluate-answers.ts';
import { EVAL_MODES, evaluateRetrieval, FLAT_VECTOR_INDEX, indexCollection, withMode, type EvalMode, type EvalReport, type EvalSettings } from '../src/eval/evaluate.ts';
import { cachingEmbedder, modelCacheKey } from './vector-cache.ts';
import { fusionGrid, sweepFusion } from '../src/eval/fusion-sweep.ts';
import { VoyIndex } from '../src/index/voy-index.ts';
import { loadVoy } from './voy-node.ts';
import { loadFolderEmbedder, loadFolderReranker, weightsOfFolder } from './model-folder.ts';
import { chooseAnswerer, chooseGenerator, positiveInt, runAnswerEval, type AnswerEvalArgs } from './eval-answers.ts';
import { evaluateSteps, STEPS } from './eval-steps.ts';
import { runQuestionEval } from './eval-questions.ts';
import { extractiveAnswerer } from '../src/generate/answerer.ts';
import { createEncoderAnswerer } from '../src/generate/encoder-answer.ts';

const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    split: { type: 'string', default: 'test' },
    unanswerable: { type: 'string' },
    mode: { type: 'string' },
    model: { type: 'string' },
    dtype: { type: 'string' },
    'query-prefix': { type: 'string' },
    reranker: { type: 'string' },
    'vector-index': { type: 'string', default: 'flat' },
    json: { type: 'boolean', default: false },
    'no-cache': { type: 'boolean', default: false },
    'tune-fusion': { type: 'boolean', default: false },
    answers: { type: 'boolean', default: false },
    steps: { type: 'boolean', default: false },
    unconstrained: { type: 'boolean', default: false },
    generator: { type: 'string' },
    limit: { type: 'string' },
    'max-tokens': { type: 'string' },
    'context-tokens': { type: 'string' },
    questions: { type: 'string' },
    docs: { type: 'string' },
    conversation: { type: 'boolean', default: false },
  },
});
if (values.questions || values.docs) {
  // A question set over real documents instead of a BEIR collection (tools/eval-questions.ts).
  if (!values.questions || !values.docs || (values.dtype !== undefined && values.dtype !== 'q8' && values.dtype !== 'fp32')) {
    console.error('usage: npm run eval -- --questions <set.json> --docs <folder> [--model <model folder> [--dtype q8|fp32]] [--conversation] [--json] [--no-cache]');
    process.exit(2);
  }
  await runQuestionEval({ questions: values.questions, docs: values.docs, model: values.model, dtype: values.dtype as 'q8' | 'fp32' | undefined, json: values.json, noCache: values['no-cache'], conversation: values.conversation });
  process.exit(0);
}
/** Columns padded to their widest cell, the first left-aligned and the rest right-aligned. */
function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return [head, ...rows].map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')).join('\n');
}
/** voy-search's index behind the same contract (`--vector-index voy`), to compare with the flat default. */
const voyVectorIndex = (voy: Awaited<ReturnType<typeof loadVoy>>): EvalSettings['vectorIndex'] => ({ name: 'voy', create: (model, dims) => new VoyIndex(voy, model, dims) });

// With a model and no --mode, every mode over one embedding; without a model, BM25.
const mode = (values.mode ?? (values.model ? 'all' : 'bm25')) as EvalMode | 'all';
const modeOk = mode === 'all' || EVAL_MODES.includes(mode);
if (!values.data || !modeOk || (mode !== 'bm25' && !values.model) || (mode === 'rerank' && !values.reranker)) {
  console.error('usage: npm run eval -- --data <dir in BEIR layout> [--split test] [--mode all|bm25|dense|hybrid|rerank] [--model <model folder> [--dtype q8|fp32] [--query-prefix <text>]] [--reranker <cross-encoder folder>] [--unanswerable <queries.jsonl>] [--json] [--no-cache] [--tune-fusion]');
  console.error('       with --model and no --mode, every mode (bm25, dense, hybrid; rerank with --reranker) over one embedding; vectors are cached by model and text unless --no-cache');
  console.error('       all, dense, hybrid and rerank need --model: a transformers.js model folder (config.json, tokenizer.json, onnx/)');
  console.error('       rerank needs --reranker: a cross-encoder folder (one-label sequence classification); with another mode, --reranker reranks its top 40');
  console.error('       --answers [--generator extractive|quote|restate|<model folder>|<file.gguf>] [--limit N] [--max-tokens N] [--context-tokens N]: evaluate answers over claims_dev.jsonl');
  console.error('       --steps --generator <model folder>|<file.gguf> [--limit N]: the JSON steps (rewrite, expansion, filters, judge) on the first N queries (default 20), unusable replies counted');
  process.exit(2);
}
const answerFlags = ['generator', 'limit', 'max-tokens', 'context-tokens'] as const;
if (values.steps) {
  // The JSON steps on a real model's replies (tools/eval-steps.ts), then stop.
  if (!values.data || !values.generator) {
    console.error('usage: npm run eval -- --data <BEIR dir> --steps --generator <model folder>|<file.gguf> [--limit N] [--context-tokens N] [--unconstrained] [--json]');
    process.exit(2);
  }
  const stepCollection = await loadBeir(values.data, values.split);
  const chosenGenerator = await chooseGenerator(values.generator, positiveInt('--context-tokens', values['context-tokens']));
  try {
    const stepIndexed = await indexCollection(stepCollection, { mode: 'bm25' });
    const stepQuestions = [...stepCollection.qrels.keys()].map((id) => stepCollection.queries.get(id)!).filter(Boolean).slice(0, positiveInt('--limit', values.limit) ?? 20);
    const r = await evaluateSteps(stepIndexed, stepQuestions, chosenGenerator.generator, { ...(chosenGenerator.timings ? { timings: chosenGenerator.timings } : {}), unconstrained: values.unconstrained });
    const pctOf = (x: number) => `${(x * 100).toFixed(1)} %`;
    console.log(`steps        ${r.generator}${r.constrained ? '' : ' (unconstrained)'}: ${r.questions} questions, unusable replies ${pctOf(r.unusable_reply_rate)} in all`);
    for (const step of STEPS) {
      const f = r.steps[step];
      const timing = f.first_piece_ms_p50 === undefined ? '' : `; first piece p50 ${f.first_piece_ms_p50} ms, ${f.pieces_per_s_p50} pieces/s`;
      console.log(`  ${step.padEnd(10)} unusable ${pctOf(f.unusable_reply_rate)} (${f.unusable} of ${f.replies})${timing}`);
    }
    if (values.json) console.log(JSON.stringify(r));
  } finally {
    await chosenGenerator.dispose();
  }
  process.exit(0);
}
if (!values.answers && answerFlags.some((f) => values[f] !== undefined)) {
  console.error(`--${answerFlags.filter((f) => values[f] !== undefined).join(', --')} need --answers (the answer evaluation)`);
  process.exit(2);
}
let answerArgs: AnswerEvalArgs | undefined;
try {
  answerArgs = values.answers
    ? { generator: values.generator, limit: positiveInt('--limit', values.limit), maxTokens: positiveInt('--max-tokens', values['max-tokens']), contextTokens: positiveInt('--context-tokens', values['context-tokens']) }
    : undefined;
} catch (err) {
  console.error((err as Error).message);
  process.exit(2);
}
const collection = await loadBeir(values.data, values.split);
const claims = await loadClaims(values.data);
if (answerArgs && !claims) {
  console.error(`--answers needs claims: ${values.data} has no claims_dev.jsonl`);
  process.exit(2);
}
// Loaded before indexing, so a wrong model folder fails at once.
const chosen = answerArgs && (await chooseAnswerer(answerArgs));
if (values.dtype !== undefined && values.dtype !== 'q8' && values.dtype !== 'fp32') {
  console.error('--dtype is q8 (onnx/model_quantized.onnx) or fp32 (onnx/model.onnx); without it, fp32 when the folder has it');
  process.exit(2);
}
const folderEmbedder = values.model && mode !== 'bm25' ? await loadFolderEmbedder(values.model, 32, values.dtype, values['query-prefix']) : undefined;
const cacheKey = folderEmbedder && !values['no-cache'] ? modelCacheKey(folderEmbedder.model, weightsOfFolder(values.model!, folderEmbedder.model.dtype)) : undefined;
const embedder = folderEmbedder && cachingEmbedder(folderEmbedder, cacheKey);
const reranker = values.reranker ? await loadFolderReranker(values.reranker) : undefined;
if (!['flat', 'voy'].includes(values['vector-index'] ?? 'flat')) {
  console.error("--vector-index is flat (the app's default) or voy");
  process.exit(2);
}
const vectorIndex = values['vector-index'] === 'voy' ? voyVectorIndex(await loadVoy()) : FLAT_VECTOR_INDEX;
const modes: EvalMode[] = mode === 'all' ? (['bm25', 'dense', 'hybrid', ...(reranker ? ['rerank' as const] : [])] as EvalMode[]) : [mode];
// Indexed once in the last mode (the fullest); the other modes search the same indexes.
const indexed = await indexCollection(collection, { mode: modes.at(-1)!, vectorIndex }, embedder, reranker);
if (values['tune-fusion']) {
  // Chooses RRF's k and the dense list's weight on this split (use --split train), then stops.
  const swept = await sweepFusion(collection, indexed, fusionGrid([1, 5, 10, 20, 30, 40, 60, 80, 100, 150], [0.5, 0.75, 1, 1.25, 1.5, 2, 3]));
  console.log(`fusion sweep on ${values.data} (${values.split}), nDCG@10, best first:`);
  console.log(table(['RRF k', 'dense weight', 'nDCG@10'], swept.slice(0, 15).map((r) => [String(r.k), String(r.denseWeight), r['ndcg@10'].toFixed(4)])));
  if (values.json) console.log(JSON.stringify({ split: values.split, best: swept[0], sweep: swept }));
  process.exit(0);
}
const reports: EvalReport[] = [];
for (const m of modes) reports.push(await evaluateRetrieval(collection, withMode(indexed, m)));
const report = reports.at(-1)!;
const cacheNote = embedder ? `; ${embedder.embedded} texts embedded, ${embedder.reused} read from the vector cache` : '';
console.log(`collection   ${values.data} (${values.split}): ${report.documents} documents, ${report.chunks} chunks, ${report.queries} queries`);
console.log(`model        ${report.model || '(none)'}${report.model ? ` (embedding took ${report.embed_ms} ms${cacheNote})` : ''}${report.reranker ? `; fused top 40 reranked by ${report.reranker}` : ''}`);
console.log(`skipped      ${report.skipped} empty records (no title, no text)`);
console.log(`index time   ${report.index_ms} ms`);
console.log(table(['mode', 'nDCG@10', 'recall@10', 'recall@100', 'MRR@10', 'query p50 ms'], reports.map((r) => [r.mode, r['ndcg@10'].toFixed(4), r['recall@10'].toFixed(4), r['recall@100'].toFixed(4), r['mrr@10'].toFixed(4), String(r.query_p50_ms)])));
// --answers replaces the extractive answer figures below with those of the answerer chosen.
const generated = answerArgs && claims ? await runAnswerEval(indexed, claims, collection.corpus, answerArgs, chosen) : undefined;
// With a model the answer quotes by meaning, as the app's does once an embedding model is chosen; its
// sentences embedded by the model, one call per question as in the app, never from the vector cache
// (the 8-bit model's vectors move with their batch mates: see tools/eval-questions.ts).
const defaultAnswerer = folderEmbedder && indexed.mode !== 'bm25' ? createEncoderAnswerer(folderEmbedder) : extractiveAnswerer;
const answers = claims && !answerArgs ? await evaluateAnswers(indexed, claims, collection.corpus, defaultAnswerer) : undefined;
const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
if (answers) {
  console.log(`answer       ${defaultAnswerer === extractiveAnswerer ? 'extractive (by words)' : `by meaning (${embedder!.model.id})`}`);
  console.log(`answers      ${answers.claims} claims: answered ${pct(answers.answered_rate)} (${answers.sentences_per_answer} sentences each), `
    + `[1] cites a right document ${pct(answers['cite@1'])} (${pct(answers['cite@1_answered'])} of answers), any citation ${pct(answers.cite_any)}, citation precision ${pct(answers.cite_precision)}`);
  console.log(`evidence     ${pct(answers.evidence_sentence_rate)} of quoted sentences are rationale sentences (${answers.evidence_claims} answered claims with rationales)`);
}
const unanswerable = values.unanswerable ? await evaluateNotFound(indexed, await loadQueryTexts(values.unanswerable), defaultAnswerer) : undefined;
if (unanswerable) console.log(`not found    ${pct(unanswerable.not_found_rate)} of ${unanswerable.questions} questions from ${values.unanswerable}`);
if (values.json) {
  const answerFigures = answers && {
    answer_claims: answers.claims,
    answered_rate: answers.answered_rate,
    'answer_cite@1': answers['cite@1'],
    'answer_cite@1_answered': answers['cite@1_answered'],
    answer_cite_any: answers.cite_any,
    answer_cite_precision: answers.cite_precision,
    sentences_per_answer: answers.sentences_per_answer,
    evidence_claims: answers.evidence_claims,
    evidence_sentence_rate: answers.evidence_sentence_rate,
    answer: defaultAnswerer === extractiveAnswerer ? 'extractive' : 'encoder',
  };
  const notFoundFigures = unanswerable && { unanswerable_questions: unanswerable.questions, not_found_rate: unanswerable.not_found_rate };
  const byMode = Object.fromEntries(reports.map((r) => [r.mode, { 'ndcg@10': r['ndcg@10'], 'recall@10': r['recall@10'], 'recall@100': r['recall@100'], 'mrr@10': r['mrr@10'], query_p50_ms: r.query_p50_ms }]));
  const cache = { embedded_texts: embedder?.embedded ?? 0, cached_texts: embedder?.reused ?? 0 };
  console.log(JSON.stringify({ ...report, modes: byMode, ...cache, ...answerFigures, ...generated, ...notFoundFigures }));
}
