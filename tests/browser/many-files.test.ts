import { describe, expect, it } from 'vitest';
import { useApp } from '../support/browser.ts';
import { askQuestion, libraryStatus } from '../support/app-page.ts';
import { writeTree } from '../support/fixture-folder.ts';
import { longText } from '../support/fixtures.ts';

describe('1,000 small files in one drop', () => {
  const app = useApp();

  it('indexes all of them, with overall progress, and stays responsive', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 1000; i++) files[`box-${Math.floor(i / 100)}/note-${i}.txt`] = `Note ${i}\n\nShelf ${i} holds the ${['blue', 'red', 'green', 'amber'][i % 4]} folder number ${i * 3}.`;
    // A freeze detector, not a speed test: records the longest gap between 50 ms timer ticks.
    await app.page.evaluate(() => {
      const w = window as unknown as { maxGap: number };
      w.maxGap = 0;
      let last = performance.now();
      setInterval(() => {
        const now = performance.now();
        w.maxGap = Math.max(w.maxGap, now - last);
        last = now;
      }, 50);
    });
    await app.page.getByLabel('Add a folder').setInputFiles(await writeTree(files, 'notes'));
    await app.page.waitForFunction(() => /Indexing: \d+ of 1000 files done/.test(document.querySelector('[role="status"]')?.textContent ?? ''), undefined, { timeout: 60_000 });
    // A large drop gets an estimate of the time left.
    await app.page.waitForFunction(() => /Indexing: \d+ of 1000 files done, about \d+ (s|min) left/.test(document.querySelector('[role="status"]')?.textContent ?? ''), undefined, { timeout: 60_000 });
    // The page answers input while the worker indexes.
    await app.page.getByLabel('Ask a question').fill('still typing');
    await expect(app.page.getByLabel('Ask a question').inputValue()).resolves.toBe('still typing');
    // Files indexed so far are searchable while the rest of the drop is still being ingested: a large
    // file dropped next keeps the writer busy for a while after the 1,000 notes are done.
    await app.page.getByLabel('Add documents').setInputFiles(await writeTree({ 'ledger.txt': longText(30) }, 'big').then((d) => `${d}/ledger.txt`));
    // The list is windowed at this size: the heading counts the documents indexed.
    await app.page.getByRole('heading', { name: 'Library (1,000 documents)' }).waitFor({ timeout: 170_000 });
    // Asked while the ledger is still queued or indexing (its commit may finish before the answer
    // arrives: the answer's reads wait for the ledger's write transaction).
    await app.page.getByLabel('Filter documents').fill('ledger');
    await app.page.waitForFunction(() => document.querySelectorAll('ul[aria-label="Library"] > li').length === 1);
    const ledgerStatus = (await libraryStatus(app.page)).find((r) => r.name === 'ledger.txt')?.status;
    expect(ledgerStatus).toMatch(/^(Queued|Indexing \d+%)$/);
    await app.page.getByLabel('Filter documents').fill('');
    expect(await askQuestion(app.page, 'which folder is on shelf 777')).toContain('folder number 2331');
    await app.page.getByRole('heading', { name: 'Library (1,001 documents)' }).waitFor({ timeout: 170_000 });
    await app.page.getByRole('status').filter({ hasText: /^Ready$/ }).waitFor({ timeout: 60_000 });
    // The page never froze: no gap between ticks anywhere near the seconds a blocked UI shows
    // (before events were batched, one gap was 56 s).
    expect(await app.page.evaluate(() => (window as unknown as { maxGap: number }).maxGap)).toBeLessThan(2000);
    // Every row is there to scroll to: the list says how many it holds.
    expect(await app.page.locator('ul[aria-label="Library"] > li').first().getAttribute('aria-setsize')).toBe('1001');
  });
});
