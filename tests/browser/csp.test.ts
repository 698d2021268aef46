import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Response } from 'playwright-core';
import { contentSecurityPolicy } from '../../tools/security-headers.ts';
import { openSession, removeProfile, serveApp, type Page, type Served } from '../support/browser.ts';
import { askQuestion, waitForIndexed } from '../support/app-page.ts';
import { mixedLibrary, writeTree } from '../support/fixture-folder.ts';
import { nextAnswer, useScriptedGenerator } from '../support/scripted-answer.ts';

interface Violation {
  directive: string;
  blocked: string;
  sample: string;
}

/** Runs in the page before any of its scripts: records every CSP violation the page sees. */
function recordViolations(): void {
  const seen: Violation[] = [];
  (window as unknown as { cspViolations: Violation[] }).cspViolations = seen;
  document.addEventListener('securitypolicyviolation', (e) => seen.push({ directive: e.effectiveDirective, blocked: e.blockedURI, sample: e.sample }));
}

const violationsIn = (page: Page) => page.evaluate(() => (window as unknown as { cspViolations: Violation[] }).cspViolations);

describe('Content-Security-Policy', () => {
  let served: Served;
  let session: Awaited<ReturnType<typeof openSession>>;
  let page: Page;
  let response: Response | null;
  /** Console lines about CSP from the page, its workers (through the page's CDP log) and the context. */
  const cspLog: string[] = [];
  const collect = (text: string) => {
    if (/Content.Security.Policy/i.test(text)) cspLog.push(text);
  };

  beforeAll(async () => {
    served = await serveApp();
    session = await openSession();
    page = await session.newPage();
    await page.addInitScript(recordViolations);
    page.on('console', (m) => collect(m.text()));
    session.context.on('console', (m) => collect(m.text()));
    // Playwright's console event leaves out what Chromium logs for dedicated workers (source "worker"),
    // and a violation is a log entry, not a console call: read the page's log directly.
    const cdp = await session.context.newCDPSession(page);
    cdp.on('Log.entryAdded', ({ entry }) => collect(`[${entry.source}] ${entry.text}`));
    await cdp.send('Log.enable');
    response = await page.goto(served.url);
  });
  afterAll(async () => {
    await session?.close();
    await served?.close().catch(() => undefined);
    await removeProfile(session.profileDir);
  });

  it('is sent as a header with the page, frame-ancestors included, and repeated in a <meta>', async () => {
    const header = response?.headers()['content-security-policy'];
    expect(header).toBe(contentSecurityPolicy('production'));
    expect(header).toContain("frame-ancestors 'none'");
    expect(header).toContain("script-src 'self' 'wasm-unsafe-eval';");
    const meta = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
    expect(meta).toBe(contentSecurityPolicy('production', { meta: true }));
    expect(meta).not.toContain('frame-ancestors');
  });

  it('indexes PDF, Word, Markdown and HTML, answers and opens a source without a single violation', async () => {
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 30_000 });
    await page.getByLabel('Add a folder').setInputFiles(await writeTree(await mixedLibrary()));
    await waitForIndexed(page, 5);
    expect(await askQuestion(page, 'When is the security deposit returned?')).toContain('within fourteen days');
    const answer = page.getByRole('region', { name: 'Answer' });
    await answer.getByRole('link', { name: '[1]' }).click();
    const dialog = page.getByRole('dialog', { name: 'Source' });
    await dialog.waitFor();
    // A PDF opens on its real page: the quoted sentence is marked in the text layer, line by line.
    await dialog.locator('.textLayer mark').first().waitFor({ timeout: 30_000 });
    expect((await dialog.locator('mark').allTextContents()).join(' ').replace(/\s+/g, ' ')).toContain('returns the security deposit');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    // The workers ran under the policy too (their script responses carry the header): the library worker,
    // the parse worker it starts to read files, and pdf.js's worker that drew the cited PDF page.
    const workers = ['library', 'parse', 'pdf-render'].map((w) => `${new URL(`/assets/${w}.worker.js`, page.url())}`);
    expect(page.workers().map((w) => w.url().replace(/-[\w-]+\.js$/, '.js')).sort()).toEqual(workers);
    expect(await violationsIn(page)).toEqual([]);
    expect(cspLog).toEqual([]);
  });

  it('reports a violation inside the library worker (so the check above can see one)', async () => {
    const worker = page.workers()[0]!;
    const blocked = await worker.evaluate(() => fetch('https://example.com/leak').then(() => false, () => true));
    expect(blocked).toBe(true);
    await expect.poll(() => cspLog.join('\n')).toMatch(/\[worker\].*example\.com\/leak.*connect-src 'self'/);
  });

  it('does not run an injected inline script', async () => {
    await page.evaluate(() => {
      const script = document.createElement('script');
      script.textContent = 'window.injectedRan = true;';
      document.head.append(script);
    });
    await expect.poll(() => violationsIn(page)).toContainEqual(expect.objectContaining({ directive: 'script-src-elem', blocked: 'inline' }));
    expect(await page.evaluate(() => (window as unknown as { injectedRan?: boolean }).injectedRan)).toBeUndefined();
  });
});

