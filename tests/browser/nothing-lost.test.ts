/**
 * Ways to lose data that an attack run found, each driven as a person (or the browser) would:
 * a file added again inside Delete's Undo window, reloads during a read, the site's storage cleared or
 * deleted under a running tab, and a library the browser took away between visits.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useApp } from '../support/browser.ts';
import { askQuestion, libraryStatus, waitForIndexed, waitForQueueEmpty } from '../support/app-page.ts';
import { writeTree } from '../support/fixture-folder.ts';
import { longText } from '../support/fixtures.ts';

const row = (page: Page, name: string) => page.getByRole('list', { name: 'Library' }).getByRole('listitem').filter({ hasText: name });
const activity = async (page: Page) => (await page.getByRole('list', { name: 'Activity' }).textContent()) ?? '';
const waitForReady = (page: Page) => page.locator('main[aria-busy="false"]').waitFor({ timeout: 30_000 });

/** Clears this origin's IndexedDB as "Clear site data" would (CDP), with or without a tab of the app open. */
async function clearIndexedDb(page: Page, origin: string): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: 'indexeddb' });
  await cdp.detach();
}

describe('nothing lost', () => {
  const app = useApp();

  it("a file added again inside Delete's Undo window is kept, at the start of the window and at its very end, also after a reload", async () => {
    const page = app.page;
    const dir = await writeTree({
      'early.md': '# Early\n\nThe kingfisher nests in the clay bank above the mill race.\n',
      'late.md': '# Late\n\nThe dipper walks along the stream bed under water.\n',
    });
    await page.getByLabel('Add documents').setInputFiles([`${dir}/early.md`, `${dir}/late.md`]);
    await waitForIndexed(page, 2);

    // Both deleted; early.md added again a second later, late.md just before its six seconds run out.
    await page.getByRole('button', { name: 'Delete early.md', exact: true }).click();
    await page.getByRole('button', { name: 'Delete late.md', exact: true }).click();
    const deletedAt = Date.now();
    await page.waitForTimeout(1000);
    await page.getByLabel('Add documents').setInputFiles(`${dir}/early.md`);
    // The row comes back at once, saying why.
    await row(page, 'early.md').getByRole('button', { name: 'Delete early.md', exact: true }).waitFor({ timeout: 10_000 });
    expect(await activity(page)).toContain('early.md: added again, so it was not deleted');
    await page.waitForTimeout(Math.max(0, deletedAt + 5800 - Date.now()));
    await page.getByLabel('Add documents').setInputFiles(`${dir}/late.md`);

    // Well past the window: both stay, whole and searchable, and after a reload too.
    await page.waitForTimeout(4000);
    await waitForQueueEmpty(page);
    expect((await libraryStatus(page)).map((r) => `${r.name} ${r.status}`).sort()).toEqual(['early.md Indexed', 'late.md Indexed']);
    await page.reload();
    await waitForIndexed(page, 2);
    expect(await askQuestion(page, 'where does the kingfisher nest')).toContain('clay bank above the mill race');
    expect(await askQuestion(page, 'dipper stream bed')).toContain('walks along the stream bed');
  });

  it('reloads while a file is being read do not count against it: it is indexed, not skipped as one that stopped the app', async () => {
    const page = app.page;
    const dir = await writeTree({ 'ledger.txt': longText(24, 'The night porter keeps the spare key of the boathouse in a tin.') });
    await page.getByLabel('Add documents').setInputFiles(`${dir}/ledger.txt`);
    // Twice: reload while its row says it is being read (the old rule gave up a file after two such reloads).
    for (let i = 0; i < 3; i++) {
      await page.waitForFunction(() => [...document.querySelectorAll('ul[aria-label="Library"] > li')].some((li) => li.textContent?.includes('ledger.txt') && /Indexing \d+%/.test(li.textContent)), undefined, { timeout: 60_000 });
      await page.reload();
      await waitForReady(page);
    }
    await waitForQueueEmpty(page, 120_000);
    const ledger = (await libraryStatus(page)).find((r) => r.name === 'ledger.txt');
    expect(ledger?.status).toBe('Indexed');
    expect(await askQuestion(page, 'night porter spare key boathouse')).toContain('keeps the spare key of the boathouse in a tin');
  });

  it('site data cleared under a running tab stops indexing, says what happened in plain words, and Reload opens a working library that says it was cleared', async () => {
    const page = app.page;
    const files: Record<string, string> = {};
    for (let i = 0; i < 40; i++) files[`memo-${String(i).padStart(2, '0')}.txt`] = longText(0.4, `Memo ${i} records the code word tangerine-${i * 3}.`);
    const dir = await writeTree(files);
    await page.getByLabel('Add documents').setInputFiles(Object.keys(files).map((n) => `${dir}/${n}`));
    await page.getByRole('status').filter({ hasText: /Indexing: ([3-9]|\d\d) of \d+ files? done/ }).waitFor({ timeout: 60_000 });

    await clearIndexedDb(page, new URL(app.page.url()).origin);
    const alert = page.getByRole('alert');
    await alert.waitFor({ timeout: 10_000 });
    const said = (await alert.textContent()) ?? '';
    console.info(`storage cleared under the tab: ${said}`);
    expect(said).toMatch(/(closed this site's storage|stored library was deleted).*indexing stopped/);
    // Nothing claims to go on: no progress line stuck mid-way, no raw error anywhere.
    await page.getByRole('status').filter({ hasText: /^Indexing stopped/ }).waitFor({ timeout: 10_000 });
    await page.waitForTimeout(3000);
    expect(await page.locator('body').textContent()).not.toMatch(/unexpected|Failed to execute|Connection is closing|storage refused/);
    await expect(page.getByRole('status').filter({ hasText: /^Indexing stopped/ }).count()).resolves.toBe(1);
    // A drop now is refused with the same plain reason, not an unexpected error.
    await page.getByLabel('Add documents').setInputFiles(`${dir}/memo-00.txt`);
    await page.waitForTimeout(1000);
    expect(await activity(page)).not.toMatch(/unexpected|Failed to execute|storage refused/);

    await alert.getByRole('button', { name: 'Reload' }).click();
    await waitForReady(page);
    const notice = page.getByRole('alert');
    await notice.waitFor({ timeout: 10_000 });
    expect(await notice.textContent()).toMatch(/^The browser cleared this site's stored library \(\d+ documents?, last used/);
    await page.getByLabel('Add documents').setInputFiles(`${dir}/memo-07.txt`);
    await waitForIndexed(page, 1);
    // Adding files ends the notice: the new library is what is remembered.
    await notice.waitFor({ state: 'detached', timeout: 10_000 });
    expect(await askQuestion(page, 'code word tangerine')).toContain('tangerine-21');
  });

  it('the database deleted from another tab is reported as deleted, not as an app update', async () => {
    const page = app.page;
    await page.reload();
    await waitForReady(page);
    const other = await page.context().newPage();
    await other.goto(new URL('/icon.svg', page.url()).href);
    await other.evaluate(() => new Promise<void>((resolve, reject) => {
      const req = indexedDB.deleteDatabase('docqa');
      req.onsuccess = () => resolve();
      req.onerror = () => reject(req.error);
    }));
    const alert = page.getByRole('alert').filter({ hasText: "This site's stored library was deleted" });
    await alert.waitFor({ timeout: 10_000 });
    expect(await page.getByRole('alert').allTextContents()).not.toContainEqual(expect.stringContaining('updated in another tab'));
    await other.close();
  });

  it('a library the browser took away between visits is told apart from a first visit, with the storage status', async () => {
    const page = app.page;
    await page.reload();
    await waitForReady(page);
    const dir = await writeTree({ 'a.md': '# A\n\nThe otter sleeps in the reeds.\n', 'b.md': '# B\n\nThe heron fishes at dawn.\n' });
    await page.getByLabel('Add documents').setInputFiles([`${dir}/a.md`, `${dir}/b.md`]);
    await waitForQueueEmpty(page);
    const count = (await libraryStatus(page)).filter((r) => r.status === 'Indexed').length;
    const origin = new URL(page.url()).origin;
    const url = page.url();
    await page.goto('about:blank');
    await clearIndexedDb(page, origin);
    await page.goto(url);
    await waitForReady(page);
    const notice = page.getByRole('alert');
    await notice.waitFor({ timeout: 10_000 });
    expect(await notice.textContent()).toMatch(new RegExp(`^The browser cleared this site's stored library \\(${count} documents?, last used .*\\): add the files again\\.`));
    await notice.getByRole('button', { name: 'Dismiss' }).click();
    await notice.waitFor({ state: 'detached' });
    // Read once, it does not come back: the empty library is now what this browser remembers.
    await page.reload();
    await waitForReady(page);
    await page.waitForTimeout(1000);
    await expect(page.getByRole('alert').count()).resolves.toBe(0);
  });
});
