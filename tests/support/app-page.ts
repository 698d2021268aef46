import type { Page } from 'playwright-core';

/** Name and status text of every row of the Library list. */
export async function libraryStatus(page: Page): Promise<Array<{ name: string; status: string }>> {
  return page
    .getByRole('list', { name: 'Library' })
    .getByRole('listitem')
    .evaluateAll((rows) =>
      rows.map((row) => ({
        name: row.querySelector('.name')?.textContent ?? '',
        status: row.querySelector('.status')?.textContent ?? '',
      })),
    );
}

/** Waits until `count` rows say "Indexed" and nothing is queued or indexing. */
export async function waitForIndexed(page: Page, count: number, timeout = 60_000): Promise<void> {
  await page.waitForFunction(
    (n) => {
      const rows = [...document.querySelectorAll('ul[aria-label="Library"] > li .status')].map((s) => s.textContent ?? '');
      return rows.filter((s) => s === 'Indexed').length === n && !rows.some((s) => s === 'Queued' || s.startsWith('Indexing'));
    },
    count,
    { timeout },
  );
}

/** Waits until nothing is queued or indexing. */
export async function waitForQueueEmpty(page: Page, timeout = 60_000): Promise<void> {
  await page.waitForFunction(
    () => {
      const rows = [...document.querySelectorAll('ul[aria-label="Library"] > li .status')].map((s) => s.textContent ?? '');
      return rows.length > 0 && !rows.some((s) => s === 'Queued' || s.startsWith('Indexing'));
    },
    undefined,
    { timeout },
  );
}

/** Asks a question through the UI and returns the Answer region's text once the new answer shows. */
export async function askQuestion(page: Page, question: string): Promise<string> {
  const answer = page.getByRole('region', { name: 'Answer' });
  const before = (await answer.getAttribute('data-seq')) ?? '0';
  await page.getByLabel('Ask a question').fill(question);
  await page.getByRole('button', { name: 'Ask' }).click();
  await page.waitForFunction((seq) => document.querySelector('section[aria-label="Answer"]')?.getAttribute('data-seq') !== seq, before, { timeout: 30_000 });
  return (await answer.textContent()) ?? '';
}
