import { describeBlock } from '../core/block-label.ts';
import { DocQaError } from '../core/errors.ts';
import type { DocId } from '../core/ids.ts';
import type { DocumentsApi, Served } from '../core/library-api.ts';
import type { DeleteOutcome, DocRecord, LibraryEvent, LibraryItem, SourceRequest, SourceView } from '../core/types.ts';
import type { LibraryStore } from '../store/library-store.ts';
import type { IndexKeeper } from './index-keeper.ts';
import type { IngestQueue } from './ingest-queue.ts';
import { clampRange, locateMarks } from './source-view.ts';

/** What the documents part works on: the store, the indexes, the ingest queue and the events. */
export interface DocumentsParts {
  store: LibraryStore;
  keeper: IndexKeeper;
  ingest: IngestQueue;
  emit: (event: LibraryEvent) => void;
}

/** A stored document as the Library list shows it. */
function itemOf(d: DocRecord): LibraryItem {
  return {
    key: `doc:${d.id}`,
    kind: 'document',
    name: d.name,
    path: d.path,
    docId: d.id,
    type: d.type,
    tags: d.tags,
    pages: d.pages,
    size: d.size,
    title: d.title,
    unreadablePages: d.unreadablePages,
    recognisedPages: d.recognisedPages,
    lowConfidencePages: d.lowConfidencePages,
    addedAt: d.addedAt,
    date: d.date,
  };
}

/**
 * The library's documents, one part of it: the Library list (documents, then queued and failed files),
 * deleting, tags, the source a citation points into, and the files kept as they were dropped.
 */
export class LibraryDocuments implements Served<DocumentsApi> {
  constructor(private readonly parts: DocumentsParts) {}

  /** Documents, then queued and failed files, for the Library list. */
  async list(): Promise<LibraryItem[]> {
    const { store, ingest } = this.parts;
    const [docs, queue] = await Promise.all([store.listDocuments(), store.listQueue()]);
    docs.sort((a, b) => a.addedAt - b.addedAt || a.path.localeCompare(b.path));
    const items = docs.map(itemOf);
    for (const q of queue) {
      const error = q.error ?? ingest.unrecorded.get(q.id);
      const failed = q.state === 'failed' || !!error;
      items.push({ key: `queue:${q.id}`, kind: failed ? 'failed' : 'queued', name: q.name, path: q.path, queueId: q.id, size: q.size, error, retriable: failed && q.hasContents });
    }
    return items;
  }

  /**
   * Deletes a document. With `requestedAt` (when the person pressed Delete, which the page delays by its
   * Undo window), a document whose file was added again since is kept: the file added again is not lost.
   */
  async delete(docId: DocId, requestedAt?: number): Promise<DeleteOutcome> {
    const { removed, kept, found } = await this.parts.store.deleteDocument(docId, requestedAt);
    if (kept) return 'kept';
    await this.parts.keeper.drop(docId, removed);
    this.parts.emit({ type: 'changed' });
    return found ? 'deleted' : 'gone';
  }

  async setTags(docId: DocId, tags: string[]): Promise<void> {
    await this.parts.store.setTags(docId, [...new Set(tags.map((t) => t.trim()).filter(Boolean))]);
    this.parts.emit({ type: 'changed' });
  }

  /** The whole block (a PDF page, a section) a citation points into, with its quoted sentences located. */
  async getSource(request: SourceRequest): Promise<SourceView> {
    const { store } = this.parts;
    const [doc, record] = await Promise.all([store.getDocument(request.docId), store.getBlock(request.docId, request.block)]);
    if (!doc || !record) throw new DocQaError('internal', 'this passage is no longer in the library (its document was deleted)');
    return {
      docId: doc.id,
      docType: doc.type,
      docName: doc.name,
      docPath: doc.path,
      label: describeBlock(record),
      page: record.page,
      text: record.text,
      marks: locateMarks(record.text, request.marks),
      context: clampRange(request.context, record.text.length),
      ...(record.code?.length ? { code: record.code } : {}),
      ...(record.words?.length ? { words: record.words } : {}),
    };
  }

  /** The file a document was read from, if it was kept. */
  getOriginal(docId: DocId): Promise<Blob | undefined> {
    return this.parts.store.getOriginal(docId);
  }

  /** Turns "Keep original files" on or off for documents committed from now on (kept ones stay). */
  setKeepOriginals(keep: boolean): void {
    this.parts.ingest.keepOriginals = keep;
  }
}
