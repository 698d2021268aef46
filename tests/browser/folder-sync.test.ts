import { rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { askQuestion, libraryStatus, waitForQueueEmpty } from '../support/app-page.ts';
import { useApp } from '../support/browser.ts';
import { writeTree } from '../support/fixture-folder.ts';

/** A folder added again is synced: only what changed is read, files gone from it leave the library. */
describe('a folder added again', () => {
  const app = useApp();

  it('reads nothing when the folder did not change, and applies only the difference when it did', async () => {
    const { page } = app;
    const root = await writeTree({
      'garden.md': '# Garden\n\nTomatoes grow in full sun with regular watering.\n',
      'boiler.md': '# Boiler\n\nThe boiler was serviced in May by the plumber.\n',
      'old/fence.md': '# Fence\n\nThe fence on the north side was painted green.\n',
    });
    const activity = () => page.getByRole('list', { name: 'Activity' }).textContent();
    const names = async () => (await libraryStatus(page)).map((r) => r.name).sort();
    await page.getByLabel('Add a folder').setInputFiles(root);
    await waitForQueueEmpty(page);
    await expect.poll(names).toEqual(['boiler.md', 'fence.md', 'garden.md']);

    // The same folder again: nothing is read, and the page says so.
    await page.getByLabel('Add a folder').setInputFiles(root);
    await expect.poll(activity).toContain('docs: nothing changed (3 unchanged, not read again)');
    expect(await activity()).not.toContain('already in library');

    // One file changed, one added, one deleted.
    await writeFile(join(root, 'garden.md'), '# Garden\n\nTomatoes now grow in the greenhouse under grow lights.\n');
    await utimes(join(root, 'garden.md'), new Date(), new Date(Date.now() + 5_000));
    await writeFile(join(root, 'shed.md'), '# Shed\n\nThe shed key hangs behind the kitchen door.\n');
    await rm(join(root, 'old'), { recursive: true });
    await page.getByLabel('Add a folder').setInputFiles(root);
    await expect.poll(activity).toContain('docs: 1 added, 1 changed, 1 removed, 1 unchanged');
    await waitForQueueEmpty(page);
    await expect.poll(names).toEqual(['boiler.md', 'garden.md', 'shed.md']);
    expect(await activity()).toContain('docs/garden.md: updated to the new version');
    expect(await askQuestion(page, 'Where do tomatoes grow?')).toContain('greenhouse under grow lights');
    expect(await askQuestion(page, 'What colour is the fence?')).not.toContain('painted green');
    expect(await askQuestion(page, 'Where is the shed key?')).toContain('behind the kitchen door');
  });
});
