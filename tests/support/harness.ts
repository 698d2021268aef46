/**
 * The embed worker harness (`tests/harness/`, test-only) built with `vite.harness.config.ts`, served
 * with the app's headers by `vite preview`, and opened in a fresh Chromium profile.
 */
import { resolve } from 'node:path';
import { build, preview } from 'vite';
import { openSession, removeProfile, type Page, type Session } from './browser.ts';

const CONFIG = 'vite.harness.config.ts';

/** Builds the harness into `outDir` (default `dist-harness/`). About 2 s. */
export async function buildHarness(outDir = 'dist-harness'): Promise<void> {
  await build({ configFile: CONFIG, logLevel: 'error', build: { outDir: resolve(outDir) } });
}

export interface OpenHarness {
  page: Page;
  session: Session & { profileDir: string };
  /** The harness page's origin. */
  origin: string;
  /** Every URL the browser requested (page and workers). */
  requests: string[];
  /** Console errors of the page and its workers that report a CSP refusal. */
  cspViolations(): string[];
  /** Requests to anywhere but the harness and `origins` (blob: and data: URLs aside). */
  requestsElsewhere(origins: readonly string[]): string[];
  close(): Promise<void>;
}

/** Serves `outDir` and opens a harness page (`entry`) in a fresh profile; waits until the page says it is ready. */
export async function openHarness(outDir = 'dist-harness', entry = 'embed-harness.html'): Promise<OpenHarness> {
  const server = await preview({ configFile: CONFIG, logLevel: 'error', build: { outDir: resolve(outDir) }, preview: { port: 20000 + Math.floor(Math.random() * 20000), open: false } });
  const url = server.resolvedUrls?.local[0];
  if (!url) throw new Error('harness preview server has no URL');
  const session = await openSession();
  const requests: string[] = [];
  session.context.on('request', (r) => requests.push(r.url()));
  const page = await session.newPage();
  const consoleErrors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  await page.goto(`${url}${entry}`);
  await page.waitForSelector('body[data-ready="true"]');
  return {
    page,
    session,
    origin: new URL(url).origin,
    requests,
    cspViolations: () => consoleErrors.filter((e) => /Content Security Policy|Refused to/.test(e)),
    requestsElsewhere(origins) {
      const allowed = [new URL(url).origin, ...origins];
      return requests.filter((u) => !allowed.some((o) => u.startsWith(o)) && !u.startsWith('blob:') && !u.startsWith('data:'));
    },
    async close() {
      await session.close();
      await server.close().catch(() => undefined);
      await removeProfile(session.profileDir);
    },
  };
}
