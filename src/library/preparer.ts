import type { DocQaError } from '../core/errors.ts';
import type { PageReading, ReadProgress } from '../core/types.ts';
import type { ParseApi, ParseRequest } from '../ingest/parse-handler.ts';
import type { PreparedDocument } from '../ingest/prepare-document.ts';

/** Reads queued files into prepared documents: in a worker under a watchdog (browser), or in-process (Node). */
export interface Preparer {
  /**
   * Reads, parses, chunks and hashes one file. `insist` is set when the person pressed Try again: the
   * time budget is relaxed. `onRecognised` receives each PDF page OCR finishes.
   */
  prepare(request: ParseRequest, onProgress: ReadProgress, insist?: boolean, onRecognised?: (reading: PageReading) => void): Promise<PreparedDocument>;
  /** Stops the file being read now, if any, rejecting its `prepare` with `error`. */
  abort(error: DocQaError): void;
}

/**
 * The in-process preparer (Node tools and tests): the parse handler called directly, nothing to stop.
 * Imported on first use, so the browser's library worker, which reads files in a parse worker, does not
 * carry the parsers.
 */
export function inProcessPreparer(): Preparer {
  let handler: Promise<ParseApi> | undefined;
  return {
    async prepare(request, onProgress, _insist, onRecognised) {
      handler ??= import('../ingest/parse-handler.ts').then((m) => m.createParseHandler());
      return (await handler).prepare(request, onProgress, onRecognised);
    },
    abort: () => undefined,
  };
}
