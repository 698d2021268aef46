import type { QueueId } from '../core/ids.ts';
import type { AddOptions, IncomingFile, QueueApi, ReadAgainOffer, Served } from '../core/library-api.ts';
import type { DequeueOutcome, DocRecord, LibraryEvent } from '../core/types.ts';
import { describeSkipped, detectType, isSystemFile, joinPath } from '../ingest/file-kinds.ts';
import { readingAgainGives } from '../ingest/reader-versions.ts';
import { describeDiff, folderDiff, topFolder, type Fingerprint } from './folder-sync.ts';
import type { LibraryStore } from '../store/library-store.ts';
import type { IndexKeeper } from './index-keeper.ts';
import type { IngestQueue } from './ingest-queue.ts';

/** Whether this tab is the writer (holds the writer lock and indexes the queue); shared by the library's parts. */
export interface WriterRole {
  writing: boolean;
}

/** What the queue part works on. */
export interface QueueParts {
  store: LibraryStore;
  keeper: IndexKeeper;
  ingest: IngestQueue;
  writer: WriterRole;
  emit: (event: LibraryEvent) => void;
  /**
   * The languages the person added for OCR (English is always read): scans read before one was added are
   * offered to be read again. Default: none.
   */
  ocrLanguageCodes?: () => Promise<string[]>;
  /** Tells the other tabs that files were queued (the writer among them indexes them). Default: nothing. */
  onQueued?: () => void;
}

/** A stored document that reading again would improve, and what it would give ("read tables in PDFs row by row"). */
interface ReadAgainCandidate {
  doc: DocRecord;
  gives: string;
}

/**
 * The persisted queue as the page changes it, one part of the library: files added (in any tab),
 * removed, tried again, failures dismissed, and the reader's memory reported. The writer tab's
 * {@link IngestQueue} reads and commits what is queued.
 */
export class LibraryQueue implements Served<QueueApi> {
  constructor(private readonly parts: QueueParts) {}

  /**
   * Adds files to the persisted queue; the writer tab indexes them. System files such as .DS_Store are
   * skipped, and so are a dropped folder's files of types the app does not read (its style sheets,
   * scripts, icons…), said in one Activity line instead of a failed row each; a file of such a type
   * chosen on its own is queued, and fails with its own message.
   */
  async add(dropped: readonly IncomingFile[], options: AddOptions = {}): Promise<void> {
    await this.enqueue(dropped, options);
    this.parts.onQueued?.();
  }

  private async enqueue(dropped: readonly IncomingFile[], { syncFolders = false, wholeFolders = [] }: AddOptions): Promise<void> {
    const { store, ingest, emit } = this.parts;
    let files: IncomingFile[] = [];
    const unread: IncomingFile[] = [];
    for (const f of dropped) if (!isSystemFile(joinPath(f.folder, f.name))) (f.folder && !detectType(f.name) ? unread : files).push(f);
    if (unread.length) {
      // Their failed rows from an earlier drop go too, as a file dropped again replaces its failed row.
      const cleared = await store.removeFailedAt(new Set(unread.map((f) => joinPath(f.folder, f.name))), new Set(ingest.unrecorded.keys()));
      for (const id of cleared) ingest.unrecorded.delete(id);
      const folders = [...new Set(unread.map((f) => topFolder(joinPath(f.folder, f.name)) ?? f.folder))];
      emit({ type: 'files-skipped', folders, summary: describeSkipped(unread.map((f) => f.name)) });
      if (!files.length) emit({ type: 'changed' });
    }
    // A linked folder read through is synced even when it is empty now (its documents are removed).
    if (!files.length && !wholeFolders.length) return;
    try {
      if (syncFolders || wholeFolders.length) {
        files = await this.syncFolders(files, new Set(wholeFolders));
        if (!files.length) return;
      }
      const items = files.map((f) => ({ name: f.name, folder: f.folder, path: joinPath(f.folder, f.name), blob: f.blob, ...(f.modified !== undefined && { modified: f.modified }) }));
      // A file dropped again replaces its failed row: re-dropping a folder never piles up failures.
      const replaced = await store.removeFailedAt(new Set(items.map((i) => i.path)), new Set(ingest.unrecorded.keys()));
      for (const id of replaced) ingest.unrecorded.delete(id);
      // A file storage is too full to hold, whose failure cannot be recorded either, is reported now.
      const entries = await store.enqueue(items, Date.now(), (entry, error) => emit({ type: 'file-failed', queueId: entry.id, path: entry.path, error }));
      ingest.countAdded(entries);
    } finally {
      // Whatever part of a drop was stored is indexed, even when the rest failed.
      emit({ type: 'changed' });
      if (this.parts.writer.writing) void ingest.processQueue();
    }
  }

