import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSession, removeProfile, serveApp, type Served } from '../support/browser.ts';
import { askQuestion, libraryStatus, waitForIndexed } from '../support/app-page.ts';
import { writeTree } from '../support/fixture-folder.ts';

/** 200 text files, each ~20 KB with one unique fact, so the drop takes a while to index. */
function manyFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < 200; i++) {
    const filler = Array.from({ length: 120 }, (_, j) => `Routine paragraph ${j} of memo ${i} repeats ordinary office matters without news.`).join('\n\n');
    files[`memo-${String(i).padStart(3, '0')}.txt`] = `Memo ${i}\n\nThe vault code for archive room ${i} is harbour-${i * 7 + 3}.\n\n${filler}`;
  }
  return files;
}

describe('closing the tab mid-ingest', () => {
  let served: Served;
  let profileDir: string;

  beforeAll(async () => {
    served = await serveApp();
  });
  afterAll(async () => {
    await served?.close();
    if (profileDir) await removeProfile(profileDir);
  });

  it('resumes the remaining files on reopen, with nothing half-written or duplicated', async () => {
    const first = await openSession();
    profileDir = first.profileDir;
    const page = await first.newPage();
    await page.goto(served.url);
    await page.getByLabel('Add a folder').setInputFiles(await writeTree(manyFiles(), 'memos'));
    // Close the browser as soon as a few files are done and most are still queued.
    await page.waitForFunction(() => [...document.querySelectorAll('ul[aria-label="Library"] .status')].filter((s) => s.textContent === 'Indexed').length >= 3, undefined, { timeout: 60_000 });
    const before = await libraryStatus(page);
    expect(before.filter((r) => r.status === 'Queued').length).toBeGreaterThan(50);
    await first.close();

    const second = await openSession(profileDir);
    const again = await second.newPage();
    // Every text the progress line shows, in order, from the first frame on.
    await again.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { statusSeen: string[] }).statusSeen = seen;
      const look = () => {
        const text = document.querySelector('[role="status"]')?.textContent;
        if (text && text !== seen[seen.length - 1]) seen.push(text);
        requestAnimationFrame(look);
      };
      requestAnimationFrame(look);
    });
    await again.goto(served.url);
    await waitForIndexed(again, 200, 110_000);
    await again.getByRole('status').filter({ hasText: /^Ready$/ }).waitFor();
    // Loading first, then the resumed queue at once (never "Ready" while files wait), then "Ready".
    const seen = await again.evaluate(() => (window as unknown as { statusSeen: string[] }).statusSeen);
    expect(seen[0]).toBe('Loading the library…');
    expect(seen.slice(1, -1).every((t) => t.startsWith('Indexing: '))).toBe(true);
    expect(seen.length).toBeGreaterThan(2);
    expect(seen[seen.length - 1]).toBe('Ready');
    const rows = await libraryStatus(again);
    expect(rows).toHaveLength(200);
    expect(new Set(rows.map((r) => r.name)).size).toBe(200);
    const answer = await askQuestion(again, 'vault code for archive room 187');
    expect(answer).toContain('harbour-1312');
    await second.close();
  });
});
