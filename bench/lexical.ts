/**
 * `npm run bench -- lexical`: the app's lexical index (segments of typed arrays and a live MiniSearch,
 * `src/index/lexical-index.ts`) against the design it replaced, one MiniSearch holding everything
 * (`MiniSearchLexical` below: the same tokenizer, stemmer, BM25 and score, its JSON snapshot), on the
 * same chunks in the same run, the two sides alternating over rounds. Per side: adding the chunks
 * document by document (as the library does), the memory the index retains (V8 heap plus array
 * buffers, after a full collection), query time p50/p95 at k = 20, the snapshot's size, the time to
 * write it, the time to load it and the memory once loaded. Ratios (segments ÷ MiniSearch) per round,
 * median and range. Every query's top 20 is compared between the sides (same chunks, scores within
 * 1e-9): the ranking is MiniSearch's. A third side, `segments_sliced`, merges as the library's worker
 * does: at most 30 ms of merging in an add, the rest in slices of 30 ms after it (its "longest add" is
 * the longest add or slice: how long a question can wait behind indexing).
 *
 * Sets: `100k`, about 100,000 generated chunks (bench/context.ts, the set the figures were
 * measured on), and `--chunks N` for another size (`500000`: the segments alone, MiniSearch would need
 * gigabytes).
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import MiniSearch from 'minisearch';
import { headedText, headerTitleOf } from '../src/core/doc-title.ts';
import { asChunkId } from '../src/core/ids.ts';
import { prepareAhead } from '../src/ingest/prepare-ahead.ts';
import { prepareDocument } from '../src/ingest/prepare-document.ts';
import { DEFAULT_LEXICAL_OPTIONS, LexicalIndex, type LexicalEntry } from '../src/index/lexical-index.ts';
import type { Hit } from '../src/index/search-index.ts';
import { topK } from '../src/index/top-k.ts';
import { processTerm, termsOf, tokenize } from '../src/text/tokenize.ts';
import { GEN_100K, QUERY_COUNT, type BenchContext } from './context.ts';
import { CorpusGenerator } from './corpus.ts';
import { QUERY_K, timeQueries } from './query.ts';
import { gc, isMain, MB, median, progress, round, stats } from './util.ts';

const ROUNDS = 3;

/** The lexical index before segments: one MiniSearch over every chunk, snapshot as MiniSearch's JSON. */
export class MiniSearchLexical {
  private ms = MiniSearchLexical.create();

  private static create() {
    return new MiniSearch<{ id: string; text: string }>({
      fields: ['text'],
      storeFields: [],
      // Each token made distinct by its position, so the field length counts every term (as the app's index did).
      tokenize: (text) => termsOf(text).map((t, i) => `${i}\u0000${t}`),
      processTerm: (t) => t.slice(t.indexOf('\u0000') + 1),
      searchOptions: { tokenize, processTerm },
      autoVacuum: false,
    });
  }

  add(entries: readonly LexicalEntry[]): void {
    this.ms.addAll(entries.map((e) => ({ id: e.chunkId, text: headedText(e.title, e.text) })));
  }

  get size(): number {
    return this.ms.documentCount;
  }

  searchNow(text: string, k: number): Hit[] {
    const { k1, b } = DEFAULT_LEXICAL_OPTIONS;
    const hits = this.ms.search(text, { combineWith: 'OR', prefix: false, fuzzy: false, bm25: { k: k1, b, d: 0 } }).map((r) => ({ chunkId: asChunkId(String(r.id)), score: r.score / Math.max(1, r.queryTerms.length) }));
    return topK(hits, k, (x, y) => y.score - x.score || (x.chunkId < y.chunkId ? -1 : x.chunkId > y.chunkId ? 1 : 0));
  }

  serialize(): string {
    return JSON.stringify(this.ms.toJSON());
  }

  static load(json: string): MiniSearchLexical {
    const index = new MiniSearchLexical();
    index.ms = MiniSearch.loadJSON(json, { fields: ['text'], storeFields: [], tokenize: (text) => termsOf(text).map((t, i) => `${i}\u0000${t}`), processTerm: (t) => t.slice(t.indexOf('\u0000') + 1), searchOptions: { tokenize, processTerm }, autoVacuum: false });
    return index;
  }
}

interface Side {
  name: 'segments' | 'segments_sliced' | 'minisearch';
  create(): { add(e: readonly LexicalEntry[]): void; searchNow(q: string, k: number): Hit[]; serialize(): string | Uint8Array; size: number; maintainFor?(ms: number): boolean };
  load(snapshot: string | Uint8Array): { searchNow(q: string, k: number): Hit[]; size: number };
}

/** The library's worker merges a slice at a time (`IndexKeeper`'s MERGE_SLICE_MS), the rest in tasks of their own. */
const MERGE_SLICE_MS = 30;

