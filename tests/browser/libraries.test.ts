import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askQuestion, dropFile, libraryStatus, statusWhenDone } from '../support/app-page.ts';
import { openSession, removeProfile, serveApp, useApp, type Page, type Served } from '../support/browser.ts';

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
    // The new library opens, empty; its name is in the header.
    // The load is awaited from before the click: a quick reload could end before a wait set up after it.
    await Promise.all([page.waitForEvent('load'), dialog.getByRole('button', { name: 'Create and open' }).click()]);
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
    // The load is awaited from before the click: a quick reload could end before a wait set up after it.
    await Promise.all([page.waitForEvent('load'), dialog.getByRole('button', { name: 'Open My library' }).click()]);
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

/** Two tabs of one browser: each indexes and answers from the library it has open. */
describe('two tabs with different libraries open', () => {
  let served: Served;
  let session: Awaited<ReturnType<typeof openSession>>;
  let a: Page;
  let b: Page;

  beforeAll(async () => {
    served = await serveApp();
    session = await openSession();
    a = await session.newPage();
    b = await session.newPage();
    await a.goto(served.url);
    await b.goto(served.url);
  });
  afterAll(async () => {
    await session?.close();
    await served?.close();
    await removeProfile(session.profileDir);
  });

  it('index at the same time, each in its own library, and a library deleted in one tab is closed in the other', async () => {
    await expect.poll(() => headerName(b)).toBe('My library');
    const dialog = await openLibrariesDialog(b);
    await dialog.getByLabel('New library name').fill('Course');
    // The load is awaited from before the click: a quick reload could end before a wait set up after it.
    await Promise.all([b.waitForEvent('load'), dialog.getByRole('button', { name: 'Create and open' }).click()]);
    await expect.poll(() => headerName(b)).toBe('Course');
    // Each tab is the writer of its own library: both drops are indexed at once.
    await a.bringToFront();
    await dropFile(a, 'boiler.md', md('# Boiler\n\nThe boiler was serviced in May by the plumber.\n'));
    await b.bringToFront();
    await dropFile(b, 'syllabus.md', md('# Syllabus\n\nThe exam on thermodynamics is held in week twelve.\n'));
    expect(await statusWhenDone(a, 'boiler.md')).toBe('Indexed');
    expect(await statusWhenDone(b, 'syllabus.md')).toBe('Indexed');
    expect((await libraryStatus(a)).map((r) => r.name)).toEqual(['boiler.md']);
    expect((await libraryStatus(b)).map((r) => r.name)).toEqual(['syllabus.md']);
    expect(await askQuestion(a, 'When is the thermodynamics exam?')).not.toContain('week twelve');
    expect(await askQuestion(b, 'When is the thermodynamics exam?')).toContain('week twelve');

    // Tab A deletes the library tab B has open: B is told, A frees it.
    await a.bringToFront();
    const inA = await openLibrariesDialog(a);
    await inA.getByRole('button', { name: 'Delete Course' }).click();
    await inA.getByRole('button', { name: 'Yes, delete Course' }).click();
    await expect.poll(() => inA.getByRole('status').textContent(), { timeout: 30_000 }).toMatch(/^"Course" deleted with all its documents and conversations/);
    await expect.poll(() => b.locator('body').textContent()).toContain('deleted');
    // B, loaded again, opens the library that is left.
    await b.reload();
    await expect.poll(() => headerName(b), { timeout: 30_000 }).toBe('My library');
    await expect.poll(async () => (await libraryStatus(b)).map((r) => r.name)).toEqual(['boiler.md']);
  });
});