// A model's answer streams into the page as sanitised Markdown, re-rendered at every piece: none of that
// may count against the policy, or the reports a real attack raises would drown in them. The model writes
// what models do: emphasis, a list, a table, and raw HTML (a styled span, an image with a handler).
describe('Content-Security-Policy while a model writes answers', () => {
  let served: Served;
  let session: Awaited<ReturnType<typeof openSession>>;
  let page: Page;
  const cspLog: string[] = [];

  beforeAll(async () => {
    served = await serveApp();
    session = await openSession();
    page = await session.newPage();
    await page.addInitScript(recordViolations);
    const cdp = await session.context.newCDPSession(page);
    cdp.on('Log.entryAdded', ({ entry }) => /Content.Security.Policy/i.test(entry.text) && cspLog.push(`[${entry.source}] ${entry.text}`));
    await cdp.send('Log.enable');
    await page.goto(served.url);
  });
  afterAll(async () => {
    await session?.close();
    await served?.close().catch(() => undefined);
    await removeProfile(session.profileDir);
  });

  it('streams answers with Markdown and raw HTML, and opens their sources, without a single violation', async () => {
    await page.getByLabel('Add a folder').setInputFiles(await writeTree(await mixedLibrary()));
    await waitForIndexed(page, 5);
    const replies = [
      'The landlord returns the **security deposit** within fourteen days [1]. Repair costs are *deducted* [1].\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |',
      'The landlord returns the security deposit within fourteen days [1].\n\n<b>Repair costs</b> are <span style="color: red">deducted</span>.\n\n<img src="x" onerror="window.__pwned = 1">',
    ];
    await useScriptedGenerator(page, { replies, delayMs: 10 });
    await waitForIndexed(page, 5);
    const answer = page.getByRole('region', { name: 'Answer' });
    for (const question of ['When is the security deposit returned?', 'What is deducted from the security deposit?']) {
      const before = await answer.getAttribute('data-seq');
      await page.getByLabel('Ask a question').fill(question);
      await page.getByRole('button', { name: 'Ask' }).click();
      await nextAnswer(page, before);
      await answer.locator('.generated a[href^="#source-1"]').first().click();
      const dialog = page.getByRole('dialog', { name: 'Source' });
      await dialog.locator('.textLayer mark').first().waitFor({ timeout: 30_000 });
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
    }
    // The model's answer was written and shown (so the streamed rendering ran); its raw HTML ran nothing.
    expect(await answer.locator('.answer-note').textContent()).toContain('Written by the scripted generator');
    expect(await answer.locator('.generated').textContent()).toContain('within fourteen days');
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    // Raw HTML other than plain allowed tags shows as the text the model wrote; <b> stays bold.
    expect(await answer.locator('.generated').textContent()).toContain('<img src="x" onerror="window.__pwned = 1">');
    expect(await answer.locator('.generated b').textContent()).toBe('Repair costs');
    expect(await violationsIn(page)).toEqual([]);
    expect(cspLog).toEqual([]);
  });
});