const SIDES: Side[] = [
  { name: 'segments', create: () => new LexicalIndex(), load: (s) => LexicalIndex.load(s) },
  {
    name: 'segments_sliced',
    create: () => Object.assign(new LexicalIndex(), { mergeSliceMs: MERGE_SLICE_MS }),
    load: (s) => LexicalIndex.load(s),
  },
  { name: 'minisearch', create: () => new MiniSearchLexical(), load: (s) => MiniSearchLexical.load(s as string) },
];

/** V8 heap plus array buffers (where typed arrays keep their bytes), after a full collection. */
function retained(): number {
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

interface Round {
  addMs: number;
  longestAddMs: number;
  heap: number;
  p50: number;
  p95: number;
  max: number;
  snapshotBytes: number;
  serializeMs: number;
  loadMs: number;
  loadedHeap: number;
  firstQueryMs: number;
  top: Hit[][];
}

/** Builds, queries and writes the snapshot of one side's index; the snapshot goes to a file, the index out of reach. */
function buildAndSave(side: Side, docs: readonly LexicalEntry[][], queries: readonly string[], compareTop: boolean, path: string) {
  const before = retained();
  const t0 = performance.now();
  const index = side.create();
  // The longest single add: a document's chunks, plus any segment write or merge it set off (questions wait
  // that long). Sliced: also each slice of merging that follows, as the worker runs them between questions.
  let longestAddMs = 0;
  for (const entries of docs) {
    const a0 = performance.now();
    index.add(entries);
    longestAddMs = Math.max(longestAddMs, performance.now() - a0);
    for (let done = false; index.maintainFor && !done; ) {
      const m0 = performance.now();
      done = index.maintainFor(MERGE_SLICE_MS);
      longestAddMs = Math.max(longestAddMs, performance.now() - m0);
    }
  }
  const addMs = performance.now() - t0;
  const heap = retained() - before;
  const times = timeQueries((q) => index.searchNow(q, QUERY_K), queries);
  const top = compareTop ? queries.map((q) => index.searchNow(q, QUERY_K)) : [];
  const s0 = performance.now();
  const snapshot = index.serialize();
  const serializeMs = performance.now() - s0;
  writeFileSync(path, snapshot);
  const snapshotBytes = typeof snapshot === 'string' ? Buffer.byteLength(snapshot) : snapshot.byteLength;
  return { addMs, longestAddMs, heap, p50: times.p50, p95: times.p95, max: times.max, snapshotBytes, serializeMs, top, size: index.size };
}

/** Loads the snapshot from its file as the store would hand it over (bytes or text); only the load is timed. */
function load(side: Side, path: string, query: string) {
  const data = side.name !== 'minisearch' ? new Uint8Array(readFileSync(path)) : readFileSync(path, 'utf8');
  const l0 = performance.now();
  const index = side.load(data);
  const loadMs = performance.now() - l0;
  const q0 = performance.now();
  index.searchNow(query, QUERY_K);
  return { index, loadMs, firstQueryMs: performance.now() - q0 };
}

function measure(side: Side, docs: readonly LexicalEntry[][], queries: readonly string[], compareTop: boolean): Round {
  const path = join(tmpdir(), `docqa-bench-lexical-${process.pid}`);
  try {
    const built = buildAndSave(side, docs, queries, compareTop, path);
    const beforeLoad = retained();
    const { index, loadMs, firstQueryMs } = load(side, path, queries[0]!);
    const loadedHeap = retained() - beforeLoad;
    if (index.size !== built.size) progress(`lexical: ${side.name} reloaded ${index.size} chunks, not ${built.size}`);
    return { ...built, loadMs, loadedHeap, firstQueryMs };
  } finally {
    rmSync(path, { force: true });
  }
}

/** The generated corpus's chunks as the library indexes them, one list per document. */
async function entriesOf(chunks: number): Promise<{ docs: LexicalEntry[][]; queries: string[]; total: number }> {
  progress(`lexical: generating about ${chunks} chunks (seed ${GEN_100K.seed})`);
  const gen = new CorpusGenerator({ seed: GEN_100K.seed, paragraphsPerDoc: GEN_100K.paragraphsPerDoc });
  const { docs: bench } = await gen.corpus(chunks);
  const queries = gen.questions(bench, QUERY_COUNT, GEN_100K.seed + 1);
  const docs: LexicalEntry[][] = [];
  let total = 0;
  for await (const prepared of prepareAhead(bench, (d) => prepareDocument({ name: d.name, folder: '', bytes: d.bytes, addedAt: 0 }))) {
    docs.push(prepared.chunks.map((c) => ({ chunkId: c.id, text: c.text, title: headerTitleOf(prepared.doc) })));
    total += prepared.chunks.length;
  }
  return { docs, queries, total };
}

export async function benchLexical(ctx: BenchContext, options: { chunks?: number } = {}): Promise<void> {
  const target = options.chunks ?? GEN_100K.targetChunks;
  const set = target === GEN_100K.targetChunks ? '100k' : `${Math.round(target / 1000)}k`;
  const { docs, queries, total } = await entriesOf(target);
  const sides = target > 200_000 ? SIDES.slice(0, 2) : SIDES;
  const rounds = new Map<string, Round[]>(sides.map((s) => [s.name, []]));
  for (let r = 0; r < ROUNDS; r++) {
    // Alternate which side goes first: the machine is shared and noisy.
    const order = r % 2 ? [...sides].reverse() : sides;
    for (const side of order) {
      progress(`lexical: ${side.name}, ${total} chunks, round ${r + 1} of ${ROUNDS}`);
      const m = measure(side, docs, queries, r === 0);
      rounds.get(side.name)!.push(m);
      progress(`lexical: ${side.name}: add ${Math.round(m.addMs)} ms (longest call ${Math.round(m.longestAddMs)} ms), ${round(m.heap / MB, 1)} MB, query p50 ${round(m.p50, 3)} ms p95 ${round(m.p95, 3)} ms, snapshot ${round(m.snapshotBytes / MB, 1)} MB written in ${Math.round(m.serializeMs)} ms, loaded in ${Math.round(m.loadMs)} ms (${round(m.loadedHeap / MB, 1)} MB)`);
    }
  }
  const figures: Record<string, number | string> = { [`lexical_chunks_${set}`]: total };
  for (const [name, list] of rounds) {
    const key = (what: string) => `lexical_${name}_${what}_${set}`;
    Object.assign(figures, stats(key('add_ms'), list.map((m) => m.addMs)));
    Object.assign(figures, stats(key('longest_add_ms'), list.map((m) => m.longestAddMs)));
    Object.assign(figures, stats(key('heap_mb'), list.map((m) => m.heap / MB), 1));
    Object.assign(figures, stats(key('query_p50_ms'), list.map((m) => m.p50), 3));
    Object.assign(figures, stats(key('query_p95_ms'), list.map((m) => m.p95), 3));
    Object.assign(figures, stats(key('query_max_ms'), list.map((m) => m.max), 3));
    Object.assign(figures, stats(key('snapshot_mb'), list.map((m) => m.snapshotBytes / MB), 1));
    Object.assign(figures, stats(key('serialize_ms'), list.map((m) => m.serializeMs)));
    Object.assign(figures, stats(key('load_ms'), list.map((m) => m.loadMs)));
    Object.assign(figures, stats(key('loaded_heap_mb'), list.map((m) => m.loadedHeap / MB), 1));
    Object.assign(figures, stats(key('first_query_after_load_ms'), list.map((m) => m.firstQueryMs), 2));
  }
  const seg = rounds.get('segments')!;
  const mini = rounds.get('minisearch');
  if (mini) {
    const ratio = (what: string, f: (m: Round) => number, digits = 2) =>
      Object.assign(figures, stats(`lexical_segments_vs_minisearch_${what}_${set}`, seg.map((m, i) => f(m) / f(mini[i]!)), digits));
    ratio('add', (m) => m.addMs);
    ratio('heap', (m) => m.heap);
    ratio('query_p50', (m) => m.p50);
    ratio('query_p95', (m) => m.p95);
    ratio('snapshot_bytes', (m) => m.snapshotBytes);
    ratio('load', (m) => m.loadMs, 3);
    // Same chunks, same order, same scores: the ranking is MiniSearch's.
    let differ = 0;
    let maxDiff = 0;
    seg[0]!.top.forEach((hits, q) => {
      const other = mini[0]!.top[q]!;
      if (hits.map((h) => h.chunkId).join() !== other.map((h) => h.chunkId).join()) differ++;
      hits.forEach((h, i) => (maxDiff = Math.max(maxDiff, Math.abs(h.score - (other[i]?.score ?? 0)) / Math.max(1, h.score))));
    });
    figures[`lexical_queries_ranked_differently_${set}`] = differ;
    figures[`lexical_max_relative_score_difference_${set}`] = maxDiff;
    if (differ) ctx.note(`lexical: ${differ} of ${queries.length} queries rank differently from MiniSearch at ${set}`);
  }
  figures[`lexical_query_count_${set}`] = queries.length;
  progress(`lexical: median add ${Math.round(median(seg.map((m) => m.addMs)))} ms`);
  ctx.record(figures);
}

if (isMain(import.meta.url)) {
  const { runOne } = await import('./report.ts');
  const at = process.argv.indexOf('--chunks');
  await runOne('lexical', (ctx) => benchLexical(ctx, { chunks: at > 0 ? Number(process.argv[at + 1]) : undefined }));
}
