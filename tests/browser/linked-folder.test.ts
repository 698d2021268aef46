// A folder linked through the File System Access API, in real Chromium: picked once with "Add a folder", its
// handle kept in the library's database; Sync reads it through again and applies only the difference; at
// the next start it is synced by itself where the browser still lets the page read it, and where the
// browser asks again, Sync asks (the permission prompt is answered by the test); another folder of the
// same name is refused; Unlink keeps the documents.
//
// The folder is a real directory handle from the origin private file system (the same FileSystemDirectoryHandle
// interface as a folder on disk): Chromium aborts its own picker under automation, so the test's picker
// returns that folder. The permission prompt cannot be driven either: where the test needs the browser to
// ask again, `queryPermission` answers "prompt" until `requestPermission` is called.
import { describe, expect, it } from 'vitest';
import { askQuestion, libraryStatus, waitForQueueEmpty } from '../support/app-page.ts';
import { useApp, type Page } from '../support/browser.ts';

/** The test's picker and permission answers, read from localStorage at each load. */
const PICKER = `
  window.showDirectoryPicker = async () => {
    let dir = await navigator.storage.getDirectory();
    for (const part of (localStorage.getItem('test.pick') || 'Contracts').split('/')) dir = await dir.getDirectoryHandle(part, { create: true });
    return dir;
  };
  if (localStorage.getItem('test.permission') === 'prompt') {
    let granted = false;
    window.__asked = 0;
    FileSystemHandle.prototype.queryPermission = async () => (granted ? 'granted' : 'prompt');
    FileSystemHandle.prototype.requestPermission = async () => {
      window.__asked++;
      granted = true;
      return 'granted';
    };
  }
`;

/** Writes (text) or deletes (null) files under the private file system's folder `root`. */
async function writeFolder(page: Page, root: string, files: Record<string, string | null>): Promise<void> {
  await page.evaluate(
    async ({ root, files }) => {
      let top = await navigator.storage.getDirectory();
      for (const part of root.split('/')) top = await top.getDirectoryHandle(part, { create: true });
      for (const [path, text] of Object.entries(files)) {
        const parts = path.split('/');
        const name = parts.pop()!;
        let dir = top;
        for (const part of parts) dir = await dir.getDirectoryHandle(part, { create: true });
        if (text === null) {
          await dir.removeEntry(name, { recursive: true });
          continue;
        }
        const writable = await (await dir.getFileHandle(name, { create: true })).createWritable();
        await writable.write(text);
        await writable.close();
      }
    },
    { root, files },
  );
}

describe('a linked folder', () => {
  const app = useApp();
  const activity = () => app.page.getByRole('list', { name: 'Activity' }).textContent();
  const names = async () => (await libraryStatus(app.page)).map((r) => r.name).sort();
  const linked = () => app.page.getByRole('region', { name: 'Linked folders' });

  it('is picked once, synced with only the difference, synced at the next start, asked for again, and unlinked', async () => {
    const { page } = app;
    await page.addInitScript(PICKER);
    await page.reload();
    await writeFolder(page, 'Contracts', {
      'lease.md': '# Lease\n\nThe tenant pays the rent on the first day of each month.\n',
      'loan.md': '# Loan\n\nThe loan is repaid in twelve monthly instalments.\n',
      'archive/fence.md': '# Fence\n\nThe fence on the north side was painted green.\n',
      '.git/config': '[core]\n',
    });

    await page.getByLabel('Add a folder').click();
    await waitForQueueEmpty(page);
    await expect.poll(names).toEqual(['fence.md', 'lease.md', 'loan.md']);
    await expect.poll(() => linked().getByRole('listitem').textContent()).toMatch(/^Contracts synced at /);

    // Synced unchanged: nothing is read.
    await linked().getByRole('button', { name: 'Sync Contracts' }).click();
    await expect.poll(activity).toContain('Contracts: nothing changed (3 unchanged, not read again)');

    // One file changed, one added, one folder deleted.
    await writeFolder(page, 'Contracts', {
      'lease.md': '# Lease\n\nFrom March the tenant pays the rent on the fifth day of each month.\n',
      'shed.md': '# Shed\n\nThe shed key hangs behind the kitchen door.\n',
      archive: null,
    });
    await linked().getByRole('button', { name: 'Sync Contracts' }).click();
    await expect.poll(activity).toContain('Contracts: 1 added, 1 changed, 1 removed, 1 unchanged');
    await waitForQueueEmpty(page);
    await expect.poll(names).toEqual(['lease.md', 'loan.md', 'shed.md']);
    expect(await askQuestion(page, 'Where is the shed key?')).toContain('behind the kitchen door');
    expect(await askQuestion(page, 'When does the tenant pay the rent?')).toContain('fifth day');

    // Another folder called "Contracts" is refused: its files would be taken for the linked one's.
    await writeFolder(page, 'elsewhere/Contracts', { 'other.md': '# Other\n\nA different folder.\n' });
    await page.evaluate(() => localStorage.setItem('test.pick', 'elsewhere/Contracts'));
    await page.getByLabel('Add a folder').click();
    await expect.poll(activity).toContain('Contracts was not added: another folder named "Contracts" is already linked to this library');
    expect(await names()).toEqual(['lease.md', 'loan.md', 'shed.md']);

    // The next start syncs it by itself: the page may still read the folder.
    await writeFolder(page, 'Contracts', { 'boiler.md': '# Boiler\n\nThe boiler was serviced in May.\n' });
    await page.reload();
    await expect.poll(activity, { timeout: 30_000 }).toContain('Contracts: 1 added, 3 unchanged');
    await waitForQueueEmpty(page);
    await expect.poll(names).toEqual(['boiler.md', 'lease.md', 'loan.md', 'shed.md']);

    // After a restart where the browser asks again: nothing is read until Sync, which asks.
    await writeFolder(page, 'Contracts', { 'loan.md': null });
    await page.evaluate(() => localStorage.setItem('test.permission', 'prompt'));
    await page.reload();
    await expect.poll(() => linked().getByRole('listitem').textContent()).toContain('the browser asks again before it is read');
    expect(await names()).toEqual(['boiler.md', 'lease.md', 'loan.md', 'shed.md']);
    expect(await page.evaluate(() => (window as unknown as { __asked: number }).__asked)).toBe(0);
    await linked().getByRole('button', { name: 'Sync Contracts' }).click();
    await expect.poll(activity).toContain('Contracts: 1 removed, 3 unchanged');
    expect(await page.evaluate(() => (window as unknown as { __asked: number }).__asked)).toBe(1);
    // A sync says what it changed, not how many files the folder holds.
    expect(await activity()).not.toContain('Adding');
    await expect.poll(names).toEqual(['boiler.md', 'lease.md', 'shed.md']);
    await page.screenshot({ path: '/tmp/linked-folder.png' });

    // Unlinked: the documents stay, the link goes, and the next start syncs nothing.
    await linked().getByRole('button', { name: 'Unlink Contracts' }).click();
    await expect.poll(() => linked().count()).toBe(0);
    expect(await activity()).toContain('Contracts is no longer linked: its documents stay in the library');
    expect(await names()).toEqual(['boiler.md', 'lease.md', 'shed.md']);
  });
});
