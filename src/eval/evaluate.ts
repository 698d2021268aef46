import { DEFAULT_CHUNK_OPTIONS, type ChunkOptions } from '../ingest/chunk.ts';
import { prepareAhead } from '../ingest/prepare-ahead.ts';
import { prepareDocument } from '../ingest/prepare-document.ts';
import { DEFAULT_LEXICAL_OPTIONS, LexicalIndex, type LexicalOptions } from '../index/lexical-index.ts';
import { beirDocToMarkdown, type BeirCollection, type BeirDoc } from './beir.ts';
import { MemorySource } from './memory-source.ts';
import { bestPerDocument, mrrAt, ndcgAt, percentile, recallAt } from './metrics.ts';
import { headerTitleOf } from '../core/doc-title.ts';

export interface EvalReport {
  'ndcg@10': number;
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
}

export interface EvalSettings {
  chunk: ChunkOptions;
  lexical: LexicalOptions;
}

export const DEFAULT_EVAL_SETTINGS: EvalSettings = { chunk: DEFAULT_CHUNK_OPTIONS, lexical: DEFAULT_LEXICAL_OPTIONS };

/** A BEIR collection indexed with the app's own ingest and index, and readable as retrieval reads the store. */
export interface IndexedCollection {
  index: LexicalIndex;
  source: MemorySource;
  /** App document id → BEIR document id. */
  beirIdOf: Map<string, string>;
  indexMs: number;
  /** Records with an empty title and text, not indexed (the app would refuse such a file as empty). */
  skipped: number;
}

/** Whether a BEIR record has any text to index. */
export function isEmptyRecord(record: BeirDoc): boolean {
  return !record.title.trim() && !record.text.trim();
}

/** Indexes every record as the Markdown file a person would drop (`# title` + text), skipping empty ones. */
export async function indexCollection(collection: BeirCollection, settings: EvalSettings = DEFAULT_EVAL_SETTINGS): Promise<IndexedCollection> {
  const encoder = new TextEncoder();
  const index = new LexicalIndex(settings.lexical);
  const source = new MemorySource();
  const beirIdOf = new Map<string, string>();
  const t0 = performance.now();
  const prepare = (record: (typeof collection.corpus)[number]) =>
    prepareDocument({ name: `${record.id}.md`, folder: '', bytes: encoder.encode(beirDocToMarkdown(record)), addedAt: 0 }, settings.chunk).then(
      (prepared) => ({ record, prepared }),
    );
  const records = collection.corpus.filter((r) => !isEmptyRecord(r));
  for await (const { record, prepared } of prepareAhead(records, prepare)) {
    beirIdOf.set(prepared.doc.id, record.id);
    index.add(prepared.chunks.map((c) => ({ chunkId: c.id, docId: prepared.doc.id, text: c.text, title: headerTitleOf(prepared.doc) })));
    source.add(prepared);
  }
  return { index, source, beirIdOf, indexMs: performance.now() - t0, skipped: collection.corpus.length - records.length };
}

/**
 * Runs every judged query against the indexed collection and scores document rankings (best chunk per
 * document).
 */
export function evaluateRetrieval(collection: BeirCollection, indexed: IndexedCollection): EvalReport {
  const { index, beirIdOf, indexMs, skipped } = indexed;

  const ndcg: number[] = [];
  const recall: number[] = [];
  const mrr: number[] = [];
  const times: number[] = [];
  for (const [qid, relevant] of collection.qrels) {
    const query = collection.queries.get(qid);
    if (query === undefined) continue;
    const q0 = performance.now();
    const hits = index.search(query, 1000);
    times.push(performance.now() - q0);
    const ranked = bestPerDocument(hits, (h) => index.ownersOf(h.chunkId).map((d) => beirIdOf.get(d) ?? d));
    ndcg.push(ndcgAt(ranked, relevant, 10));
    recall.push(recallAt(ranked, relevant, 100));
    mrr.push(mrrAt(ranked, relevant, 10));
  }
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  const round = (x: number, d = 4) => Math.round(x * 10 ** d) / 10 ** d;
  return {
    'ndcg@10': round(mean(ndcg)),
    'recall@100': round(mean(recall)),
    'mrr@10': round(mean(mrr)),
    index_ms: Math.round(indexMs),
    query_p50_ms: round(percentile(times, 50), 3),
    queries: ndcg.length,
    documents: collection.corpus.length - skipped,
    skipped,
    chunks: index.size,
  };
}
