import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mixedLibrary, writeTree } from '../support/fixture-folder.ts';
import { openSession, removeProfile, serveApp, type Page, type Served } from '../support/browser.ts';
import { libraryStatus, waitForIndexed } from '../support/app-page.ts';

describe('drop a folder, ask, follow a citation, reload', () => {
  let served: Served;
  let session: Awaited<ReturnType<typeof openSession>>;
  let page: Page;

  beforeAll(async () => {
    served = await serveApp();
    session = await openSession();
    page = await session.newPage();
    page.on('pageerror', (e) => console.error('page error:', e));
    await page.goto(served.url);
  });
  afterAll(async () => {
    await session?.close();
    await served?.close();
    await removeProfile(session.profileDir);
  });

  it('indexes every file of a dropped folder and shows each as Indexed', async () => {
    const dir = await writeTree(await mixedLibrary());
    await page.getByLabel('Add a folder').setInputFiles(dir);
    await waitForIndexed(page, 5);
    const statuses = await libraryStatus(page);
    expect(statuses).toEqual(
      expect.arrayContaining([
        { name: 'lease.pdf', status: 'Indexed' },
        { name: 'employment.docx', status: 'Indexed' },
        { name: 'garden.md', status: 'Indexed' },
        { name: 'recipe.html', status: 'Indexed' },
        { name: 'readme.txt', status: 'Indexed' },
      ]),
    );
    await expect(page.getByRole('status').textContent()).resolves.toContain('Ready');
  });

  it('answers with a cited passage and opens the source at the highlighted passage', async () => {
    await page.getByLabel('Ask a question').fill('When is the security deposit returned?');
    await page.getByRole('button', { name: 'Ask' }).click();
    const answer = page.getByRole('region', { name: 'Answer' });
    await answer.getByRole('link', { name: '[1]' }).waitFor();
    await expect(answer.textContent()).resolves.toContain('within fourteen days');
    const firstSource = page.getByRole('list', { name: 'Sources' }).getByRole('listitem').first();
    await expect(firstSource.textContent()).resolves.toContain('contracts/lease.pdf, page 2');
    await answer.getByRole('link', { name: '[1]' }).click();
    const dialog = page.getByRole('dialog', { name: 'Source' });
    await dialog.waitFor();
    await expect(dialog.locator('mark').textContent()).resolves.toContain('returns the security deposit within fourteen days');
    await expect(dialog.textContent()).resolves.toContain('page 2');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
  });

  it('keeps the library after a reload and answers without re-indexing', async () => {
    await page.reload();
    await waitForIndexed(page, 5);
    await page.getByLabel('Ask a question').fill('How many days of paid holiday?');
    await page.getByLabel('Ask a question').press('Enter');
    const answer = page.getByRole('region', { name: 'Answer' });
    await answer.getByRole('link', { name: '[1]' }).waitFor();
    await expect(answer.textContent()).resolves.toContain('twenty-five days of paid holiday');
    const firstSource = page.getByRole('list', { name: 'Sources' }).getByRole('listitem').first();
    await expect(firstSource.textContent()).resolves.toContain('employment.docx, Holidays');
  });
});
