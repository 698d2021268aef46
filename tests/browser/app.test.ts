import { describe, expect, it } from 'vitest';
import { mixedLibrary, writeTree } from '../support/fixture-folder.ts';
import { useApp } from '../support/browser.ts';
import { askQuestion, libraryStatus, sourcePaths, waitForIndexed } from '../support/app-page.ts';

describe('drop a folder, ask, follow a citation, reload', () => {
  const app = useApp();

  it('indexes every file of a dropped folder and shows each as Indexed', async () => {
    const dir = await writeTree(await mixedLibrary());
    await app.page.getByLabel('Add a folder').setInputFiles(dir);
    await waitForIndexed(app.page, 5);
    const statuses = await libraryStatus(app.page);
    expect(statuses).toEqual(
      expect.arrayContaining([
        { name: 'lease.pdf', status: 'Indexed' },
        { name: 'employment.docx', status: 'Indexed' },
        { name: 'garden.md', status: 'Indexed' },
        { name: 'recipe.html', status: 'Indexed' },
        { name: 'readme.txt', status: 'Indexed' },
      ]),
    );
    await app.page.waitForFunction(() => document.querySelector('[role="status"]')?.textContent === 'Ready');
  });

  it('answers with a cited passage and opens the source at the highlighted passage', async () => {
    await app.page.getByLabel('Ask a question').fill('When is the security deposit returned?');
    await app.page.getByRole('button', { name: 'Ask' }).click();
    const answer = app.page.getByRole('region', { name: 'Answer' });
    await answer.getByRole('link', { name: '[1]' }).waitFor();
    await expect(answer.textContent()).resolves.toContain('within fourteen days');
    // The page's heading "Security deposit" only repeats the question: it is not quoted.
    await expect(answer.locator('bdi').allTextContents()).resolves.not.toContain('Security deposit');
    const firstSource = app.page.getByRole('list', { name: 'Sources' }).getByRole('listitem').first();
    // Named by its title, with its path on the line below.
    await expect(firstSource.locator('.source-name').textContent()).resolves.toBe('[1] Residential Lease Agreement, page 2');
    await expect(firstSource.locator('.source-path').textContent()).resolves.toBe('docs/contracts/lease.pdf');
    await answer.getByRole('link', { name: '[1]' }).click();
    const dialog = app.page.getByRole('dialog', { name: 'Source' });
    await dialog.waitFor();
    // A PDF opens on its real page: the quoted sentence is marked in the text layer, line by line.
    await dialog.locator('.textLayer mark').first().waitFor({ timeout: 30_000 });
    expect((await dialog.locator('mark').allTextContents()).join(' ').replace(/\s+/g, ' ')).toContain('returns the security deposit within fourteen days');
    await expect(dialog.textContent()).resolves.toContain('page 2');
    await app.page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
  });

  it('says "Not found in your documents." for a question the documents do not answer, and lists the closest passages', async () => {
    expect(await askQuestion(app.page, 'What is the penalty for breaking the lease early?')).toBe('Not found in your documents.');
    const answer = app.page.getByRole('region', { name: 'Answer' });
    await expect(answer.getByRole('link').count()).resolves.toBe(0);
    await expect(app.page.getByRole('heading', { name: 'Closest passages' }).isVisible()).resolves.toBe(true);
    await expect(app.page.getByRole('heading', { name: 'Sources', exact: true }).count()).resolves.toBe(0);
    await expect(app.page.getByRole('list', { name: 'Sources' }).textContent()).resolves.toContain('contracts/lease.pdf');
    // A closest passage opens like a citation: in the Source dialog, at the passage, marked.
    const first = app.page.getByRole('list', { name: 'Sources' }).getByRole('listitem').first();
    const excerpt = (await first.locator('.excerpt').textContent()) ?? '';
    await first.getByRole('button', { name: 'Open source 1 in its document' }).click();
    const dialog = app.page.getByRole('dialog', { name: 'Source' });
    await dialog.locator('mark').first().waitFor({ timeout: 30_000 });
    const marked = (await dialog.locator('mark').allTextContents()).join(' ').replace(/\s+/g, ' ').trim();
    expect(marked.length).toBeGreaterThan(10);
    expect(excerpt.replace(/\s+/g, ' ')).toContain(marked.slice(0, 20));
    await app.page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    // A question it can answer brings the Sources heading back.
    expect(await askQuestion(app.page, 'When is the security deposit returned?')).toContain('within fourteen days');
    await expect(app.page.getByRole('heading', { name: 'Sources', exact: true }).isVisible()).resolves.toBe(true);
  });

  it('keeps the library after a reload and answers without re-indexing', async () => {
    await app.page.reload();
    await waitForIndexed(app.page, 5);
    await app.page.getByLabel('Ask a question').fill('How many days of paid holiday?');
    await app.page.getByLabel('Ask a question').press('Enter');
    const answer = app.page.getByRole('region', { name: 'Answer' });
    await answer.getByRole('link', { name: '[1]' }).waitFor();
    await expect(answer.textContent()).resolves.toContain('twenty-five days of paid holiday');
    const firstSource = app.page.getByRole('list', { name: 'Sources' }).getByRole('listitem').first();
    await expect(firstSource.textContent()).resolves.toContain('employment.docx, Holidays');
  });

  it('restricts answers to a chosen document, folder or tag', async () => {
    await app.page.getByLabel('Tags for garden.md').fill('home, hobby');
    await app.page.getByLabel('Tags for garden.md').press('Enter');
    await app.page.getByLabel('Tags for garden.md').blur();
    // The tag list refreshes after the change is saved: wait for the option, then pick it.
    await app.page.waitForFunction(() => [...document.querySelectorAll('option')].some((o) => o.textContent === 'hobby'));
    await app.page.getByLabel('Only with tag').selectOption('hobby');
    await askQuestion(app.page, 'days sun watering holiday deposit');
    const sources = (await app.page.getByRole('list', { name: 'Sources' }).textContent()) ?? '';
    expect(sources).toContain('garden.md');
    expect(sources).not.toMatch(/lease\.pdf|employment\.docx/);
    await app.page.getByLabel('Only with tag').selectOption('');
    await app.page.getByLabel('Only in folder').selectOption('docs/contracts');
    await askQuestion(app.page, 'days sun watering holiday deposit');
    const contractSources = (await app.page.getByRole('list', { name: 'Sources' }).textContent()) ?? '';
    expect(contractSources).toMatch(/lease\.pdf|employment\.docx/);
    expect(contractSources).not.toContain('garden.md');
    await app.page.getByLabel('Only in folder').selectOption('');
    await app.page.getByLabel('Only in document').selectOption({ label: 'docs/contracts/lease.pdf' });
    await askQuestion(app.page, 'days sun watering holiday deposit');
    const docSources = await sourcePaths(app.page);
    expect(docSources.length).toBeGreaterThan(0);
    expect(new Set(docSources)).toEqual(new Set(['docs/contracts/lease.pdf']));
    await app.page.getByLabel('Only in document').selectOption('');
  });

  it('replaces a changed file that has the same path, and ignores an unchanged one', async () => {
    const files = await mixedLibrary();
    files['notes/garden.md'] = '# Garden notes\n\n## Tomatoes\n\nTomatoes now grow in the greenhouse under grow lights.\n';
    await app.page.getByLabel('Add a folder').setInputFiles(await writeTree(files));
    await app.page.waitForFunction(() => /garden\.md: updated to the new version/.test(document.querySelector('ul[aria-label="Activity"]')?.textContent ?? ''), undefined, { timeout: 60_000 });
    await waitForIndexed(app.page, 5);
    await expect(app.page.getByRole('list', { name: 'Activity' }).textContent()).resolves.toContain('docs/readme.txt: already in library');
    expect(await askQuestion(app.page, 'where do tomatoes grow')).toContain('greenhouse under grow lights');
    expect(await askQuestion(app.page, 'tomatoes full sun regular watering')).not.toContain('full sun and regular watering');
  });
});