  /**
   * A folder added again is synced (`folder-sync.ts`): its unchanged files are left out of the drop (not
   * read), the documents of files no longer in it are deleted, and what changed is said. Returns the files
   * to queue. A drop of loose files, or of a folder the library holds nothing from, is queued as it is.
   * A folder of the same name that shares no file path with the one stored (another folder that happens to
   * be called "Documents") is added beside it, never taken for it: nothing is deleted. `whole`: folders
   * known to be the stored one (a linked folder read through its handle), synced whatever they share.
   *
   * A file already waiting in the queue in the same version (a sync repeated before the first was read,
   * or started by two tabs) is not queued twice.
   */
  private async syncFolders(files: readonly IncomingFile[], whole: ReadonlySet<string>): Promise<IncomingFile[]> {
    const { store, keeper, emit } = this.parts;
    const folders = new Set([...files.map((f) => topFolder(joinPath(f.folder, f.name))).filter((f): f is string => f !== undefined), ...whole]);
    if (!folders.size) return [...files];
    const paths = new Set(files.map((f) => joinPath(f.folder, f.name)));
    const all = (await store.listDocuments()).filter((d) => folders.has(topFolder(d.path) ?? ''));
    const waiting = (await store.listQueue()).filter((e) => e.state === 'queued' && paths.has(e.path));
    // Only folders the drop shares a path with are the same folder again (or those known to be).
    const same = new Set([...[...all, ...waiting].filter((d) => paths.has(d.path)).map((d) => topFolder(d.path)!), ...whole]);
    const docs = all.filter((d) => same.has(topFolder(d.path)!));
    const queued = waiting.filter((e) => same.has(topFolder(e.path)!));
    if (!docs.length && !queued.length && !whole.size) return [...files];
    const print = (r: { size: number; modified?: number }): Fingerprint => ({ size: r.size, ...(r.modified !== undefined && { modified: r.modified }) });
    // The version waiting to be read is newer than the stored one.
    const stored = new Map<string, Fingerprint>([...docs, ...queued].map((r) => [r.path, print(r)]));
    const dropped = new Map<string, Fingerprint>(files.map((f) => [joinPath(f.folder, f.name), print({ size: f.blob.size, modified: f.modified })]));
    // Files of the drop in other folders (or loose) are only added; the synced folders are compared.
    const diff = folderDiff(stored, new Map([...dropped].filter(([p]) => same.has(topFolder(p) ?? ''))), whole);
    const gone = new Set(diff.remove);
    for (const doc of docs.filter((d) => gone.has(d.path))) {
      const { removed, kept } = await store.deleteDocument(doc.id);
      if (!kept) await keeper.drop(doc.id, removed);
    }
    emit({ type: 'folder-synced', folders: [...same], summary: describeDiff(diff) });
    const unchanged = new Set(diff.unchanged);
    return files.filter((f) => !unchanged.has(joinPath(f.folder, f.name)));
  }

  /**
   * Removes a row of the queue, at whatever stage its file is: waiting or failed (dequeued), being read
   * (the read is stopped), or committed a moment ago (its document is deleted). Says which happened.
   */
  async dismiss(id: QueueId): Promise<DequeueOutcome> {
    const { store, keeper, ingest } = this.parts;
    const result = await store.dequeue(id);
    ingest.unrecorded.delete(id);
    if (result.outcome === 'deleted') await keeper.drop(result.docId, result.removed);
    ingest.stopReading(id);
    await store.dropRecognisedPages(id).catch(() => undefined);
    this.parts.emit({ type: 'changed' });
    return result.outcome;
  }

  /** Queues a failed file again, read with relaxed limits (Try again). False when its contents were not kept. */
  async retry(id: QueueId): Promise<boolean> {
    const { store, ingest } = this.parts;
    const ok = await store.retryQueued(id);
    if (ok) {
      ingest.unrecorded.delete(id);
      this.parts.emit({ type: 'changed' });
      if (this.parts.writer.writing) void ingest.processQueue();
    }
    return ok;
  }

  /** Removes the messages of every file that failed (they keep nothing else). */
  async dismissFailed(): Promise<number> {
    const { store, ingest } = this.parts;
    let removed = await store.removeFailed();
    for (const id of [...ingest.unrecorded.keys()]) {
      await store.removeQueued(id);
      ingest.unrecorded.delete(id);
      removed++;
    }
    await store.sweepRecognisedPages().catch(() => undefined);
    this.parts.emit({ type: 'changed' });
    return removed;
  }

  /**
   * Stored documents that reading again would improve (`readingAgainGives`) and not yet queued to be read
   * again (waiting, or failed to): those whose file was kept, and those without it.
   */
  private async readAgainCandidates(): Promise<{ kept: ReadAgainCandidate[]; withoutOriginals: ReadAgainCandidate[] }> {
    const { store } = this.parts;
    const [docs, queue, originals, languages] = await Promise.all([store.listDocuments(), store.listQueue(), store.originalIds(), this.parts.ocrLanguageCodes?.() ?? []]);
    const queued = new Set(queue.flatMap((e) => (e.readAgain ? [e.readAgain] : [])));
    const worth = docs.flatMap((d) => {
      const gives = queued.has(d.id) ? undefined : readingAgainGives(d, languages);
      return gives ? [{ doc: d, gives }] : [];
    });
    return { kept: worth.filter((w) => originals.has(w.doc.id)), withoutOriginals: worth.filter((w) => !originals.has(w.doc.id)) };
  }

  async readAgainOffer(): Promise<ReadAgainOffer> {
    const { kept, withoutOriginals } = await this.readAgainCandidates();
    const better = [...new Set([...kept, ...withoutOriginals].map((w) => w.gives))];
    return { documents: kept.length, withoutOriginals: withoutOriginals.length, better };
  }

  /** Queues the documents whose file was kept to be read again (`QueueEntry.readAgain`); the writer tab reads them. */
  async readAgain(): Promise<number> {
    const { store, ingest } = this.parts;
    const entries = await store.enqueueReadAgain((await this.readAgainCandidates()).kept.map((w) => w.doc));
    if (!entries.length) return 0;
    ingest.countAdded(entries);
    this.parts.emit({ type: 'changed' });
    if (this.parts.writer.writing) void ingest.processQueue();
    this.parts.onQueued?.();
    return entries.length;
  }

  /** The page measured the parse worker's memory: a read past the limit is stopped (see {@link IngestQueue.reportReaderMemory}). */
  reportReaderMemory(bytes: number): void {
    this.parts.ingest.reportReaderMemory(bytes);
  }
}
