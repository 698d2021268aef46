import type { ModelId } from '../core/ids.ts';
import { DEFAULT_CHUNK_OPTIONS, type ChunkOptions } from '../ingest/chunk.ts';
import { prepareAhead } from '../ingest/prepare-ahead.ts';
import { prepareDocument } from '../ingest/prepare-document.ts';
import { DEFAULT_LEXICAL_OPTIONS, type LexicalIndex, type LexicalOptions } from '../index/lexical-index.ts';
import type { ChunkOwners } from '../index/chunk-owners.ts';
import { IndexSet } from '../index/index-set.ts';
import { DenseIndex, type DenseRetriever } from '../index/dense-index.ts';
import type { ChunkEmbedder } from '../embed/chunk-embedder.ts';
import { hybridSearch, type HybridOptions, type RankedSearch, type Retriever } from '../retrieve/hybrid.ts';
import { rerankedSearch, type RerankedSearchOptions } from '../retrieve/reranked-search.ts';
import { rerankText } from '../rerank/rerank.ts';
import type { Reranker } from '../models/cross-encoder/reranker.ts';
import { beirDocToMarkdown, type BeirCollection, type BeirDoc } from './beir.ts';
import { MemorySource } from './memory-source.ts';
import { bestPerDocument, mrrAt, ndcgAt, percentile, recallAt } from './metrics.ts';
import { headedText, headerTitleOf } from '../core/doc-title.ts';
import { DocQaError } from '../core/errors.ts';
import type { PendingQuery } from '../index/search-index.ts';
import type { ChunkId } from '../core/ids.ts';

/**
 * Which retrievers answer: BM25 alone, the dense index alone, both fused with RRF, or both fused and
 * the fused top 40 reranked by a cross-encoder (`rerank`; any other mode is reranked too when a
 * reranker is given).
 */
export type EvalMode = 'bm25' | 'dense' | 'hybrid' | 'rerank';
export const EVAL_MODES: readonly EvalMode[] = ['bm25', 'dense', 'hybrid', 'rerank'];

export interface EvalReport {
  mode: EvalMode;
  /** The embedding model's id ('' in bm25 mode). */
  model: string;
  /** The cross-encoder's id ('' when nothing was reranked). */
  /** The dense index built ('flat', the app's, or 'voy'); '' without one. */
  vector_index: string;
  reranker: string;
  'ndcg@10': number;
  'recall@10': number;
  'recall@100': number;
  'mrr@10': number;
  index_ms: number;
  query_p50_ms: number;
  queries: number;
  /** Records indexed. */
  documents: number;
  /** Records skipped because their title and text are both empty (nothing a person could drop). */
  skipped: number;
  chunks: number;
  /** Time spent embedding chunks (included in index_ms; 0 in bm25 mode). */
  embed_ms: number;
}

export interface EvalSettings {
  chunk: ChunkOptions;
  lexical: LexicalOptions;
  mode: EvalMode;
  fusion: HybridOptions;
  /** With a reranker: how many fused hits it reads (default 40). */
  rerank: RerankedSearchOptions;
  /** The dense index to build: the app's flat index (default) or another behind the same contract (voy). */
  vectorIndex: { name: string; create(model: ModelId, dims: number): DenseRetriever };
}

export const FLAT_VECTOR_INDEX: EvalSettings['vectorIndex'] = { name: 'flat', create: (model, dims) => DenseIndex.create(model, dims) };

export const DEFAULT_EVAL_SETTINGS: EvalSettings = { chunk: DEFAULT_CHUNK_OPTIONS, lexical: DEFAULT_LEXICAL_OPTIONS, mode: 'bm25', fusion: {}, rerank: {}, vectorIndex: FLAT_VECTOR_INDEX };

/** A BEIR collection indexed with the app's own ingest and index, and readable as retrieval reads the store. */
export interface IndexedCollection {
  mode: EvalMode;
  owners: ChunkOwners;
  /** Always built: the answer's relevance rule reads its term statistics. */
  lexical: LexicalIndex;
  dense?: DenseRetriever;
  /** Name of the dense index kind built ('flat', 'voy'). */
  vectorIndex: string;
  /** The model that embedded the chunks (kept in bm25 mode too, so {@link withMode} can switch back); questions are embedded only outside bm25. */
  embedder?: ChunkEmbedder;
  /** The cross-encoder that reranks the fused hits, when one was given. */
  reranker?: Reranker;
  /** The mode's retrievers fused (then reranked, with a reranker), as the app searches. */
  search: RankedSearch;
  retrievers: string[];
  source: MemorySource;
  /** App document id → BEIR document id. */
  beirIdOf: Map<string, string>;
  indexMs: number;
  embedMs: number;
  /** Records with an empty title and text, or files the app refuses: not indexed (the app would leave them out too). */
  skipped: number;
}

