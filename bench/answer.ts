/**
 * What a question costs before the model writes its first token, stage by stage, through the
 * app's own code over fixed data: SciFact's corpus indexed as the app indexes dropped files (the eval
 * CLI's `indexCollection`), asked its first QUERIES test queries (a generated corpus and questions when
 * SciFact is absent). Decoding is excluded, and so is the model's prefill of the prompt (part of a real
 * first token, but a property of the generator, measured by its own runtime).
 *
 * - **rewrite**: the follow-up rewritten into a standalone question by the app's `rewriteFollowUp`
 *   (prompt fitted in the tiny decoder's tokens, one JSON request, the reply parsed), the request
 *   answered by the scripted generator: the step's own cost, not a model's — with a model, the rewrite
 *   is a whole generation of its own (up to 128 tokens) and dominates.
 * - **retrieval**: BM25 over the index (the fused top 40, RRF over BM25 alone; hybrid adds one query
 *   embedding, measured by `npm run bench -- embed`), then the passages resolved from the hits
 *   (`retrievePassages`, k = 5, as the app asks).
 * - **rerank**: the top 40 read (title + chunk) and scored by a cross-encoder (`Reranker.score`, one
 *   batch of 40, onnxruntime-node CPU), then ordered: on the generated tiny cross-encoder and on one of
 *   ms-marco-MiniLM-L-6-v2's shape (random weights, as `bench/rerank.ts` makes it), each pair cut to
 *   PAIR_TOKENS (see there). Pairs/s here are over real chunks, so mostly at PAIR_TOKENS, longer than
 *   `bench rerank`'s 100-token passages.
 * - **prompt**: the LLM answerer's own path up to the generator's `stream` call (context within the
 *   budget, counted in the tiny decoder's tokenizer, with a 4,096-token window; then the messages),
 *   timed by a generator that records when it is asked to stream and writes nothing. The random
 *   rerankers' scores mean nothing, so no passage is dropped for its score here. The tiny tokenizer
 *   counts about twice the tokens a Qwen-style BPE would, so five SciFact passages overflow the budget
 *   and the context is trimmed sentence by sentence (each step counted again), where a real 4,096-token
 *   model would often keep them whole: read the prompt figure as an upper bound.
 *
 * Three variants per query — no rerank (the baseline), tiny rerank, MiniLM-shaped rerank — over ROUNDS
 * rounds whose variant order alternates; each round's figure is the median over the queries, and a
 * reported figure is the median of the rounds with their min and max. `pre_decode_ms_p50` is the
 * MiniLM-shaped variant (the app's default reranker); ratios compare each variant with no rerank in the
 * same run. Standalone: `npx tsx bench/answer.ts`; in the suite: `npm run bench -- answer`.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Passage } from '../src/core/types.ts';
import { loadBeir, type BeirCollection } from '../src/eval/beir.ts';
import { indexCollection, type IndexedCollection } from '../src/eval/evaluate.ts';
import type { GenerateRequest, Generator } from '../src/models/generator/generator.ts';
import { createLlmAnswerer } from '../src/generate/llm-answerer.ts';
import { rewriteFollowUp } from '../src/question/follow-up.ts';
import { ScriptedGenerator } from '../src/models/generator/scripted-generator.ts';
import { orderByRerank, rerankText } from '../src/rerank/rerank.ts';
import type { Reranker } from '../src/models/cross-encoder/reranker.ts';
import type { FusedHit } from '../src/retrieve/fuse.ts';
import { retrievePassages } from '../src/retrieve/retrieve.ts';
import { loadFolderGenerator } from '../tools/model-folder.ts';
import { localReranker } from '../src/models/catalogue.ts';
import { loadReranker } from '../src/models/cross-encoder/reranker.ts';
import { generateTinyModel, MINILM_SHAPE, writeTinyModels } from '../tools/models/tiny-models.ts';
import type { BenchContext } from './context.ts';
import { CorpusGenerator } from './corpus.ts';
import { isMain, median, percentile, progress, round, scifactDir } from './util.ts';

const ROUNDS = 3;
const QUERIES = 10;
const CANDIDATES = 40;
const PASSAGES = 5;
/**
 * Tokens a (question, passage) pair is cut to. The generated models share the tiny tokenizer, which
 * cuts SciFact text into a token per 2.0 characters, where MiniLM's WordPiece takes ~4.5: a 1,400-character
 * abstract is ~700 tiny tokens but ~310 of MiniLM's. At 320, the MiniLM-shaped model reads about as many
 * tokens as the real one would (as `bench/rerank.ts`'s 300-token passages do).
 */
const PAIR_TOKENS = 320;
/** The context window the prompt is built for (a small instruct model's), in the tiny decoder's tokens. */
const CONTEXT_TOKENS = 4096;
const VARIANTS = ['none', 'tiny', 'minilm'] as const;
type Variant = (typeof VARIANTS)[number];
type Stage = 'rewrite' | 'retrieval' | 'rerank' | 'prompt';
type Times = Record<Stage, number>;

