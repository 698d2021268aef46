import { describe, expect, it } from 'vitest';
import { useApp } from '../support/browser.ts';
import { askQuestion, libraryStatus, waitForQueueEmpty } from '../support/app-page.ts';
import { writeTree } from '../support/fixture-folder.ts';
import { longText } from '../support/fixtures.ts';

/** Delete at each stage a file goes through in the browser; committing and mid-insertion are unit-tested. */
describe('Delete works at every stage and says what happened', () => {
  const app = useApp();

  it('removes a file while it waits in the queue and while it is being read, and neither comes back after a reload', async () => {
    const page = app.page;
    const dir = await writeTree({
      'big.txt': longText(40, 'The lighthouse keeper logs every passing tanker.'),
      'waiting.md': '# Waiting\n\nThe walrus basks on the ice floe.\n',
      'kept.md': '# Kept\n\nThe heron fishes at dawn beside the weir.\n',
    });
    await page.getByLabel('Add documents').setInputFiles(['big.txt', 'waiting.md', 'kept.md'].map((n) => `${dir}/${n}`));
    const row = (name: string) => page.getByRole('list', { name: 'Library' }).getByRole('listitem').filter({ hasText: name });

    // big.txt is being read (its row shows progress), waiting.md is still queued behind it.
    await page.waitForFunction(() => {
      const rows = [...document.querySelectorAll('ul[aria-label="Library"] > li')].map((li) => li.textContent ?? '');
      return rows.some((t) => t.includes('big.txt') && /Indexing \d+%/.test(t)) && rows.some((t) => t.includes('waiting.md') && t.includes('Queued'));
    }, undefined, { timeout: 60_000 });
    await row('waiting.md').getByRole('button', { name: 'Delete' }).click();
    await row('big.txt').getByRole('button', { name: 'Delete' }).click();

    await waitForQueueEmpty(page);
    expect(await libraryStatus(page)).toEqual([{ name: 'kept.md', status: 'Indexed' }]);
    const activity = (await page.getByRole('list', { name: 'Activity' }).textContent()) ?? '';
    expect(activity).toContain('waiting.md: removed');
    expect(activity).toContain('big.txt: removed');
    expect(await askQuestion(page, 'lighthouse keeper tanker')).not.toContain('passing tanker');
    expect(await askQuestion(page, 'walrus ice floe')).not.toContain('basks on the ice');
    expect(await askQuestion(page, 'heron weir')).toContain('The heron fishes at dawn');

    await page.reload();
    await page.waitForFunction(() => document.querySelectorAll('ul[aria-label="Library"] > li').length > 0);
    await page.waitForTimeout(1500);
    expect(await libraryStatus(page)).toEqual([{ name: 'kept.md', status: 'Indexed' }]);
    expect(await askQuestion(page, 'lighthouse keeper tanker')).not.toContain('passing tanker');
  });
});
