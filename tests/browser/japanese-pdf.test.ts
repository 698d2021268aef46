import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSession, removeProfile, serveApp, type Page, type Served } from '../support/browser.ts';
import { askQuestion, dropFile, statusWhenDone, waitForIndexed } from '../support/app-page.ts';
import { makeJapanesePdf } from '../support/fixtures.ts';

/**
 * Japanese PDFs whose fonts use Adobe's predefined CMaps (not embedded, no ToUnicode) have text only
 * with pdf.js's CMap files: the app serves them itself and precaches them, so this works offline.
 */
describe('a Japanese PDF that needs predefined CMaps', () => {
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

  it('is indexed when dropped and found by a Japanese question, with the CMaps from the app itself', async () => {
    await dropFile(page, 'tokyo.pdf', makeJapanesePdf(['東京都の契約書', '', '賃料は毎月五日までに支払う。']));
    expect(await statusWhenDone(page, 'tokyo.pdf')).toBe('Indexed');
    // The whole unspaced run: the tokenizer does not segment Japanese words yet.
    const answer = await askQuestion(page, '賃料は毎月五日までに支払う');
    expect(answer).toContain('賃料は毎月五日までに支払う。');
    const sources = (await page.getByRole('list', { name: 'Sources' }).textContent()) ?? '';
    expect(sources).toContain('tokyo.pdf, page 1');
    const origin = new URL(served.url).origin;
    expect(requests).toContain(`${origin}/pdfjs/cmaps/UniJIS-UCS2-H.bcmap`);
    const foreign = requests.filter((u) => !u.startsWith(origin) && !u.startsWith('data:') && !u.startsWith('blob:'));
    expect(foreign).toEqual([]);
  });

  it('is indexed offline too: the CMaps are precached', async () => {
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 30_000 });
    await served.close();
    await page.reload();
    await waitForIndexed(page, 1);
    await dropFile(page, 'osaka.pdf', makeJapanesePdf(['大阪府の賃貸借契約', '', '敷金は退去後十四日以内に返還する。']));
    expect(await statusWhenDone(page, 'osaka.pdf')).toBe('Indexed');
    expect(await askQuestion(page, '敷金は退去後十四日以内に返還する')).toContain('敷金は退去後十四日以内に返還する。');
  });
});
