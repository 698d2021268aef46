import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSession, removeProfile, serveApp, type Page, type Served } from '../support/browser.ts';
import { askQuestion, libraryStatus, waitForIndexed, waitForQueueEmpty } from '../support/app-page.ts';
import { writeTree } from '../support/fixture-folder.ts';

describe('two tabs on the same library', () => {
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

  it('files dropped in both tabs at once are each indexed exactly once, and both tabs see them', async () => {
    const setA: Record<string, string> = {};
    const setB: Record<string, string> = {};
    for (let i = 0; i < 15; i++) {
      setA[`a-${i}.md`] = `# Alpha ${i}\n\nThe alpha courier ${i} delivers parcels to dock ${i + 40}.`;
      setB[`b-${i}.md`] = `# Beta ${i}\n\nThe beta pilot ${i} lands on runway ${i + 70}.`;
    }
    // The same file in both drops must still end up once.
    setA['shared.md'] = setB['shared.md'] = '# Shared\n\nBoth tabs dropped this memo about the quarterly lighthouse inspection.';
    const [dirA, dirB] = await Promise.all([writeTree(setA, 'alpha'), writeTree(setB, 'beta')]);
    // One drop right after the other: both tabs enqueue while the writer tab is already indexing.
    await a.bringToFront();
    await a.getByLabel('Add a folder').setInputFiles(dirA);
    await b.bringToFront();
    await b.getByLabel('Add a folder').setInputFiles(dirB);
    await Promise.all([waitForQueueEmpty(a), waitForQueueEmpty(b)]);
    for (const page of [a, b]) {
      const rows = await libraryStatus(page);
      expect(rows.filter((r) => r.status !== 'Indexed')).toEqual([]);
      expect(rows.map((r) => r.name).sort()).toEqual([...Object.keys(setA), ...Object.keys(setB).filter((n) => n !== 'shared.md')].sort());
    }
    expect(await askQuestion(b, 'alpha courier 7 dock')).toContain('dock 47');
    expect(await askQuestion(a, 'beta pilot 3 runway')).toContain('runway 73');
  });

  it('a delete in one tab shows in the other, whose answers no longer use the document', async () => {
    await b.bringToFront();
    const row = b.getByRole('list', { name: 'Library' }).getByRole('listitem').filter({ hasText: 'a-7.md' });
    await row.getByRole('button', { name: 'Delete' }).click();
    await waitForIndexed(a, 30);
    const answer = await askQuestion(a, 'alpha courier 7 dock');
    expect(answer).not.toContain('dock 47');
  });
});
