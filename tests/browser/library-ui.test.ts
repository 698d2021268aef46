import { describe, expect, it } from 'vitest';
import { useApp } from '../support/browser.ts';
import { libraryStatus, waitForIndexed } from '../support/app-page.ts';
import { writeTree } from '../support/fixture-folder.ts';

const NOTE = '# Original\n\n## Harbour\n\nThe harbour master opens the lock gates at dawn.\n';

describe('the Library at real size', () => {
  const app = useApp();

  it('summarises a drop of 30 copies in one Activity line, and names buttons after their document', async () => {
    const page = app.page;
    // Start-up ends in "Ready" with the list read (it said "Loading the library…" until then).
    await page.getByRole('status').filter({ hasText: /^Ready$/ }).waitFor();
    await page.getByLabel('Add a folder').setInputFiles(await writeTree({ 'original.md': NOTE, 'other.md': '# Other\n\nThe ferry leaves at noon.\n' }, 'notes'));
    await waitForIndexed(page, 2);
    const activity = page.getByRole('list', { name: 'Activity' });
    // The first drop's run has ended (a drop made before that would join its run).
    await activity.getByText('Done: 2 indexed', { exact: true }).waitFor({ timeout: 30_000 });
    const copies: Record<string, string> = {};
    for (let i = 0; i < 30; i++) copies[`copy-${i}.md`] = NOTE;
    await page.getByLabel('Add a folder').setInputFiles(await writeTree(copies, 'copies'));
    await activity.getByText('30 already in library', { exact: true }).waitFor({ timeout: 60_000 });
    expect(await activity.getByRole('listitem').count()).toBeLessThan(6);
    // Once the queue is empty, "Adding 30 files" gives way to what became of them.
    await activity.getByText('Done: 30 already in library', { exact: true }).waitFor({ timeout: 30_000 });
    expect(await activity.textContent()).not.toContain('Adding');
    // One copy alone names the stored document it matches.
    await page.getByLabel('Add documents').setInputFiles(await writeTree({ 'renamed.md': NOTE }, 'one').then((d) => `${d}/renamed.md`));
    await activity.getByText('renamed.md: already in library as notes/original.md', { exact: true }).waitFor({ timeout: 30_000 });
    // Both paths sit in <bdi>, so a right-to-left name cannot reorder the words between them.
    expect(await activity.getByRole('listitem').filter({ hasText: 'renamed.md:' }).locator('bdi').allTextContents()).toEqual(['renamed.md', 'notes/original.md']);
    await page.getByRole('status').filter({ hasText: /^Ready$/ }).waitFor();

    await page.getByRole('button', { name: 'Delete original.md', exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'Delete original.md', exact: true }).textContent()).toBe('Delete');

    // Filter by name; the folder filter offers the folder.
    await page.getByLabel('Filter documents').fill('OTHER');
    await page.waitForFunction(() => document.querySelectorAll('ul[aria-label="Library"] > li').length === 1);
    expect((await libraryStatus(page)).map((r) => r.name)).toEqual(['other.md']);
    expect(await page.locator('ul[aria-label="Library"] > li').getAttribute('aria-setsize')).toBe('1');
    await page.getByLabel('Filter documents').fill('');
    await waitForIndexed(page, 2);
    await page.getByLabel('Sort by').selectOption('name');
    expect((await libraryStatus(page)).map((r) => r.name)).toEqual(['original.md', 'other.md']);
  });

  it('offers Undo for a moment after Delete, then removes the document for good', async () => {
    const page = app.page;
    const names = async () => (await libraryStatus(page)).map((r) => r.name).sort();
    await page.getByRole('button', { name: 'Delete original.md', exact: true }).click();
    await page.waitForFunction(() => document.querySelectorAll('ul[aria-label="Library"] > li').length === 1);
    await page.getByRole('button', { name: 'Undo delete of original.md' }).click();
    expect(await names()).toEqual(['original.md', 'other.md']);
    await page.getByRole('button', { name: 'Delete other.md', exact: true }).click();
    expect(await names()).toEqual(['original.md']);
    await page.getByRole('list', { name: 'Activity' }).getByText('notes/other.md: removed', { exact: true }).waitFor({ timeout: 15_000 });
    await page.reload();
    await waitForIndexed(page, 1);
    expect(await names()).toEqual(['original.md']);
  });

  it('starts with a skip link to the question box', async () => {
    const page = app.page;
    await page.reload();
    await page.getByRole('status').filter({ hasText: /^Ready$/ }).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to Ask a question');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Ask a question');
  });

  it('fits a 390 px wide phone: nothing scrolls sideways, the question box comes before the library', async () => {
    const page = app.page;
    await page.setViewportSize({ width: 390, height: 800 });
    await page.waitForFunction(() => window.innerWidth === 390);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    const ask = await page.getByLabel('Ask a question').boundingBox();
    const library = await page.getByRole('list', { name: 'Library' }).boundingBox();
    expect(ask!.y).toBeLessThan(library!.y);
    await page.screenshot({ path: '/tmp/narrow.png', fullPage: true });
  });
});

