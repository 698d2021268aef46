import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSession, removeProfile, serveApp, type Page, type Served } from '../support/browser.ts';
import { askQuestion, dropFile, statusWhenDone, waitForIndexed } from '../support/app-page.ts';
import { writeTree } from '../support/fixture-folder.ts';
import { makePdf, makeScannedTextPdf } from '../support/fixtures.ts';

describe('installable and offline', () => {
  let served: Served;
  let session: Awaited<ReturnType<typeof openSession>>;
  let page: Page;
  const requests: string[] = [];

  beforeAll(async () => {
    served = await serveApp();
    session = await openSession();
    session.context.on('request', (r) => requests.push(r.url()));
    page = await session.newPage();
    await page.goto(served.url);
  });
  afterAll(async () => {
    await session?.close();
    await served?.close().catch(() => undefined);
    await removeProfile(session.profileDir);
  });

  it('has a web app manifest with icons and a service worker controlling the page', async () => {
    const manifest = await page.evaluate(async () => {
      const href = document.querySelector('link[rel="manifest"]')?.getAttribute('href');
      return href ? ((await (await fetch(href)).json()) as { name: string; icons: Array<{ sizes: string }> }) : undefined;
    });
    expect(manifest?.name).toContain('DocQA');
    expect(manifest?.icons.map((i) => i.sizes)).toEqual(expect.arrayContaining(['192x192', '512x512']));
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 30_000 });
    // COOP/COEP are served, so WASM threads (the embedding stage) can use SharedArrayBuffer.
    expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
  });

  it('indexes and answers without any request leaving the origin', async () => {
    const dir = await writeTree({
      'policy.pdf': await makePdf([{ lines: ['Travel policy', '', 'Economy class is required for flights shorter than six hours.'] }]),
      'faq.md': '# FAQ\n\n## Expenses\n\nReceipts must be submitted within thirty days.\n',
    });
    await page.getByLabel('Add a folder').setInputFiles(dir);
    await waitForIndexed(page, 2);
    const answer = await askQuestion(page, 'Which class for short flights?');
    expect(answer).toContain('Economy class is required');
    const origin = new URL(served.url).origin;
    const foreign = requests.filter((u) => !u.startsWith(origin) && !u.startsWith('data:') && !u.startsWith('blob:'));
    expect(foreign).toEqual([]);
  });

  it('loads and answers with the server stopped', async () => {
    await served.close();
    const response = await page.reload();
    // The service worker serves the page with the headers it was cached with: the CSP still applies.
    expect(response?.fromServiceWorker()).toBe(true);
    expect(response?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    await waitForIndexed(page, 2);
    const answer = await askQuestion(page, 'When must receipts be submitted?');
    expect(answer).toContain('within thirty days');
    expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
  });

  it('reads a scanned PDF with the server stopped: the recogniser and its English model are precached', async () => {
    await dropFile(page, 'visa-scan.pdf', await makeScannedTextPdf([{ paragraphs: ['A visa for the conference must be requested eight weeks before travelling.'] }]));
    expect(await statusWhenDone(page, 'visa-scan.pdf')).toBe('Indexed: page 1 recognised from images (OCR)');
    expect(await askQuestion(page, 'When must a visa be requested?')).toContain('eight weeks before travelling');
  });
});
