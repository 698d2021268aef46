import { DocQaError } from '../core/errors.ts';
import { describeBlock } from '../core/block-label.ts';
import type { ChunkId, DocId } from '../core/ids.ts';
import { allowedDocuments } from '../core/query-filters.ts';
import type { BlockRecord, ChunkRecord, DocRecord, Passage, SearchFilter, TextRange } from '../core/types.ts';
import type { PendingQuery } from '../index/search-index.ts';
import { readsAsContents } from './contents-list.ts';
import { describeFusion } from './fuse.ts';
import type { RankedSearch } from './hybrid.ts';

/** What retrieval reads from storage; the IndexedDB store implements it, tests may use maps. */
export interface PassageSource {
  listDocuments(): Promise<DocRecord[]>;
  getChunks(ids: readonly ChunkId[]): Promise<Array<ChunkRecord | undefined>>;
  getBlock(docId: DocId, index: number): Promise<BlockRecord | undefined>;
}

export interface RetrieveOptions {
  /** Passages returned. Default 5; range 1–50. */
  k?: number;
  filter?: SearchFilter;
  /** Chunk predicate for the documents a filter allows (`ChunkOwners.ownedBy`). */
  chunkFilter?: (docIds: ReadonlySet<DocId>) => (chunkId: ChunkId) => boolean;
  /** Retriever names for "Why this passage", in order. Default: those that ranked each passage. */
  retrievers?: readonly string[];
}

/**
 * The best passages for a question: fused index hits resolved to their parent windows, one passage per
 * window (the best-ranked chunk in it), and none for a hit that lies inside a window already taken (windows
 * are centred on their chunks, so a neighbour's window holds most of it: on git's stash page, two
 * passages of one section left its DESCRIPTION out), restricted by the filter; a table of contents
 * ({@link readsAsContents}) only after every other passage found. Each passage says where it stood in
 * each retriever ("BM25 #3 · Dense #1 · RRF 0.0325").
 */
export async function retrievePassages(search: RankedSearch, source: PassageSource, query: PendingQuery, options: RetrieveOptions = {}): Promise<Passage[]> {
  const k = options.k ?? 5;
  const docs = await source.listDocuments();
  const docById = new Map(docs.map((d) => [d.id, d]));
  const allowed = allowedDocuments(docs, options.filter);
  if (allowed?.size === 0) return [];
  const filter = allowed && options.chunkFilter ? options.chunkFilter(allowed) : undefined;
  if (allowed && !filter) throw new DocQaError('internal', 'retrievePassages: a document filter needs options.chunkFilter');
  const hits = await search(query, k * 4, filter);
  const chunks = await source.getChunks(hits.map((h) => h.chunkId));
  const passages: Passage[] = [];
  // Tables of contents hold every heading's words but state nothing: they come last, if room is left.
  const contents: Passage[] = [];
  // The windows taken, by document and block: a hit inside one of them is already shown.
  const taken = new Map<string, TextRange[]>();
  for (const [i, hit] of hits.entries()) {
    const chunk = chunks[i];
    const location = chunk?.locations.find((l) => docById.has(l.docId) && (!allowed || allowed.has(l.docId)));
    if (!chunk || !location) continue;
    const blockKey = `${location.docId}:${location.block}`;
    const windows = taken.get(blockKey) ?? [];
    if (windows.some((w) => w.start <= location.start && location.end <= w.end)) continue;
    const block = await source.getBlock(location.docId, location.block);
    const doc = docById.get(location.docId);
    if (!block || !doc) continue;
    taken.set(blockKey, [...windows, { start: location.parentStart, end: location.parentEnd }]);
    const label = describeBlock(block);
    // The document's own title names the source: its metadata title; a title taken from its first heading
    // only where this passage's location starts with it (a later section's heading path does not).
    const docTitle = doc.titleSource === 'metadata' || (doc.titleSource === 'heading' && label.startsWith(doc.title)) ? doc.title : undefined;
    const window = block.text.slice(location.parentStart, location.parentEnd);
    // Judged by the chunk the index hit: a chapter's window may hold its contents and then its opening text.
    const hitText = block.text.slice(location.start, location.end);
    (readsAsContents(hitText) ? contents : passages).push({
      chunkId: hit.chunkId,
      score: hit.score,
      docId: doc.id,
      docName: doc.name,
      docPath: doc.path,
      ...(docTitle ? { docTitle } : {}),
      docType: doc.type,
      block: location.block,
      label,
      page: block.page,
      window,
      windowStart: location.parentStart,
      hitStart: location.start - location.parentStart,
      hitEnd: location.end - location.parentStart,
      ...codeInWindow(block.code, location.parentStart, location.parentEnd),
      ranks: Object.entries(hit.ranks).map(([name, r]) => ({ name, rank: r.rank, score: r.score })),
      ...(hit.rerank ? { rerank: hit.rerank } : {}),
      why: describeFusion(hit, options.retrievers ?? Object.keys(hit.ranks).sort()),
    });
    if (passages.length >= k) break;
  }
  return [...passages, ...contents].slice(0, k);
}

/** A block's code ranges that fall in the window `[start, end)`, clipped and made relative to it; none: `{}`. */
function codeInWindow(code: readonly TextRange[] | undefined, start: number, end: number): { code?: TextRange[] } {
  const inside = (code ?? []).filter((r) => r.end > start && r.start < end).map((r) => ({ start: Math.max(r.start, start) - start, end: Math.min(r.end, end) - start }));
  return inside.length ? { code: inside } : {};
}
