import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSession, removeProfile, serveApp, type Page, type Served } from '../support/browser.ts';
import { askQuestion, libraryStatus, waitForIndexed } from '../support/app-page.ts';
import { writeTree } from '../support/fixture-folder.ts';

describe('1,000 small files in one drop', () => {
  let served: Served;
  let session: Awaited<ReturnType<typeof openSession>>;
  let page: Page;

  beforeAll(async () => {
    served = await serveApp();
    session = await openSession();
    page = await session.newPage();
    await page.goto(served.url);
  });
  afterAll(async () => {
    await session?.close();
    await served?.close();
    await removeProfile(session.profileDir);
  });

  it('indexes all of them, with overall progress, and stays responsive', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 1000; i++) files[`box-${Math.floor(i / 100)}/note-${i}.txt`] = `Note ${i}\n\nShelf ${i} holds the ${['blue', 'red', 'green', 'amber'][i % 4]} folder number ${i * 3}.`;
    await page.getByLabel('Add a folder').setInputFiles(await writeTree(files, 'notes'));
    await page.waitForFunction(() => /Indexing: \d+ of 1000 files done/.test(document.querySelector('[role="status"]')?.textContent ?? ''), undefined, { timeout: 60_000 });
    // The page answers input while the worker indexes.
    await page.getByLabel('Ask a question').fill('still typing');
    await expect(page.getByLabel('Ask a question').inputValue()).resolves.toBe('still typing');
    // Files indexed so far are searchable while the rest of the drop is still queued.
    await page.waitForFunction(() => [...document.querySelectorAll('ul[aria-label="Library"] .status')].filter((x) => x.textContent === 'Indexed').length >= 50, undefined, { timeout: 60_000 });
    const early = (await libraryStatus(page)).find((r) => r.status === 'Indexed')!;
    const n = Number(/note-(\d+)/.exec(early.name)![1]);
    const partial = await libraryStatus(page);
    expect(partial.filter((r) => r.status === 'Queued').length).toBeGreaterThan(0);
    expect(await askQuestion(page, `which folder is on shelf ${n}`)).toContain(`folder number ${n * 3}`);
    await waitForIndexed(page, 1000, 170_000);
    expect(await libraryStatus(page)).toHaveLength(1000);
    expect(await askQuestion(page, 'which folder is on shelf 777')).toContain('folder number 2331');
  });
});
