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

/** Waits until `count` rows say "Indexed" (or "Indexed: …", with notes on pages) and nothing is queued or indexing. */
export async function waitForIndexed(page: Page, count: number, timeout = 60_000): Promise<void> {
  await page.waitForFunction(
    (n) => {
      const rows = [...document.querySelectorAll('ul[aria-label="Library"] > li .status')].map((s) => s.textContent ?? '');
      return rows.filter((s) => s === 'Indexed' || s.startsWith('Indexed: ')).length === n && !rows.some((s) => s === 'Queued' || /^(Indexing|Recognising text)\b/.test(s));
    },
    count,
    { timeout },
  );
}

/** Waits until nothing is queued or being read (indexing, or recognising a scan's text). */
export async function waitForQueueEmpty(page: Page, timeout = 60_000): Promise<void> {
  await page.waitForFunction(
    () => {
      const rows = [...document.querySelectorAll('ul[aria-label="Library"] > li .status')].map((s) => s.textContent ?? '');
      return rows.length > 0 && !rows.some((s) => s === 'Queued' || /^(Indexing|Recognising text)\b/.test(s));
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

/** Paths of the cited sources of the answer on show, in order. */
export async function sourcePaths(page: Page): Promise<string[]> {
  return page.locator('ol[aria-label="Sources"] .source-path').allTextContents();
}

/** Clicks Try again on every row that offers it, one after another; returns the names of those rows. */
export async function tryAgainAll(page: Page): Promise<string[]> {
  const retriable = page.getByRole('list', { name: 'Library' }).getByRole('listitem').filter({ has: page.getByRole('button', { name: 'Try again' }) });
  const names: string[] = [];
  for (let n = await retriable.count(); n > 0; n = await retriable.count()) {
    const row = retriable.first();
    names.push((await row.locator('.name').textContent()) ?? '');
    await row.getByRole('button', { name: 'Try again' }).click();
    // The row is queued again (no button) once the list refreshes.
    await page.waitForFunction((before) => [...document.querySelectorAll('ul[aria-label="Library"] button')].filter((b) => b.textContent?.trim() === 'Try again').length < before, n);
  }
  return names;
}

/** Drops one file, given as bytes, on the drop zone. */
export async function dropFile(page: Page, name: string, bytes: Uint8Array): Promise<void> {
  const transfer = await page.evaluateHandle(
    ([fileName, base64]) => {
      const dt = new DataTransfer();
      dt.items.add(new File([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], fileName, { type: 'application/pdf' }));
      return dt;
    },
    [name, Buffer.from(bytes).toString('base64')] as const,
  );
  await page.dispatchEvent('[aria-label="Drop documents here"]', 'drop', { dataTransfer: transfer });
}

/** Waits until the Library row of `name` is done (neither queued nor being read); returns its status. */
export async function statusWhenDone(page: Page, name: string): Promise<string> {
  const handle = await page.waitForFunction(
    (fileName) => {
      const row = [...document.querySelectorAll('ul[aria-label="Library"] > li')].find((li) => li.querySelector('.name')?.textContent === fileName);
      const status = row?.querySelector('.status')?.textContent ?? '';
      return status && status !== 'Queued' && !/^(Indexing|Recognising text)\b/.test(status) ? status : false;
    },
    name,
    { timeout: 60_000 },
  );
  return (await handle.jsonValue()) as string;
}
