import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSession, removeProfile, serveApp, type Served } from '../support/browser.ts';
import { askQuestion, waitForIndexed } from '../support/app-page.ts';
import { writeTree } from '../support/fixture-folder.ts';
import { axeViolations, layoutReport } from '../support/page-checks.ts';

/**
 * Publishes a new version of the app in `outDir` (a copy of the build), as a site does: a changed
 * index.html, and the service worker that lists it with its new revision.
 */
async function publishNewVersion(outDir: string): Promise<void> {
  const index = join(outDir, 'index.html');
  await writeFile(index, (await readFile(index, 'utf8')).replace('<head>', '<head><meta name="docqa-build" content="next">'));
  const sw = join(outDir, 'sw.js');
  const before = await readFile(sw, 'utf8');
  const after = before.replace(/(\{url:"index\.html",revision:")[0-9a-f]+"/, '$1next"');
  if (after === before) throw new Error('sw.js lists no index.html revision to change');
  await writeFile(sw, after);
}

describe('a new version of the app', () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const clean of cleanups.reverse()) await clean().catch(() => undefined);
  });

  it('waits for the person: the page is not reloaded under them, and "Reload to update" starts it', async () => {
    const outDir = await mkdtemp(join(tmpdir(), 'docqa-site-'));
    cleanups.push(() => rm(outDir, { recursive: true, force: true }));
    await cp('dist', outDir, { recursive: true });
    const served: Served = await serveApp(0, { outDir });
    cleanups.push(() => served.close());
    const session = await openSession();
    cleanups.push(() => removeProfile(session.profileDir), () => session.close());
    const page = await session.newPage();
    await page.goto(served.url);
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 30_000 });
    await page.getByLabel('Add a folder').setInputFiles(await writeTree({ 'lease.md': '# Lease\n\nRent is due on the first day of each month.\n' }));
    await waitForIndexed(page, 1);
    // The person is writing a question when the site publishes a new version.
    await page.getByLabel('Ask a question').fill('When is the rent due?');
    await page.evaluate(() => ((window as unknown as { started: string }).started = 'this page'));
    // And has a second tab open.
    const other = await session.newPage();
    await other.goto(served.url);
    await waitForIndexed(other, 1);
    await other.evaluate(() => ((window as unknown as { started: string }).started = 'other tab'));
    await publishNewVersion(outDir);
    await page.evaluate(async () => {
      await (await navigator.serviceWorker.getRegistration())!.update();
    });
    const notice = page.getByRole('status').filter({ hasText: 'A new version of DocQA is ready' });
    await notice.waitFor({ timeout: 30_000 });
    // Not reloaded: what they typed is still there, and the version they have goes on answering.
    expect(await page.evaluate(() => (window as unknown as { started?: string }).started)).toBe('this page');
    expect(await page.getByLabel('Ask a question').inputValue()).toBe('When is the rent due?');
    expect(await askQuestion(page, 'When is the rent due?')).toContain('first day of each month');
    expect(await page.locator('meta[name="docqa-build"]').count()).toBe(0);
    // The notice reads well (axe) and fits a phone.
    expect(await axeViolations(page)).toEqual([]);
    await page.setViewportSize({ width: 360, height: 740 });
    expect(await layoutReport(page)).toMatchObject({ overflow: 0, smallTargets: [] });

    const reloaded = page.waitForEvent('load', { timeout: 30_000 });
    await notice.getByRole('button', { name: 'Reload to update' }).click();
    await reloaded;
    // The new version runs, nothing waits any more, and the library is as it was.
    expect(await page.locator('meta[name="docqa-build"]').count()).toBe(1);
    expect(await page.evaluate(() => (window as unknown as { started?: string }).started)).toBeUndefined();
    expect(await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.waiting ?? null)).toBeNull();
    await waitForIndexed(page, 1);
    expect(await page.getByText('A new version of DocQA is ready').count()).toBe(0);
    expect(await askQuestion(page, 'When is the rent due?')).toContain('first day of each month');

    // The other tab is not reloaded under the person either: it says what happened and offers the reload.
    const elsewhere = other.getByRole('status').filter({ hasText: 'DocQA was updated in another tab' });
    await elsewhere.waitFor({ timeout: 30_000 });
    expect(await other.evaluate(() => (window as unknown as { started?: string }).started)).toBe('other tab');
    const otherReloaded = other.waitForEvent('load', { timeout: 30_000 });
    await elsewhere.getByRole('button', { name: 'Reload to update' }).click();
    await otherReloaded;
    expect(await other.locator('meta[name="docqa-build"]').count()).toBe(1);
  });
});
