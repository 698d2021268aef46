/** Real Debian Chromium driven by playwright-core, against the built app served by `vite preview`. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { preview, type PreviewServer } from 'vite';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const FLAGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  '--disable-dev-shm-usage',
];

export interface Served {
  url: string;
  close(): Promise<void>;
}

/**
 * Serves `dist/` (built by `npm run test:browser`) on a free local port. `mirror` also serves a test hub
 * (`hub-server.ts`) under `/hub-mirror/` on the app's own origin, as a site hosting its own model mirror
 * would (the app's CSP lets it download models only from its own site and huggingface.co). `outDir`
 * serves another copy of the build instead of `dist/` (a test that changes the files it serves).
 */
export async function serveApp(port = 0, options: { mirror?: string; outDir?: string } = {}): Promise<Served> {
  const proxy = options.mirror ? { '/hub-mirror': { target: options.mirror, changeOrigin: true, rewrite: (p: string) => p.replace(/^\/hub-mirror/, '') } } : undefined;
  const server: PreviewServer = await preview({ logLevel: 'silent', ...(options.outDir ? { build: { outDir: options.outDir } } : {}), preview: { port: port || 20000 + Math.floor(Math.random() * 20000), strictPort: false, open: false, proxy } });
  const url = server.resolvedUrls?.local[0];
  if (!url) throw new Error('preview server has no URL');
  return {
    url,
    close: () => server.close(),
  };
}

export interface Session {
  context: BrowserContext;
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

/** A persistent Chromium profile (so IndexedDB and the service worker survive reloads and restarts). */
export async function openSession(profileDir?: string): Promise<Session & { profileDir: string }> {
  const dir = profileDir ?? (await mkdtemp(join(tmpdir(), 'docqa-profile-')));
  const context = await chromium.launchPersistentContext(dir, { executablePath: CHROMIUM, args: FLAGS, headless: true });
  await grantStorage(context);
  return {
    context,
    profileDir: dir,
    newPage: () => context.newPage(),
    close: () => context.close(),
  };
}

async function grantStorage(context: BrowserContext): Promise<void> {
  const page = context.pages()[0] ?? (await context.newPage());
  const cdp = await context.newCDPSession(page);
  await cdp.send('Browser.grantPermissions', { permissions: ['durableStorage'] }).catch(() => undefined);
}

export async function removeProfile(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

export type { Browser, Page };

/** The built app served, a fresh Chromium profile, and one page opened on the app. */
export interface OpenApp {
  served: Served;
  session: Session & { profileDir: string };
  page: Page;
  close(): Promise<void>;
}

export async function openApp(): Promise<OpenApp> {
  const served = await serveApp();
  const session = await openSession();
  const page = await session.newPage();
  await page.goto(served.url);
  return {
    served,
    session,
    page,
    async close() {
      await session.close();
      await served.close().catch(() => undefined);
      await removeProfile(session.profileDir);
    },
  };
}

/**
 * Opens the app before the tests of the enclosing `describe` and closes it after them. Read `.page`
 * inside the tests.
 */
export function useApp(): { readonly page: Page } {
  let app: OpenApp | undefined;
  beforeAll(async () => {
    app = await openApp();
  });
  afterAll(() => app?.close());
  return {
    get page(): Page {
      if (!app) throw new Error('useApp: the app is opened in beforeAll; read .page inside a test');
      return app.page;
    },
  };
}
