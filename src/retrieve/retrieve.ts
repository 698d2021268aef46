import { describeBlock } from '../core/block-label.ts';
import type { ChunkId, DocId } from '../core/ids.ts';
import type { BlockRecord, ChunkRecord, DocRecord, Passage, SearchFilter } from '../core/types.ts';
import type { SearchIndex } from '../index/search-index.ts';

/** What retrieval reads from storage; the IndexedDB store implements it, tests may use maps. */
export interface PassageSource {
  listDocuments(): Promise<DocRecord[]>;
  getChunks(ids: readonly ChunkId[]): Promise<Array<ChunkRecord | undefined>>;
  getBlock(docId: DocId, index: number): Promise<BlockRecord | undefined>;
}

/** Documents allowed by a filter; undefined when the filter allows everything. */
export function allowedDocuments(docs: readonly DocRecord[], filter: SearchFilter | undefined): Set<DocId> | undefined {
  if (!filter) return undefined;
  const { docIds, folders, types, tags } = filter;
  if (!docIds?.length && !folders?.length && !types?.length && !tags?.length) return undefined;
  const inFolder = (doc: DocRecord) => folders!.some((f) => doc.folder === f || doc.folder.startsWith(`${f}/`));
  return new Set(
    docs
      .filter((d) => !docIds?.length || docIds.includes(d.id))
      .filter((d) => !folders?.length || inFolder(d))
      .filter((d) => !types?.length || types.includes(d.type))
      .filter((d) => !tags?.length || tags.some((t) => d.tags.includes(t)))
      .map((d) => d.id),
  );
}

export interface RetrieveOptions {
  /** Passages returned. Default 5; range 1–50. */
  k?: number;
  filter?: SearchFilter;
}

/**
 * The best passages for a question: index hits resolved to their parent windows, one passage per
 * window (the best-scoring chunk in it), restricted by the filter.
 */
export async function retrievePassages(index: SearchIndex, source: PassageSource, query: string, options: RetrieveOptions = {}): Promise<Passage[]> {
  const k = options.k ?? 5;
  const docs = await source.listDocuments();
  const docById = new Map(docs.map((d) => [d.id, d]));
  const allowed = allowedDocuments(docs, options.filter);
  if (allowed?.size === 0) return [];
  const hits = index.search(query, k * 4, allowed ? { docIds: allowed } : undefined);
  const chunks = await source.getChunks(hits.map((h) => h.chunkId));
  const passages: Passage[] = [];
  const seenWindows = new Set<string>();
  for (const [i, hit] of hits.entries()) {
    const chunk = chunks[i];
    const location = chunk?.locations.find((l) => docById.has(l.docId) && (!allowed || allowed.has(l.docId)));
    if (!chunk || !location) continue;
    const windowKey = `${location.docId}:${location.block}:${location.parentStart}`;
    if (seenWindows.has(windowKey)) continue;
    const block = await source.getBlock(location.docId, location.block);
    const doc = docById.get(location.docId);
    if (!block || !doc) continue;
    seenWindows.add(windowKey);
    passages.push({
      chunkId: hit.chunkId,
      score: hit.score,
      docId: doc.id,
      docName: doc.name,
      docPath: doc.path,
      docType: doc.type,
      block: location.block,
      label: describeBlock(block),
      page: block.page,
      window: block.text.slice(location.parentStart, location.parentEnd),
      windowStart: location.parentStart,
      hitStart: location.start - location.parentStart,
      hitEnd: location.end - location.parentStart,
    });
    if (passages.length >= k) break;
  }
  return passages;
}
