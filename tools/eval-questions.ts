/**
 * `npm run eval -- --questions <set.json> --docs <folder> [--model <folder> [--dtype q8|fp32]] [--conversation] [--json] [--no-cache]`:
 * a question set over real documents (`src/eval/real-questions.ts`). Every file the app reads under the
 * set's folders (inside `--docs`; only the set's `extensions` when it names some) is ingested with the app's own ingest path, as a
 * person dropping those folders would; each question is asked through the app's retrieval (BM25, or
 * with `--model` hybrid BM25 + dense as the app searches once a model is chosen) and its answer (the
 * extractive answer, or with `--model` the answer by meaning, `generate/encoder-answer.ts`); the
 * figures say how many answerable questions were answered, how many quote the expected fact, and how
 * many unanswerable ones were answered "Not found in your documents.". `--conversation` asks them all in
 * one conversation, each rewritten by the follow-up rule against the one before (no model), to show that
 * the rule leaves questions that stand on their own as they are.
 *
 * For Debian's manuals (`tests/fixtures/real-questions/debian-manuals.json`): `apt-get download` the
 * set's `packages` and `dpkg -x` each into one folder (`bench/real-texts.ts` does it into
 * ~/.cache/docqa-texts/root), then pass that folder as `--docs`.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { extractiveAnswerer, type Answerer } from '../src/generate/answerer.ts';
import { createEncoderAnswerer } from '../src/generate/encoder-answer.ts';
import { rewriteByRule } from '../src/question/follow-up.ts';
import { indexFiles, type EvalFile } from '../src/eval/evaluate.ts';
import { evaluateQuestions, parseQuestionSet, type QuestionReport } from '../src/eval/real-questions.ts';
import { detectType, isSystemFile } from '../src/ingest/file-kinds.ts';
import { loadFolderEmbedder, weightsOfFolder } from './model-folder.ts';
import { cachingEmbedder, modelCacheKey } from './vector-cache.ts';

export interface QuestionEvalArgs {
  questions: string;
  docs: string;
  model?: string;
  dtype?: 'q8' | 'fp32';
  json?: boolean;
  noCache?: boolean;
  /** Asks every question in one conversation, follow-ups rewritten by the rule (no model), as a person trying the app might. */
  conversation?: boolean;
}

/**
 * The files under `folders` (inside `root`) the app can read, each named by its path under `root`, in path
 * order; with `extensions`, only files ending so. System files (hidden ones) are left out, as a drop leaves them.
 */
export async function filesUnder(root: string, folders: readonly string[], extensions: readonly string[]): Promise<EvalFile[]> {
  const files: EvalFile[] = [];
  for (const folder of folders) {
    const entries = await readdir(join(root, folder), { recursive: true, withFileTypes: true });
    for (const e of entries) {
      const path = relative(root, join(e.parentPath, e.name));
      const ext = e.name.split('.').pop()!.toLowerCase();
      if (!e.isFile() || !detectType(e.name) || isSystemFile(path) || (extensions.length > 0 && !extensions.includes(ext))) continue;
      const dir = relative(root, e.parentPath);
      files.push({ id: path, name: e.name, folder: dir, bytes: new Uint8Array(await readFile(join(e.parentPath, e.name))) });
    }
  }
  return files.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;

/** One line per question: what was asked, what came back. */
function printOutcomes(report: QuestionReport): void {
  for (const o of report.outcomes) {
    const mark = o.answerable ? (o.factQuoted ? 'fact' : o.answered ? 'miss' : 'NONE') : o.answered ? 'ANSW' : 'none';
    const rank = o.answerable ? (o.documentRank ? `#${o.documentRank}` : '--') : '  ';
    // A miss with the right document among the passages is quoted whole: what to read to see why.
    const shown = mark === 'miss' && o.documentRank ? 2000 : 240;
    const words = o.quoted.split(/\s+/u).filter(Boolean).length;
    console.log(`${mark} ${rank}  ${o.id}: ${o.question}${o.quoted ? `\n             → (${words} words) ${o.quoted.replace(/\s+/g, ' ').slice(0, shown)}` : ''}`);
  }
}

/** Runs the question set and prints its figures (and the JSON line with `--json`). */
export async function runQuestionEval(args: QuestionEvalArgs): Promise<QuestionReport> {
  const set = parseQuestionSet(await readFile(args.questions, 'utf8'), args.questions);
  const folderEmbedder = args.model ? await loadFolderEmbedder(args.model, 32, args.dtype) : undefined;
  const key = folderEmbedder && !args.noCache ? modelCacheKey(folderEmbedder.model, weightsOfFolder(args.model!, folderEmbedder.model.dtype)) : undefined;
  const embedder = folderEmbedder && cachingEmbedder(folderEmbedder, key);
  const files = await filesUnder(args.docs, set.folders, set.extensions);
  const known = new Set(files.map((f) => f.id));
  const missing = set.answerable.filter((q) => !known.has(q.document));
  if (missing.length) throw new Error(`${args.docs}: no ${missing.map((q) => q.document).join(', ')}; unpack the set's packages there first (see tools/eval-questions.ts)`);
  process.stderr.write(`questions: indexing ${files.length} files${embedder ? ' (and embedding their chunks)' : ''}\n`);
  const indexed = await indexFiles(files, { mode: embedder ? 'hybrid' : 'bm25' }, embedder);
  // With a model the answer quotes by meaning, as the app's does once an embedding model is chosen. Its
  // sentences are embedded by the model itself, as the app embeds them, one call per question: the 8-bit
  // model's vectors move with their batch mates (the similarity by up to 0.015), so vectors cached from
  // other batches gave answers the app would not (fact quoted 65.1 % against 67.4 %).
  const answerer: Answerer = folderEmbedder ? createEncoderAnswerer(folderEmbedder) : extractiveAnswerer;
  const report = await evaluateQuestions(indexed, set, answerer, args.conversation ? { followUp: rewriteByRule } : {});
  printOutcomes(report);
  if (args.conversation) console.log('conversation every question asked in one conversation, follow-ups rewritten by the rule');
  console.log(`library      ${files.length - indexed.skipped} documents (${indexed.skipped} refused), ${indexed.owners.size} chunks; search ${indexed.mode}${embedder ? ` with ${embedder.model.id}` : ''}`);
  console.log(`answerable   ${report.answerable}: answered ${pct(report.answered_rate)}, fact quoted ${pct(report.fact_quoted_rate)}, document among the 5 passages ${pct(report.document_retrieved_rate)}, median ${report.quoted_words_median} words quoted`);
  console.log(`unanswerable ${report.unanswerable}: "Not found" ${pct(report.not_found_rate)}`);
  if (args.json) {
    const { outcomes, ...figures } = report;
    const answer = embedder ? 'encoder' : 'extractive';
    console.log(JSON.stringify({ questions: args.questions, mode: indexed.mode, model: embedder?.model.id ?? '', answer, conversation: Boolean(args.conversation), ...figures, outcomes: outcomes.map(({ quoted: _quoted, ...o }) => o) }));
  }
  return report;
}