/** SciFact in BEIR layout, or (without it) a generated corpus of about 5k chunks and questions that match it. */
export async function fixedData(ctx: BenchContext): Promise<{ collection: BeirCollection; queries: string[]; name: string }> {
  try {
    const collection = await loadBeir(scifactDir(), 'test');
    const queries = [...collection.qrels.keys()].map((id) => collection.queries.get(id)!).filter(Boolean);
    return { collection, queries: queries.slice(0, QUERIES), name: 'scifact' };
  } catch (err) {
    ctx.note(`answer: ${(err as Error).message.split('\n')[0]}; using a generated corpus (seed 8)`);
    const gen = new CorpusGenerator({ seed: 8, paragraphsPerDoc: 40 });
    const { docs } = await gen.corpus(5_000);
    const corpus = docs.map((d) => ({ id: d.name, title: d.title, text: d.text }));
    return { collection: { corpus, queries: new Map(), qrels: new Map() }, queries: gen.questions(docs, QUERIES, 9), name: 'generated' };
  }
}

/**
 * The rewrite step as the app runs it (`rewriteFollowUp`: the prompt fitted to the window in the decoder's
 * own tokens, one JSON request, the reply parsed), answered by the scripted generator: the question back,
 * as a model that finds it standalone would.
 */
async function rewrite(setup: Setup, previous: string, question: string): Promise<string> {
  const { counter, scripted } = setup;
  const generator: Generator = { model: { id: 'rewrite', label: 'Scripted rewrite', contextTokens: CONTEXT_TOKENS }, countTokens: (t) => counter.countTokens(t), stream: (r) => scripted.stream(r) };
  const turns = [{ question: previous, answer: 'An earlier answer, cited [1].' }];
  return (await rewriteFollowUp(question, turns, { generator })).standalone;
}

/** A generator that counts tokens with `counter` and records when it is asked to write (then writes nothing). */
function probeGenerator(counter: Generator, onStream: () => void): Generator {
  return {
    model: { id: 'probe', label: 'Prompt probe', contextTokens: CONTEXT_TOKENS },
    countTokens: (text) => counter.countTokens(text),
    // eslint-disable-next-line require-yield -- records the call, writes nothing
    async *stream(_request: GenerateRequest) {
      onStream();
    },
  };
}

interface Setup {
  indexed: IndexedCollection;
  rerankers: Record<Exclude<Variant, 'none'>, Reranker>;
  counter: Generator;
  scripted: Generator;
}

/** One question through every stage before decoding, with `variant`'s reranker (or none). */
async function ask(setup: Setup, variant: Variant, previous: string, question: string): Promise<Times> {
  const { indexed } = setup;
  const t0 = performance.now();
  const standalone = await rewrite(setup, previous, question);
  const t1 = performance.now();
  const query = { text: standalone };
  const fused = await indexed.search(query, CANDIDATES);
  const t2 = performance.now();
  let hits: FusedHit[] = fused;
  if (variant !== 'none') {
    const candidates = fused.slice(0, CANDIDATES);
    const ids = candidates.map((h) => h.chunkId);
    const texts = (await indexed.source.getChunks(ids)).map((c, i) => rerankText(indexed.owners.titleOf(ids[i]!), c?.text ?? ''));
    hits = orderByRerank(candidates, await setup.rerankers[variant].score(standalone, texts, { batchSize: CANDIDATES }));
  }
  const t3 = performance.now();
  const passages: Passage[] = await retrievePassages(async () => hits, indexed.source, query, { k: PASSAGES, retrievers: indexed.retrievers });
  const t4 = performance.now();
  let streamAt: number | undefined;
  const answerer = createLlmAnswerer({ generator: probeGenerator(setup.counter, () => (streamAt ??= performance.now())), minRerankScore: -Infinity });
  await answerer.answer(standalone, passages, indexed.lexical);
  const t5 = streamAt ?? performance.now();
  return { rewrite: t1 - t0, retrieval: t2 - t1 + (t4 - t3), rerank: t3 - t2, prompt: t5 - t4 };
}

/** Per round and variant: the queries' median of each stage and of their sum, and rerank pairs/s. */
interface RoundFigures {
  stages: Times;
  preDecode: number;
  pairsPerS: number;
}

async function runRound(setup: Setup, variant: Variant, queries: readonly string[]): Promise<RoundFigures> {
  const all: Times[] = [];
  for (const [i, q] of queries.entries()) all.push(await ask(setup, variant, queries[(i + queries.length - 1) % queries.length]!, q));
  const p50 = (f: (t: Times) => number) => percentile(all.map(f), 50);
  const rerankMs = all.reduce((s, t) => s + t.rerank, 0);
  return {
    stages: { rewrite: p50((t) => t.rewrite), retrieval: p50((t) => t.retrieval), rerank: p50((t) => t.rerank), prompt: p50((t) => t.prompt) },
    preDecode: p50((t) => t.rewrite + t.retrieval + t.rerank + t.prompt),
    pairsPerS: variant === 'none' ? 0 : (all.length * CANDIDATES) / (rerankMs / 1000),
  };
}

