// Self-query in the page: filters read from the question appear as removable chips before the search
// runs, restrict the answer's sources, and can be removed.
import { describe, expect, it } from 'vitest';
import { askQuestion, sourcePaths, waitForIndexed } from '../support/app-page.ts';
import { useApp } from '../support/browser.ts';
import { writeTree } from '../support/fixture-folder.ts';

describe('filters read from the question', () => {
  const app = useApp();

  it('shows "Only in lease.md" for "… according to the lease", searches that document only, and forgets it when removed', async () => {
    const { page } = app;
    await page.getByLabel('Add a folder').setInputFiles(
      await writeTree({
        'lease.md': '# Lease\n\n## Deposit\n\nThe deposit is two months of rent, returned within thirty days.\n',
        'guide.md': '# Renting guide\n\n## Deposit\n\nA deposit is usually one month of rent; it is returned when the keys are handed back.\n',
      }),
    );
    await waitForIndexed(page, 2);
    await page.getByLabel('Ask a question').fill('How much is the deposit according to the lease?');
    const chips = page.getByRole('list', { name: 'Filters from your question' });
    await expect.poll(() => chips.textContent()).toContain('Only in docs/lease.md');
    await page.getByRole('button', { name: 'Ask' }).click();
    await page.waitForFunction(() => document.querySelector('section[aria-label="Answer"]')?.getAttribute('data-seq') !== '0');
    expect(new Set(await sourcePaths(page))).toEqual(new Set(['docs/lease.md']));

    await page.getByRole('button', { name: 'Remove filter docs/lease.md' }).click();
    expect(await chips.count()).toBe(0);
    await askQuestion(page, 'How much is the deposit according to the lease?');
    expect((await sourcePaths(page)).sort()).toEqual(['docs/guide.md', 'docs/lease.md']);
  });

  it('copies the answer with its citations as Markdown', async () => {
    const { page } = app;
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await askQuestion(page, 'When is the deposit returned?');
    await page.getByRole('button', { name: 'Copy as Markdown' }).click();
    await expect.poll(() => page.getByText('Copied as Markdown').count()).toBe(1);
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toMatch(/^\*\*When is the deposit returned\?\*\*\n\n.*returned .* \[1\]/su);
    expect(copied).toMatch(/\nSources:\n1\. docs\/(lease|guide)\.md, .*Deposit/u);
  });
});
