// A library as one file, in real Chromium: exported from one browser profile and imported in a fresh one,
// the same question gives the same answer from the same sources; a damaged file is refused with what is
// wrong and creates nothing; a tab closed mid-import leaves no half library, and the next start says so.
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askQuestion, dropFile, libraryStatus, sourcePaths, waitForIndexed } from '../support/app-page.ts';
import { openSession, removeProfile, serveApp, type Page, type Served } from '../support/browser.ts';
import { makeLibraryFile } from '../support/library-file-fixtures.ts';

const md = (text: string) => new TextEncoder().encode(text);
const headerName = (page: Page) => page.locator('.current-library strong').textContent();

async function openLibrariesDialog(page: Page) {
  await page.getByRole('button', { name: 'Libraries' }).click();
  return page.getByRole('dialog', { name: 'Libraries' });
}

const fileSection = (page: Page) => page.getByRole('dialog', { name: 'Libraries' }).getByRole('region', { name: 'Library file' });
const listed = (page: Page) => page.getByRole('dialog', { name: 'Libraries' }).getByRole('list', { name: 'Libraries' }).getByRole('listitem').locator('bdi').allTextContents();

describe('library file', () => {
  let served: Served;
  const profiles: Array<Awaited<ReturnType<typeof openSession>>> = [];
  const fresh = async () => {
    const session = await openSession();
    profiles.push(session);
    const page = await session.newPage();
    await page.goto(served.url);
    await expect.poll(() => headerName(page)).toBe('My library');
    return page;
  };

  beforeAll(async () => {
    served = await serveApp();
  });
  afterAll(async () => {
    for (const s of profiles) {
      await s.close().catch(() => undefined);
      await removeProfile(s.profileDir);
    }
    await served?.close();
  });

  it('exported from one profile and imported in a fresh one, answers the same question from the same sources', async () => {
    const a = await fresh();
    await dropFile(a, 'lease.md', md('# Lease\n\nThe tenant pays the rent on the first day of each month.\n\nThe deposit is returned within two months after the keys are handed back.\n'));
    await dropFile(a, 'heating.md', md('# Heating\n\nThe landlord repairs the boiler within three days of a written notice.\n'));
    await waitForIndexed(a, 2);
    const question = 'When is the deposit returned?';
    const answer = await askQuestion(a, question);
    expect(answer).toContain('within two months');
    const sources = await sourcePaths(a);

    await openLibrariesDialog(a);
    const download = a.waitForEvent('download');
    await fileSection(a).getByRole('button', { name: 'Export this library' }).click();
    const saved = await download;
    expect(saved.suggestedFilename()).toBe('My library.docqa.zip');
    await expect.poll(() => fileSection(a).getByRole('status').textContent()).toMatch(/^Saved My library\.docqa\.zip \(\d+ KB\): 2 documents, 1 conversation\.$/);
    const file = await readFile((await saved.path())!);

    const b = await fresh();
    await openLibrariesDialog(b);
    await fileSection(b).getByLabel('Import a library').setInputFiles({ name: 'My library.docqa.zip', mimeType: 'application/zip', buffer: file });
    await expect.poll(() => fileSection(b).getByRole('status').textContent(), { timeout: 30_000 }).toMatch(/^Imported "My library \(2\)" from My library\.docqa\.zip: 2 documents, 1 conversation\./);
    expect(await listed(b)).toEqual(['My library', 'My library (2)']);
    await b.screenshot({ path: '/tmp/library-file.png' });
    // The load is awaited from before the click: a quick reload could end before a wait set up after it.
    await Promise.all([b.waitForEvent('load'), fileSection(b).getByRole('button', { name: 'Open My library (2)' }).click()]);
    await expect.poll(() => headerName(b)).toBe('My library (2)');
    await expect.poll(async () => (await libraryStatus(b)).map((r) => [r.name, r.status]).sort()).toEqual([
      ['heating.md', 'Indexed'],
      ['lease.md', 'Indexed'],
    ]);
    expect(await askQuestion(b, question)).toBe(answer);
    expect(await sourcePaths(b)).toEqual(sources);
    // The conversation came with it (the question asked again here is a second one).
    await expect.poll(() => b.getByRole('navigation', { name: 'Conversations' }).getByRole('listitem').filter({ hasText: question }).count()).toBe(2);
  });

  it('refuses a damaged file with what is wrong, and creates no library', async () => {
    const page = await fresh();
    const file = await makeLibraryFile(3, 'Notes');
    await openLibrariesDialog(page);
    await fileSection(page).getByLabel('Import a library').setInputFiles({ name: 'notes.docqa.zip', mimeType: 'application/zip', buffer: Buffer.from(file.subarray(0, file.length - 200)) });
    await expect.poll(() => fileSection(page).getByRole('status').textContent()).toBe('This file was not imported: it is not a ZIP archive, or it was cut short (its end record is missing): export the library again.');
    expect(await listed(page)).toEqual(['My library']);
    expect((await page.evaluate(async () => (await indexedDB.databases()).map((d) => d.name))).filter((n) => n?.startsWith('docqa-library-'))).toEqual([]);
  });

  it('a tab closed mid-import leaves no half library; the next start removes what it wrote and says so', async () => {
    const page = await fresh();
    // Many small parts: the import writes a part per transaction and says how far it has got after each.
    const file = await makeLibraryFile(1500, 'Big notes', 16 * 1024);
    await openLibrariesDialog(page);
    await fileSection(page).getByLabel('Import a library').setInputFiles({ name: 'big.docqa.zip', mimeType: 'application/zip', buffer: Buffer.from(file) });
    await page.waitForFunction(() => /^Importing: [1-9][\d,]* of 1,500 documents/.test(document.querySelector('section[aria-label="Library file"] [role="status"]')?.textContent ?? ''), undefined, { polling: 20, timeout: 30_000 });
    const context = page.context();
    const databases = (p: Page) => p.evaluate(async () => (await indexedDB.databases()).map((d) => d.name).filter((n) => n?.startsWith('docqa-library-')));
    await page.close();

    const again = await context.newPage();
    await again.goto(served.url);
    await expect.poll(() => again.getByRole('status').filter({ hasText: 'was cut short' }).textContent(), { timeout: 30_000 }).toBe(
      'The import of "Big notes" was cut short (the tab was closed or the browser stopped) and what it had written was removed: import the file again.Dismiss',
    );
    expect(await databases(again)).toEqual([]);
    await openLibrariesDialog(again);
    expect(await listed(again)).toEqual(['My library']);
  });
});
