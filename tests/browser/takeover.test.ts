/**
 * A file whose reading ended the writing tab (its renderer crashed, as an out-of-memory does) is not
 * handed to the next open tab automatically: that tab takes over the queue, skips the file saying why,
 * and reads it only on Try again. A tab closed while reading hands its file over normally.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openSession, removeProfile, serveApp, type Page, type Served, type Session } from '../support/browser.ts';
import { askQuestion, libraryStatus, statusWhenDone } from '../support/app-page.ts';
import { writeTree } from '../support/fixture-folder.ts';
import { longText } from '../support/fixtures.ts';

const waitForReady = (page: Page) => page.locator('main[aria-busy="false"]').waitFor({ timeout: 30_000 });
const beingRead = (page: Page, name: string) =>
  page.waitForFunction((n) => [...document.querySelectorAll('ul[aria-label="Library"] > li')].some((li) => li.textContent?.includes(n) && /Indexing \d+%/.test(li.textContent)), name, { timeout: 60_000 });

describe('a tab taking over the queue', () => {
  let served: Served;
  let session: (Session & { profileDir: string }) | undefined;
  beforeAll(async () => {
    served = await serveApp();
  });
  afterEach(async () => {
    if (!session) return;
    await session.close();
    await removeProfile(session.profileDir);
    session = undefined;
  });
  afterAll(() => served?.close());

  async function openTab(): Promise<Page> {
    session ??= await openSession();
    const page = await session.newPage();
    await page.goto(served.url);
    await waitForReady(page);
    return page;
  }

  it('does not read the file the crashed writer was reading, says why, and reads it on Try again', async () => {
    // The first tab open takes the writer lock; the second waits for it.
    const writer = await openTab();
    const other = await openTab();
    const dir = await writeTree({
      'heavy.txt': longText(24, 'The quartermaster counts the lanterns in the north store.'),
      'after.md': '# After\n\nThe heron fishes at dawn beside the weir.\n',
    });
    await writer.getByLabel('Add documents').setInputFiles([`${dir}/heavy.txt`, `${dir}/after.md`]);
    await beingRead(writer, 'heavy.txt');
    // The writer's renderer dies mid-read, as an out-of-memory takes it down: no pagehide, no goodbye.
    const cdp = await writer.context().newCDPSession(writer);
    // Page.crash never answers (the page it would answer from is gone): not awaited.
    void cdp.send('Page.crash').catch(() => undefined);

    expect(await statusWhenDone(other, 'heavy.txt')).toBe(
      'heavy.txt: the app stopped in another tab while reading this file (it may need more memory than this device has), so it was not read again here. Press Try again to insist, or split it into smaller files',
    );
    expect(await statusWhenDone(other, 'after.md')).toBe('Indexed');
    await other.getByRole('button', { name: 'Try again heavy.txt' }).click();
    await other.waitForFunction(() => [...document.querySelectorAll('ul[aria-label="Library"] .status')].filter((s) => s.textContent === 'Indexed').length === 2, undefined, { timeout: 120_000 });
    expect(await askQuestion(other, 'quartermaster lanterns north store')).toContain('counts the lanterns in the north store');
  });

  it('reads the file of a writer tab that was closed mid-read, as if nothing happened', async () => {
    const writer = await openTab();
    const other = await openTab();
    const dir = await writeTree({ 'heavy.txt': longText(24, 'The quartermaster counts the lanterns in the north store.') });
    await writer.getByLabel('Add documents').setInputFiles(`${dir}/heavy.txt`);
    await beingRead(writer, 'heavy.txt');
    await writer.close({ runBeforeUnload: true });
    expect(await statusWhenDone(other, 'heavy.txt')).toBe('Indexed');
    expect((await libraryStatus(other)).map((r) => r.status)).toEqual(['Indexed']);
  });
});
