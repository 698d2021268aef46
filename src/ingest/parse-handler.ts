import type { DocId } from '../core/ids.ts';
import type { PageReading, ReadProgress } from '../core/types.ts';
import type { ChunkOptions } from './chunk.ts';
import { prepareDocument, type PreparedDocument } from './prepare-document.ts';
import type { ReadLimits } from './read-limits.ts';

/** One queued file to read: everything the parse worker needs, nothing from the store. */
export interface ParseRequest {
  name: string;
  folder: string;
  blob: Blob;
  /** Computed by the library, which checked the file is not already stored. */
  docId: DocId;
  addedAt: number;
  chunk: ChunkOptions;
  limits: ReadLimits;
  /** PDF pages OCR read before, in a read of this file that did not finish: not recognised again. */
  recognised?: PageReading[];
}

/** What the parse worker exposes: the whole pure ingest path (read, parse, clean, chunk, hash) for one file. */
export interface ParseApi {
  /**
   * `onProgress` receives 0–1 and the stage (OCR's page); it is also the heartbeat the library's watchdog
   * listens to. `onRecognised` receives each PDF page OCR finishes.
   */
  prepare(request: ParseRequest, onProgress: ReadProgress, onRecognised?: (reading: PageReading) => void): Promise<PreparedDocument>;
}

/** The parse worker's handler; also used in-process where there are no workers (Node tools and tests). */
export function createParseHandler(): ParseApi {
  return {
    async prepare(request, onProgress, onRecognised) {
      const bytes = new Uint8Array(await request.blob.arrayBuffer());
      const { name, folder, docId, addedAt, limits, recognised } = request;
      return prepareDocument({ name, folder, bytes, addedAt, docId, limits, recognised }, request.chunk, onProgress, onRecognised);
    },
  };
}