describe('the Library list: titles first, find, sort, folders, bulk actions', () => {
  const app = useApp();
  const rows = () => app.page.getByRole('list', { name: 'Library' }).getByRole('listitem');

  it('shows each title before its file name, finds by title, sorts by size, and folds a folder', async () => {
    const page = app.page;
    await page.getByRole('status').filter({ hasText: /^Ready$/ }).waitFor();
    await page.getByLabel('Add a folder').setInputFiles(
      await writeTree(
        {
          'cases/a.md': '# Harbour dredging permit\n\nThe permit allows dredging in spring.\n',
          'cases/b.md': `# Quay wall survey\n\n${'The quay wall was surveyed in detail. '.repeat(40)}\n`,
          'letters/c.txt': 'A short letter about the ferry.\n',
          'letters/d.txt': 'Another short letter, about the lock gates, a little longer than the first one.\n',
        },
        'matter',
      ),
    );
    await waitForIndexed(page, 4);
    const first = rows().filter({ hasText: 'a.md' });
    expect(await first.locator('.title').textContent()).toBe('Harbour dredging permit');
    // The title comes first, the file name under it.
    const [title, name] = await Promise.all([first.locator('.title').boundingBox(), first.locator('.name').boundingBox()]);
    expect(title!.y).toBeLessThan(name!.y);

    await page.getByLabel('Filter documents').fill('quay wall');
    await page.waitForFunction(() => document.querySelectorAll('ul[aria-label="Library"] > li').length === 1);
    expect((await libraryStatus(page)).map((r) => r.name)).toEqual(['b.md']);
    await page.getByLabel('Filter documents').fill('');
    await waitForIndexed(page, 4);

    await page.getByLabel('Sort by').selectOption('size');
    expect((await libraryStatus(page)).map((r) => r.name)[0]).toBe('b.md');

    await page.getByLabel('Group by folder').check();
    const folderButtons = page.getByRole('list', { name: 'Library' }).locator('button.folder-toggle');
    expect(await folderButtons.allTextContents()).toEqual(['▾ matter/cases (2)', '▾ matter/letters (2)']);
    await folderButtons.first().click();
    expect(await folderButtons.first().getAttribute('aria-expanded')).toBe('false');
    expect((await libraryStatus(page)).filter((r) => r.name).map((r) => r.name).sort()).toEqual(['c.txt', 'd.txt']);
    await folderButtons.first().click();
    await page.getByLabel('Group by folder').uncheck();
    await page.screenshot({ path: '/tmp/library-rows.png' });
  });

  it('tags and deletes the selected documents at once, with one Undo for many', async () => {
    const page = app.page;
    for (const name of ['c.txt', 'd.txt']) await page.getByLabel(`Select ${name}`).check();
    const bulk = page.getByRole('toolbar', { name: 'Selected documents' });
    expect(await bulk.textContent()).toContain('2 selected');
    await bulk.getByLabel('Tag for the selected documents').fill('letters');
    await bulk.getByRole('button', { name: 'Add tag' }).click();
    await expect.poll(() => page.getByLabel('Tags for c.txt').inputValue()).toBe('letters');
    await expect.poll(() => page.getByLabel('Tags for d.txt').inputValue()).toBe('letters');

    for (const name of ['a.md', 'b.md']) await page.getByLabel(`Select ${name}`).check();
    expect(await bulk.textContent()).toContain('4 selected');
    await bulk.getByRole('button', { name: 'Delete selected' }).click();
    await page.waitForFunction(() => document.querySelectorAll('ul[aria-label="Library"] > li').length === 0);
    await page.getByRole('button', { name: 'Undo delete of 4 documents' }).click();
    await waitForIndexed(page, 4);
    expect(await bulk.count()).toBe(0);
  });
});
