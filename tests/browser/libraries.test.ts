import { describe, expect, it } from 'vitest';
import { askQuestion, dropFile, libraryStatus, statusWhenDone } from '../support/app-page.ts';
import { useApp, type Page } from '../support/browser.ts';

const md = (text: string) => new TextEncoder().encode(text);

async function openLibrariesDialog(page: Page) {
  await page.getByRole('button', { name: 'Libraries' }).click();
  return page.getByRole('dialog', { name: 'Libraries' });
}

/** Reads the current library's name from the header once the page has listed the libraries. */
const headerName = (page: Page) => page.locator('.current-library strong').textContent();

/** Several libraries: each its own database, with its own documents and conversations. */
describe('libraries', () => {
  const app = useApp();

  it('keeps a new library apart from "My library": create, open, rename, refuse a taken name, delete with its data', async () => {
    const { page } = app;
    // The library that existed before is "My library", with its documents.
    await dropFile(page, 'boiler.md', md('# Boiler\n\nThe boiler was serviced in May by the plumber.\n'));
    expect(await statusWhenDone(page, 'boiler.md')).toBe('Indexed');
    await expect.poll(() => headerName(page)).toBe('My library');

    let dialog = await openLibrariesDialog(page);
    await dialog.getByLabel('New library name').fill('Case 2041');
    await dialog.getByRole('button', { name: 'Create and open' }).click();
    // The new library opens, empty; its name is in the header.
    await page.waitForEvent('load');
    await expect.poll(() => headerName(page)).toBe('Case 2041');
    await page.waitForFunction(() => document.body.textContent?.includes('No documents yet'));
    await dropFile(page, 'lease.md', md('# Lease\n\nThe deposit is returned within thirty days after the keys are handed back.\n'));
    expect(await statusWhenDone(page, 'lease.md')).toBe('Indexed');
    expect((await libraryStatus(page)).map((r) => r.name)).toEqual(['lease.md']);
    expect(await askQuestion(page, 'When was the boiler serviced?')).not.toContain('serviced in May');

    // A second library of the same name (in any case) is refused with the reason.
    dialog = await openLibrariesDialog(page);
    await dialog.getByLabel('New library name').fill('my LIBRARY');
    await dialog.getByRole('button', { name: 'Create and open' }).click();
    await expect.poll(() => dialog.getByRole('status').textContent()).toBe('a library named "My library" already exists: choose another name');
    await dialog.getByRole('button', { name: 'Rename Case 2041' }).click();
    await dialog.getByLabel('New name for Case 2041').fill('Smith v. Jones');
    await dialog.getByRole('button', { name: 'Save name' }).click();
    await expect.poll(() => headerName(page)).toBe('Smith v. Jones');
    // The library open in this tab cannot be deleted from it.
    expect(await dialog.getByRole('button', { name: 'Delete Smith v. Jones' }).count()).toBe(0);
    await page.screenshot({ path: '/tmp/libraries.png' });

    // Back to "My library": its own documents, not the other's.
    await dialog.getByRole('button', { name: 'Open My library' }).click();
    await page.waitForEvent('load');
    await expect.poll(() => headerName(page)).toBe('My library');
    await expect.poll(async () => (await libraryStatus(page)).map((r) => r.name)).toEqual(['boiler.md']);
    expect(await askQuestion(page, 'When is the deposit returned?')).not.toContain('thirty days');
    expect(await askQuestion(page, 'When was the boiler serviced?')).toContain('serviced in May');

    // Deleting the other library removes its database and says what was freed.
    const databases = () => page.evaluate(async () => (await indexedDB.databases()).map((d) => d.name).sort());
    expect((await databases()).filter((n) => n?.startsWith('docqa-library-'))).toHaveLength(1);
    dialog = await openLibrariesDialog(page);
    await dialog.getByRole('button', { name: 'Delete Smith v. Jones' }).click();
    await dialog.getByRole('button', { name: 'Yes, delete Smith v. Jones' }).click();
    await expect.poll(() => dialog.getByRole('status').textContent()).toMatch(/^"Smith v\. Jones" deleted with all its documents and conversations \(\d+(\.\d)? (KB|MB) freed\)\.$/);
    expect(await dialog.getByRole('list', { name: 'Libraries' }).getByRole('listitem').count()).toBe(1);
    expect((await databases()).filter((n) => n?.startsWith('docqa-library-'))).toEqual([]);
    expect(await databases()).toContain('docqa');
  });
});
