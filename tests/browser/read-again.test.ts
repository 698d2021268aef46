import { describe, expect, it } from 'vitest';
import { makePdf, SETTINGS_ROWS } from '../support/fixtures.ts';
import { useApp } from '../support/browser.ts';
import { askQuestion, waitForIndexed } from '../support/app-page.ts';

const SETTINGS = [
  'Server settings',
  '',
  'These settings are read when the server starts.',
  '',
  ...SETTINGS_ROWS,
];

/**
 * Makes the stored documents look stored by an app from before reader versions were kept (as every
 * document stored before this version is), with a tag the person gave them, in the app's own database.
 */
async function storedBeforeReaderVersions(page: import('playwright-core').Page): Promise<number> {
  return page.evaluate(
    () =>
      new Promise<number>((resolve, reject) => {
        const open = indexedDB.open('docqa');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const tx = open.result.transaction('documents', 'readwrite');
          const store = tx.objectStore('documents');
          let changed = 0;
          store.openCursor().onsuccess = (e) => {
            const cursor = (e.target as IDBRequest<IDBCursorWithValue | null>).result;
            if (!cursor) return;
            const { reader: _reader, ...doc } = cursor.value as { reader?: number; tags: string[] };
            cursor.update({ ...doc, tags: ['database'] });
            changed++;
            cursor.continue();
          };
          tx.oncomplete = () => {
            open.result.close();
            resolve(changed);
          };
          tx.onerror = () => reject(tx.error);
        };
      }),
  );
}

describe('documents stored by an older reader', () => {
  const app = useApp();

  it('are offered to be read again, wait after "Not now", and are read again in place with their tags', async () => {
    const page = app.page;
    await page.getByLabel('Add documents').setInputFiles({ name: 'settings.pdf', mimeType: 'application/pdf', buffer: Buffer.from(await makePdf([{ lines: SETTINGS }])) });
    await waitForIndexed(page, 1);
    const offer = page.getByRole('status').filter({ hasText: 'stored before this app could' });
    // Read by the newest reader: nothing to offer.
    expect(await offer.count()).toBe(0);

    expect(await storedBeforeReaderVersions(page)).toBe(1);
    await page.reload();
    await offer.waitFor({ timeout: 30_000 });
    expect(await offer.textContent()).toContain('1 document was stored before this app could read tables in PDFs row by row.');
    await page.screenshot({ path: '/tmp/read-again-offer.png' });

    // "Not now" is remembered: the offer does not come back at the next start.
    await offer.getByRole('button', { name: 'Not now' }).click();
    await offer.waitFor({ state: 'detached' });
    await page.reload();
    await page.getByRole('status').filter({ hasText: /^Ready$/ }).waitFor();
    await waitForIndexed(page, 1);
    expect(await offer.count()).toBe(0);

    // A newer reader offers it again (what was dismissed is forgotten here instead).
    await page.evaluate(() => localStorage.removeItem('docqa.readAgainDismissed'));
    await page.reload();
    await offer.waitFor({ timeout: 30_000 });
    await offer.getByRole('button', { name: 'Read again' }).click();
    const activity = page.getByRole('list', { name: 'Activity' });
    await activity.getByText('Done: 1 read again', { exact: true }).waitFor({ timeout: 60_000 });
    await waitForIndexed(page, 1);
    await offer.waitFor({ state: 'detached', timeout: 15_000 });
    // One document, its tag kept, and answering as before.
    await expect(page.getByLabel('Tags for settings.pdf').inputValue()).resolves.toBe('database');
    const answer = await askQuestion(page, 'What is the default of shared_buffers?');
    expect(answer).toContain('128 MB');
    expect(answer).not.toContain('work_mem');

    // Read by the newest reader now: nothing is offered at the next start either.
    await page.reload();
    await page.getByRole('status').filter({ hasText: /^Ready$/ }).waitFor();
    await waitForIndexed(page, 1);
    expect(await offer.count()).toBe(0);
  });
});
