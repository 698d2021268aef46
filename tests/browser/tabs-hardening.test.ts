import { DB_VERSION } from '../../src/store/schema.ts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openSession, removeProfile, serveApp, type Page, type Served, type Session } from '../support/browser.ts';
import { askQuestion, libraryStatus, waitForIndexed } from '../support/app-page.ts';
import { writeTree } from '../support/fixture-folder.ts';

type OpenSession = Session & { profileDir: string };

/** Waits until the page's library worker has opened the library (the main region is no longer busy). */
async function waitForReady(page: Page): Promise<void> {
  await page.locator('main[aria-busy="false"]').waitFor({ timeout: 30_000 });
}

/** Every Library row of `page` says "Indexed", and each of `names` is listed exactly once. */
async function expectIndexedOnce(page: Page, names: readonly string[]): Promise<void> {
  const rows = await libraryStatus(page);
  expect(rows.filter((r) => r.status !== 'Indexed')).toEqual([]);
  expect(rows.map((r) => r.name).sort()).toEqual([...names].sort());
}

/**
 * Picks each of `files` with "Add documents", one pick after the other, at wall-clock time `at`
 * (milliseconds since the epoch): the page builds the files first, then waits for the moment, so that
 * pages given the same `at` add at once.
 */
async function addFilesAt(page: Page, at: number, files: ReadonlyArray<{ name: string; text: string }>): Promise<void> {
  await page.getByLabel('Add documents').evaluate(
    (input: HTMLInputElement, { at, files }) => {
      const picks = files.map(({ name, text }) => {
        const picked = new DataTransfer();
        picked.items.add(new File([text], name, { type: 'text/markdown' }));
        return picked.files;
      });
      while (Date.now() < at) {
        // Spin: a timer could fire several milliseconds late.
      }
      for (const picked of picks) {
        input.files = picked;
        input.dispatchEvent(new Event('change', { bubbles: true }));
      }
    },
    { at, files },
  );
}

/** The version of the app's database as seen from `page`, or undefined when there is none. */
function dbVersion(page: Page): Promise<number | undefined> {
  return page.evaluate(async () => (await indexedDB.databases()).find((d) => d.name === 'docqa')?.version);
}