/** Chunks embedded per call while indexing a collection. */
const EMBED_BATCH = 1024;
/** Pairs per call when reranking (all 40 candidates at once; see `npm run bench -- rerank`). */
const RERANK_BATCH = 40;

/** Whether a BEIR record has any text to index. */
export function isEmptyRecord(record: BeirDoc): boolean {
  return !record.title.trim() && !record.text.trim();
}

/**
 * Indexes every record as the Markdown file a person would drop (`# title` + text), skipping empty ones,
 * with the app's ingest, chunk ownership and indexes; `dense`, `hybrid` and `rerank` modes embed every
 * chunk with `embedder` (required there), as the app's background embedding does. With `reranker`
 * (required in `rerank` mode), the search reranks the fused top `settings.rerank.candidates` (default
 * 40): the cross-encoder reads each chunk after its document's title (`rerankText`); hits past the
 * candidates keep their fused order after them.
 */
export async function indexCollection(collection: BeirCollection, settings: Partial<EvalSettings> = {}, embedder?: ChunkEmbedder, reranker?: Reranker): Promise<IndexedCollection> {
  const encoder = new TextEncoder();
  const records = collection.corpus.filter((r) => !isEmptyRecord(r));
  const files = records.map((record): EvalFile => ({ id: record.id, name: `${record.id}.md`, folder: '', bytes: encoder.encode(beirDocToMarkdown(record)) }));
  const indexed = await indexFiles(files, settings, embedder, reranker);
  return { ...indexed, skipped: indexed.skipped + collection.corpus.length - records.length };
}

/** A file to index: its bytes, its name and folder as a person's drop gives them, and the id the eval knows it by. */
export interface EvalFile {
  id: string;
  name: string;
  /** Folder path inside the drop, '' when none (the document's path is `folder/name`). */
  folder: string;
  bytes: Uint8Array;
}

/**
 * Indexes files as the app does when they are dropped (parse, clean, chunk: `prepareDocument`; then the
 * indexes and, outside `bm25`, the embedding), as {@link indexCollection} does for a collection's
 * records; `beirIdOf` maps each document to its file's `id`. A file the app refuses (unreadable, too
 * deep, empty) is skipped and counted in `skipped`, as the app would leave it out.
 */
export async function indexFiles(files: readonly EvalFile[], settings: Partial<EvalSettings> = {}, embedder?: ChunkEmbedder, reranker?: Reranker): Promise<IndexedCollection> {
  const { chunk, lexical: lexicalOptions, mode, fusion, rerank, vectorIndex } = { ...DEFAULT_EVAL_SETTINGS, ...settings };
  if (mode !== 'bm25' && !embedder) throw new DocQaError('model-files-missing', `eval: mode ${mode} needs an embedding model (--model <folder>)`);
  if (mode === 'rerank' && !reranker) throw new DocQaError('model-files-missing', 'eval: mode rerank needs a cross-encoder (--reranker <folder>)');
  const set = IndexSet.create(lexicalOptions);
  const { owners, lexical } = set;
  const source = new MemorySource();
  const beirIdOf = new Map<string, string>();
  const t0 = performance.now();
  let skipped = 0;
  const prepare = (file: EvalFile) =>
    prepareDocument({ name: file.name, folder: file.folder, bytes: file.bytes, addedAt: 0 }, chunk).then(
      (prepared) => ({ file, prepared }),
      () => undefined,
    );
  for await (const done of prepareAhead(files, prepare)) {
    if (!done) {
      skipped++;
      continue;
    }
    const { file, prepared } = done;
    beirIdOf.set(prepared.doc.id, file.id);
    await set.add(prepared.chunks.map((c) => ({ chunkId: c.id, docId: prepared.doc.id, text: c.text, title: headerTitleOf(prepared.doc) })));
    source.add(prepared);
  }
  let dense: DenseRetriever | undefined;
  let embedMs = 0;
  if (embedder && mode !== 'bm25') {
    const e0 = performance.now();
    dense = vectorIndex.create(embedder.model.id, embedder.model.dims);
    const ids = [...owners.chunkIds()];
    for (let i = 0; i < ids.length; i += EMBED_BATCH) {
      const batch = ids.slice(i, i + EMBED_BATCH);
      const chunks = await source.getChunks(batch);
      const data = await embedder.embedChunks(chunks.map((c, j) => headedText(owners.titleOf(batch[j]!), c!.text)));
      const dims = embedder.model.dims;
      dense.add(batch.map((chunkId, j) => ({ chunkId, vector: data.subarray(j * dims, (j + 1) * dims) })));
    }
    embedMs = performance.now() - e0;
    set.dense = dense;
  }
  const built = { owners, lexical, dense, vectorIndex: vectorIndex.name, embedder, source, beirIdOf, indexMs: performance.now() - t0, embedMs, skipped };
  return withMode({ ...built, mode, reranker, search: async () => [], retrievers: [] }, mode, { fusion, rerank });
}

