/**
 * The fetch transformers.js downloads model files with (`env.fetch`), made to fail clearly and never
 * half-succeed: a connection that cannot be made, and a body that breaks off or ends short of its
 * Content-Length, or that stalls (no byte for {@link STALL_MS}: a proxy whose upstream broke off can
 * hold the connection open for ever), become one DocQaError 'model-download-failed' naming the file, the
 * bytes received and what to do. transformers.js stores a file in the cache only after reading its whole body, so an errored
 * body is never stored; the expected length also travels in a header so the cache can check it again
 * (`model-cache.ts`). Pure: the underlying fetch is passed in.
 */
import { DocQaError } from '../core/errors.ts';

/** Set on guarded 200 responses: the Content-Length the server announced (read back by the cache). */
export const EXPECTED_BYTES_HEADER = 'x-docqa-expected-bytes';

type Fetch = (input: string | URL, init?: RequestInit) => Promise<Response>;

/** A download that receives nothing for this long (ms) has stalled: it fails rather than wait for ever. */
export const STALL_MS = 30_000;

/** `https://host/a/b/onnx/model.onnx` → `onnx/model.onnx` when it follows `/resolve/<rev>/`, else the last segment. */
function fileOf(url: string): string {
  const m = /\/resolve\/[^/]+\/(.+)$/.exec(new URL(url).pathname);
  return decodeURI(m ? m[1]! : (url.split('/').pop() ?? url));
}

const reason = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** A size announced in Content-Length that the body can be held to: none when the body is compressed. */
function announcedBytes(response: Response): number | undefined {
  const length = response.headers.get('content-length');
  const encoding = response.headers.get('content-encoding');
  if (length === null || !/^\d+$/.test(length) || (encoding && encoding !== 'identity')) return undefined;
  return Number(length);
}

/**
 * Wraps `fetchFn`. Only full (200) responses with a body are guarded; 206 (transformers.js's size
 * probes), 404 and other statuses pass through for transformers.js to handle.
 */
export function guardDownloads(fetchFn: Fetch, options: { stallMs?: number } = {}): Fetch {
  const stallMs = options.stallMs ?? STALL_MS;
  return async (input, init) => {
    const url = String(input);
    let response: Response;
    try {
      response = await fetchFn(input, init);
    } catch (err) {
      if (init?.signal?.aborted) throw err;
      const host = new URL(url).host;
      throw new DocQaError('model-download-failed', `model files: could not reach ${host} for ${fileOf(url)} (${reason(err)}): check the connection and load the model again, or import its files from a folder`, { cause: err });
    }
    if (response.status !== 200 || !response.body) return response;
    const expected = announcedBytes(response);
    let received = 0;
    const cut = (why: string) =>
      new DocQaError(
        'model-download-failed',
        `model files: the download of ${fileOf(url)} stopped after ${received.toLocaleString('en')}${expected === undefined ? '' : ` of ${expected.toLocaleString('en')}`} bytes (${why}); nothing partial was kept: load the model again`,
      );
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        let chunk: ReadableStreamReadResult<Uint8Array>;
        let timer: ReturnType<typeof setTimeout> | undefined;
        const stalled = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`nothing arrived for ${Math.round(stallMs / 1000)} s`)), stallMs);
        });
        try {
          chunk = await Promise.race([reader.read(), stalled]);
        } catch (err) {
          void reader.cancel().catch(() => undefined);
          controller.error(cut(reason(err)));
          return;
        } finally {
          clearTimeout(timer);
        }
        if (chunk.done) {
          if (expected !== undefined && received < expected) controller.error(cut('the connection closed early'));
          else controller.close();
          return;
        }
        received += chunk.value.byteLength;
        controller.enqueue(chunk.value);
      },
      cancel: (why) => reader.cancel(why),
    });
    const headers = new Headers(response.headers);
    if (expected !== undefined) headers.set(EXPECTED_BYTES_HEADER, String(expected));
    return new Response(body, { status: response.status, statusText: response.statusText, headers });
  };
}