describe('two tabs under stress, and database upgrades across tabs', () => {
  let served: Served;
  let session: OpenSession | undefined;

  beforeAll(async () => {
    served = await serveApp();
  });
  afterEach(async () => {
    // Each test has a profile of its own, so no database or lock outlives it.
    if (!session) return;
    await session.close();
    await removeProfile(session.profileDir);
    session = undefined;
  });
  afterAll(async () => {
    await served?.close();
  });

  /** A page open on the app, ready, in this test's profile (created with the first page). */
  async function openTab(): Promise<Page> {
    session ??= await openSession();
    const page = await session.newPage();
    await page.goto(served.url);
    await waitForReady(page);
    return page;
  }

  it('files added in both tabs at the same instant, 40 rounds running, are each indexed exactly once', async () => {
    const a = await openTab();
    const b = await openTab();
    const fileOf = (tab: 'alpha' | 'beta', round: number, n: number) => ({
      name: `${tab}-${String(round).padStart(2, '0')}-${n}.md`,
      text: `# ${tab} round ${round} file ${n}\n\nThe ${tab} ferry ${round}${n ? ' return' : ''} leaves from pier ${round + 500 + n * 100}.\n`,
    });
    const names: string[] = [];
    for (let round = 0; round < 40; round++) {
      const fa = [fileOf('alpha', round, 0), fileOf('alpha', round, 1)];
      const fb = [fileOf('beta', round, 0), fileOf('beta', round, 1)];
      names.push(...[...fa, ...fb].map((f) => f.name));
      // Both tabs add two files (two picks) at the same wall-clock millisecond (pages share the clock):
      // the enqueues race, as real simultaneous drops do. The gap lets the writer finish the last round
      // first, so both tabs' workers are idle and their enqueues mostly land in the same millisecond (with
      // per-tab sequence numbers as queue keys, as before, files were lost in every one of three runs).
      const at = Date.now() + 150;
      await Promise.all([addFilesAt(a, at, fa), addFilesAt(b, at, fb)]);
    }
    // A lost file never shows up: give up waiting after a while and let the list comparison say which.
    await Promise.all([a, b].map((page) => waitForIndexed(page, names.length, 30_000).catch(() => undefined)));
    await expectIndexedOnce(a, names);
    await expectIndexedOnce(b, names);
    expect(names).toHaveLength(160);
    expect(await askQuestion(a, 'beta ferry 0 pier')).toContain('pier 500');
    expect(await askQuestion(b, 'alpha ferry 39 return pier')).toContain('pier 639');
  });

  it('when the writer tab closes mid-queue, the other tab takes over and finishes the queue', async () => {
    const a = await openTab();
    const b = await openTab();
    const files: Record<string, string> = {};
    for (let i = 0; i < 60; i++) {
      const filler = Array.from({ length: 120 }, (_, j) => `Routine paragraph ${j} of memo ${i} repeats ordinary office matters without news.`).join('\n\n');
      files[`memo-${String(i).padStart(2, '0')}.txt`] = `Memo ${i}\n\nThe locker code for changing room ${i} is anchor-${i * 11 + 5}.\n\n${filler}`;
    }
    // Tab A opened first, so it holds the writer lock and indexes what either tab adds.
    await a.bringToFront();
    await a.getByLabel('Add a folder').setInputFiles(await writeTree(files, 'memos'));
    await a.waitForFunction(() => [...document.querySelectorAll('ul[aria-label="Library"] .status')].filter((s) => s.textContent === 'Indexed').length >= 3, undefined, { timeout: 60_000 });
    const before = await libraryStatus(b);
    expect(before.filter((r) => r.status === 'Queued').length).toBeGreaterThan(20);
    await a.close();

    // A file left behind never gets indexed: give up waiting after a while and let the comparison say which.
    await waitForIndexed(b, 60, 45_000).catch(() => undefined);
    await expectIndexedOnce(b, Object.keys(files));
    // The progress line ends too: nothing is left "Indexing" from the tab that went away.
    await b.getByRole('status').filter({ hasText: /^Ready$/ }).waitFor({ timeout: 5_000 });
    expect(await askQuestion(b, 'locker code for changing room 58')).toContain('anchor-643');
  });

  it('a newer version of the app opening the database in another tab is not kept waiting, and this tab says to reload', async () => {
    const app = await openTab();
    if (!session) throw new Error('no session');
    const newer = await session.newPage();
    await newer.goto(new URL('/icon.svg', served.url).href);
    const outcome = await newer.evaluate(
      (version) =>
        new Promise<string>((resolve) => {
          const req = indexedDB.open('docqa', version);
          req.onupgradeneeded = () => req.result.createObjectStore('dummy');
          req.onsuccess = () => (req.result.close(), resolve('opened'));
          req.onerror = () => resolve(`error: ${String(req.error)}`);
          // An app tab that does not step aside keeps the upgrade waiting forever: give up, and say so.
          setTimeout(() => resolve('still waiting after 10 s'), 10_000);
        }),
      DB_VERSION + 1,
    );
    expect(outcome).toBe('opened');
    expect(await dbVersion(newer)).toBe(DB_VERSION + 1);
    const alert = app.getByRole('alert');
    await alert.waitFor({ timeout: 10_000 });
    expect(await alert.textContent()).toContain('updated in another tab');
    // The old tab gives up the writer lock too, so the newer version's tab can index its drops.
    const writerHeld = () => newer.evaluate(async () => !!(await navigator.locks.query()).held?.some((l) => l.name === 'docqa-writer'));
    await expect.poll(writerHeld, { timeout: 10_000 }).toBe(false);
  });

  it('an older version of the app in another tab blocking the upgrade is reported, and the app recovers once it goes', async () => {
    session = await openSession();
    const old = await session.newPage();
    await old.goto(new URL('/icon.svg', served.url).href);
    // The database as version 1 of the app left it, with one document, kept open by a tab that ignores
    // requests to close (no onversionchange handler).
    await old.evaluate(
      () =>
        new Promise<void>((resolve, reject) => {
          const req = indexedDB.open('docqa', 1);
          req.onupgradeneeded = () => {
            const db = req.result;
            db.createObjectStore('documents', { keyPath: 'id' }).createIndex('by-path', 'path');
            db.createObjectStore('manifests', { keyPath: 'docId' });
            db.createObjectStore('blocks', { keyPath: ['docId', 'index'] });
            db.createObjectStore('chunks', { keyPath: 'id' });
            db.createObjectStore('queue', { keyPath: 'id' });
            db.createObjectStore('snapshots', { keyPath: 'name' });
            const tx = req.transaction;
            if (!tx) return;
            const text = 'The old harbour lighthouse was painted green in the spring of 1921.';
            tx.objectStore('documents').put({ id: 'v1doc', name: 'harbour.txt', folder: '', path: 'harbour.txt', type: 'text', size: text.length, title: 'harbour', addedAt: 1, tags: [], chunkCount: 1 });
            tx.objectStore('manifests').put({ docId: 'v1doc', chunkIds: ['v1chunk'], blockCount: 1 });
            tx.objectStore('blocks').put({ docId: 'v1doc', index: 0, label: 'lines 1–1', text });
            tx.objectStore('chunks').put({ id: 'v1chunk', text, locations: [{ docId: 'v1doc', block: 0, start: 0, end: text.length, parentStart: 0, parentEnd: text.length, ordinal: 0 }] });
          };
          req.onsuccess = () => {
            (globalThis as unknown as { oldDb: IDBDatabase }).oldDb = req.result;
            resolve();
          };
          req.onerror = () => reject(req.error);
        }),
    );

    const app = await session.newPage();
    await app.goto(served.url);
    const alert = app.getByRole('alert');
    await alert.waitFor({ timeout: 10_000 });
    expect(await alert.textContent()).toContain('close or reload that tab');
    expect(await dbVersion(app)).toBe(1);

    // The old tab lets go: the upgrade finishes, the alert goes, and the library is all there.
    await old.evaluate(() => (globalThis as unknown as { oldDb: IDBDatabase }).oldDb.close());
    await waitForReady(app);
    await alert.waitFor({ state: 'detached', timeout: 10_000 });
    await waitForIndexed(app, 1, 10_000);
    expect(await dbVersion(app)).toBe(DB_VERSION);
    expect((await libraryStatus(app)).map((r) => r.name)).toEqual(['harbour.txt']);
    expect(await askQuestion(app, 'harbour lighthouse painted')).toContain('1921');

    // And a reload opens it as usual.
    await app.reload();
    await waitForReady(app);
    await waitForIndexed(app, 1, 10_000);
    await expect(app.getByRole('alert').count()).resolves.toBe(0);
    expect(await askQuestion(app, 'harbour lighthouse painted')).toContain('1921');
  });
});
