/**
 * A tiny Hugging Face hub for tests: serves model folders held in memory at
 * `/<owner>/<model>/resolve/<revision>/<file>` with Content-Length, byte ranges (transformers.js probes
 * sizes with `Range: bytes=0-0`) and CORS. It counts requests per file, can cut a file's response
 * halfway (half the bytes, then the socket is destroyed), and can be stopped (offline) and started again
 * on the same port.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface HubServer {
  /** `http://127.0.0.1:<port>/`: the mirror's base URL. */
  readonly url: string;
  /** Requests per `<repo>/<file>` (size probes included), since the start or the last `resetCounts`. */
  readonly requests: Map<string, number>;
  /** Requests in all, or for one repo. */
  requestCount(repo?: string): number;
  resetCounts(): void;
  /** Cuts every full download of `<repo>/<file>` halfway until `cut(undefined)`. */
  cut(repoFile: string | undefined): void;
  /** Sends half of every full download of `<repo>/<file>`, waits `ms`, then the rest (progress shows), until `slow(undefined)`. */
  slow(repoFile: string | undefined, ms?: number): void;
  /** Stops listening and drops open connections (offline); `start` listens again on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/** `models`: repo (`owner/name`) → file path → bytes. Every revision serves the same files. */
export async function startHubServer(models: ReadonlyMap<string, ReadonlyMap<string, Uint8Array>>): Promise<HubServer> {
  const requests = new Map<string, number>();
  let cutFile: string | undefined;
  let slowFile: { repoFile: string; ms: number } | undefined;
  const sockets = new Set<Socket>();

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Expose-Headers', 'Content-Length, Content-Range, ETag');
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { 'Access-Control-Allow-Headers': 'Range', 'Access-Control-Allow-Methods': 'GET, HEAD' });
      res.end();
      return;
    }
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const m = /^\/(.+?)\/resolve\/[^/]+\/(.+)$/.exec(path);
    const repo = m?.[1];
    const file = m?.[2];
    const bytes = repo && file ? models.get(repo)?.get(file) : undefined;
    if (repo && file) requests.set(`${repo}/${file}`, (requests.get(`${repo}/${file}`) ?? 0) + 1);
    if (!bytes) {
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      res.end('Entry not found');
      return;
    }
    const type = file!.endsWith('.json') ? 'application/json' : 'application/octet-stream';
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    if (range) {
      const start = Number(range[1]);
      const end = Math.min(bytes.length - 1, range[2] ? Number(range[2]) : bytes.length - 1);
      res.writeHead(206, { 'Content-Type': type, 'Content-Length': end - start + 1, 'Content-Range': `bytes ${start}-${end}/${bytes.length}` });
      res.end(req.method === 'HEAD' ? undefined : bytes.subarray(start, end + 1));
      return;
    }
    res.writeHead(200, { 'Content-Type': type, 'Content-Length': bytes.length, ETag: `"${bytes.length}"` });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    if (cutFile === `${repo}/${file}`) {
      // Half the body, flushed, then the connection goes: the client sees fewer bytes than announced.
      res.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => setTimeout(() => res.socket?.destroy(), 20));
      return;
    }
    if (slowFile?.repoFile === `${repo}/${file}`) {
      const half = Math.floor(bytes.length / 2);
      res.write(bytes.subarray(0, half), () => setTimeout(() => res.end(bytes.subarray(half)), slowFile?.ms ?? 0));
      return;
    }
    res.end(bytes);
  };

  let server: Server | undefined;
  let port = 0;
  const start = () =>
    new Promise<void>((resolve, reject) => {
      const s = createServer(handle);
      s.on('connection', (socket) => {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
      });
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        port = (s.address() as { port: number }).port;
        server = s;
        resolve();
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      const s = server;
      server = undefined;
      for (const socket of sockets) socket.destroy();
      if (!s) resolve();
      else s.close(() => resolve());
    });
  await start();
  return {
    get url() {
      return `http://127.0.0.1:${port}/`;
    },
    requests,
    requestCount: (repo) => [...requests].filter(([k]) => !repo || k.startsWith(`${repo}/`)).reduce((n, [, c]) => n + c, 0),
    resetCounts: () => requests.clear(),
    cut(repoFile) {
      cutFile = repoFile;
    },
    slow(repoFile, ms = 1000) {
      slowFile = repoFile ? { repoFile, ms } : undefined;
    },
    stop,
    start,
    close: stop,
  };
}