/**
 * The same indexed collection searched another way: `bm25`, `dense` or `hybrid` over the indexes it
 * already holds (dense and hybrid need its vectors), reranked when it has a reranker. Lets one run
 * report every mode over one embedding.
 */
export function withMode(indexed: IndexedCollection, mode: EvalMode, settings: Partial<Pick<EvalSettings, 'fusion' | 'rerank'>> = {}): IndexedCollection {
  const { lexical, dense, owners, source, reranker } = indexed;
  if (mode !== 'bm25' && !dense) throw new DocQaError('model-files-missing', `eval: mode ${mode} needs an embedding model (--model <folder>)`);
  if (mode === 'rerank' && !reranker) throw new DocQaError('model-files-missing', 'eval: mode rerank needs a cross-encoder (--reranker <folder>)');
  const retrievers: Retriever[] = mode === 'bm25' ? [{ index: lexical }] : mode === 'dense' ? [{ index: dense! }] : [{ index: lexical }, { index: dense! }];
  const fused = hybridSearch(retrievers, settings.fusion ?? {});
  const textsOf = async (ids: readonly ChunkId[]) => (await source.getChunks(ids)).map((c, i) => rerankText(owners.titleOf(ids[i]!), c?.text ?? ''));
  return {
    ...indexed,
    mode,
    search: reranker ? rerankedSearch(fused, textsOf, (query, passages) => reranker.score(query, passages, { batchSize: RERANK_BATCH }), settings.rerank ?? {}) : fused,
    retrievers: retrievers.map((r) => r.index.name),
  };
}

/** A question as the collection's mode searches it: with its vector in dense and hybrid modes. */
export function queryOf(indexed: IndexedCollection, text: string): PendingQuery {
  return { text, vector: indexed.mode === 'bm25' ? undefined : indexed.embedder?.embedQuery(text) };
}

/**
 * Runs every judged query against the indexed collection and scores document rankings (best chunk per
 * document).
 */
export async function evaluateRetrieval(collection: BeirCollection, indexed: IndexedCollection): Promise<EvalReport> {
  const { owners, beirIdOf, indexMs, skipped } = indexed;

  const ndcg: number[] = [];
  const recall: number[] = [];
  const recall10: number[] = [];
  const mrr: number[] = [];
  const times: number[] = [];
  for (const [qid, relevant] of collection.qrels) {
    const query = collection.queries.get(qid);
    if (query === undefined) continue;
    const q0 = performance.now();
    const hits = await indexed.search(queryOf(indexed, query), 1000);
    times.push(performance.now() - q0);
    const ranked = bestPerDocument(hits, (h) => owners.ownersOf(h.chunkId).map((d) => beirIdOf.get(d) ?? d));
    ndcg.push(ndcgAt(ranked, relevant, 10));
    recall.push(recallAt(ranked, relevant, 100));
    recall10.push(recallAt(ranked, relevant, 10));
    mrr.push(mrrAt(ranked, relevant, 10));
  }
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  const round = (x: number, d = 4) => Math.round(x * 10 ** d) / 10 ** d;
  return {
    mode: indexed.mode,
    model: indexed.mode === 'bm25' ? '' : (indexed.embedder?.model.id ?? ''),
    reranker: indexed.reranker?.model.id ?? '',
    vector_index: indexed.dense ? indexed.vectorIndex : '',
    'ndcg@10': round(mean(ndcg)),
    'recall@10': round(mean(recall10)),
    'recall@100': round(mean(recall)),
    'mrr@10': round(mean(mrr)),
    index_ms: Math.round(indexMs),
    query_p50_ms: round(percentile(times, 50), 3),
    queries: ndcg.length,
    documents: collection.corpus.length - skipped,
    skipped,
    chunks: owners.size,
    embed_ms: Math.round(indexed.embedMs),
  };
}

/** The collection's documents (BEIR ids) for a question, best first, as the indexed mode ranks them. */
export function documentRanker(indexed: IndexedCollection, depth = 30): (query: string) => Promise<string[]> {
  const { owners, beirIdOf } = indexed;
  return async (text) => bestPerDocument(await indexed.search(queryOf(indexed, text), depth * 2), (h) => owners.ownersOf(h.chunkId).map((d) => beirIdOf.get(d) ?? d)).slice(0, depth);
}
