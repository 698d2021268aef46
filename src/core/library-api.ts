import type { DocId, QueueId } from './ids.ts';
import type { Answer, DequeueOutcome, LibraryItem, SearchFilter, SourceRequest, SourceView, StorageEstimate } from './types.ts';

/** BroadcastChannel on which the library worker of any tab posts `LibraryEvent`s. */
export const EVENTS_CHANNEL = 'docqa-events';

/** A file handed over by the page: its folder path inside the drop and its contents. */
export interface IncomingFile {
  name: string;
  folder: string;
  blob: Blob;
}

/** What the library worker exposes to the page (through Comlink). */
export interface LibraryApi {
  ready(): Promise<{ chunks: number }>;
  addFiles(files: IncomingFile[]): Promise<void>;
  listLibrary(): Promise<LibraryItem[]>;
  deleteDocument(docId: DocId): Promise<void>;
  /** Removes a queue row at whatever stage its file is; says what that did. */
  dismissQueued(id: QueueId): Promise<DequeueOutcome>;
  /** Queues a failed file again with relaxed limits; false when its contents were not kept (add it again). */
  retryQueued(id: QueueId): Promise<boolean>;
  /** Removes every failed file from the Library list; returns how many. */
  dismissFailed(): Promise<number>;
  setTags(docId: DocId, tags: string[]): Promise<void>;
  ask(question: string, filter?: SearchFilter): Promise<Answer>;
  /** The block a citation points into, with its quoted sentences located in the stored text. */
  getSource(request: SourceRequest): Promise<SourceView>;
  /** "Keep original files" (default on): documents committed from now on keep the file they were read from. */
  setKeepOriginals(keep: boolean): Promise<void>;
  /** The file a document was read from, when it was kept; undefined otherwise. */
  getOriginal(docId: DocId): Promise<Blob | undefined>;
  storageEstimate(): Promise<StorageEstimate>;
  /** The page measured the parse worker's memory, in bytes; a read past the limit is stopped. */
  reportReaderMemory(bytes: number): Promise<void>;
}