/** Median of the rounds, with min and max, under `key`. */
function record(ctx: BenchContext, key: string, values: number[], digits = 2): void {
  ctx.record({ [key]: round(median(values), digits), [`${key}_min`]: round(Math.min(...values), digits), [`${key}_max`]: round(Math.max(...values), digits) });
}

async function generateModels(root: string): Promise<void> {
  await writeTinyModels(root);
  for (const [path, bytes] of generateTinyModel('tiny-cross-encoder', MINILM_SHAPE)) {
    const file = join(root, 'minilm-cross-encoder', path);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, bytes);
  }
}

function report(ctx: BenchContext, rounds: Record<Variant, RoundFigures[]>): void {
  const of = (v: Variant, f: (r: RoundFigures) => number) => rounds[v].map(f);
  record(ctx, 'answer_rewrite_ms_p50', of('none', (r) => r.stages.rewrite), 3);
  record(ctx, 'answer_retrieval_ms_p50', of('none', (r) => r.stages.retrieval), 3);
  for (const v of ['tiny', 'minilm'] as const) record(ctx, `answer_rerank_ms_p50_${v}`, of(v, (r) => r.stages.rerank), 1);
  for (const v of VARIANTS) record(ctx, `answer_prompt_ms_p50_${v}`, of(v, (r) => r.stages.prompt), 3);
  record(ctx, 'pre_decode_ms_p50', of('minilm', (r) => r.preDecode), 1);
  record(ctx, 'pre_decode_ms_p50_tiny', of('tiny', (r) => r.preDecode), 2);
  record(ctx, 'pre_decode_ms_p50_no_rerank', of('none', (r) => r.preDecode), 2);
  const base = median(of('none', (r) => r.preDecode));
  ctx.record({
    pre_decode_ratio_minilm_vs_no_rerank: round(median(of('minilm', (r) => r.preDecode)) / base, 2),
    pre_decode_ratio_tiny_vs_no_rerank: round(median(of('tiny', (r) => r.preDecode)) / base, 2),
  });
  for (const v of ['tiny', 'minilm'] as const) {
    record(ctx, `answer_rerank_pairs_per_s_${v}`, of(v, (r) => r.pairsPerS), 1);
    // The keys `npm run bench -- rerank` also writes (over 100-token passages): that run's figures win.
    if (!(`rerank_pairs_per_s_${v}` in ctx.figures)) ctx.record({ [`rerank_pairs_per_s_${v}`]: round(median(of(v, (r) => r.pairsPerS)), 1) });
  }
}

export async function benchAnswer(ctx: BenchContext): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'bench-answer-'));
  const disposers: Array<() => Promise<void>> = [];
  try {
    const { collection, queries, name } = await fixedData(ctx);
    progress(`answer: indexing ${name} (${collection.corpus.length} documents)`);
    const indexed = await indexCollection(collection);
    await generateModels(root);
    progress(`answer: ${indexed.owners.size} chunks indexed; models generated`);
    const counter = await loadFolderGenerator(join(root, 'tiny-decoder'), CONTEXT_TOKENS);
    const rerankerIn = (folder: string) => loadReranker(localReranker({ folder, maxTokens: PAIR_TOKENS }), { source: { kind: 'folder', root } });
    const tiny = await rerankerIn('tiny-cross-encoder');
    const minilm = await rerankerIn('minilm-cross-encoder');
    disposers.push(() => counter.dispose(), () => tiny.dispose(), () => minilm.dispose());
    const scripted = new ScriptedGenerator((messages) => [JSON.stringify({ question: messages.at(-1)!.content.split('Last question: ')[1] ?? '' })]);
    const setup: Setup = { indexed, rerankers: { tiny, minilm }, counter, scripted };
    ctx.record({ answer_queries: queries.length, answer_rounds: ROUNDS, answer_chunks: indexed.owners.size, answer_candidates: CANDIDATES });
    if (name !== 'scifact') ctx.note('answer: figures are over the generated corpus, not SciFact');
    for (const v of VARIANTS) await runRound(setup, v, queries.slice(0, 1)); // warm-up
    progress('answer: warmed up');
    const rounds: Record<Variant, RoundFigures[]> = { none: [], tiny: [], minilm: [] };
    for (let r = 0; r < ROUNDS; r++) {
      // Alternating the order, so no variant always runs on a warmer (or busier) machine.
      for (const v of r % 2 ? [...VARIANTS].reverse() : VARIANTS) rounds[v].push(await runRound(setup, v, queries));
      progress(`answer round ${r + 1}/${ROUNDS}: pre-decode p50 ${VARIANTS.map((v) => `${v} ${round(rounds[v].at(-1)!.preDecode, 1)} ms`).join(', ')}`);
    }
    report(ctx, rounds);
  } finally {
    for (const dispose of disposers) await dispose();
    await rm(root, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) {
  const { runOne } = await import('./report.ts');
  await runOne('answer', benchAnswer);
}
