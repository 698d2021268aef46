import { describe, expect, it } from 'vitest';
import { useApp, type Page } from '../support/browser.ts';
import { writeTree } from '../support/fixture-folder.ts';

const COUNT = 450;

/** aria-posinset of the row holding the focus, or 0 when the focus is outside the Library list. */
const focusedRow = (page: Page) => page.evaluate(() => Number(document.activeElement?.closest('ul[aria-label="Library"] > li')?.getAttribute('aria-posinset') ?? 0));

/** Past 250 documents the Library renders only the rows in view; the keyboard must still reach them all. */
describe('a library of more than 250 documents', () => {
  const app = useApp();

  it('renders a window of rows, and Tab and Shift+Tab walk through rows that were not rendered yet', async () => {
    const { page } = app;
    const files: Record<string, string> = {};
    for (let i = 0; i < COUNT; i++) files[`n${String(i).padStart(5, '0')}.txt`] = `Note ${i} keeps the number ${i * 7919}.`;
    await page.getByLabel('Add a folder').setInputFiles(await writeTree(files, 'many'));
    await page.getByRole('heading', { name: `Library (${COUNT} documents)` }).waitFor({ timeout: 300_000 });
    await page.getByRole('status').filter({ hasText: /^Ready$/ }).waitFor({ timeout: 300_000 });
    const rendered = () => page.getByRole('list', { name: 'Library' }).getByRole('listitem').count();
    expect(await rendered()).toBeLessThan(100);

    await page.getByRole('list', { name: 'Library' }).getByRole('listitem').first().getByRole('button').first().focus();
    const visited = new Set<number>();
    // As fast as the key can be sent: each Tab lands on the next control, rendered or not (three a row:
    // its selection box, its tags, Delete).
    for (let i = 0; i < 160; i++) {
      await page.keyboard.press('Tab');
      visited.add(await focusedRow(page));
    }
    expect(visited.has(0)).toBe(false);
    expect(Math.max(...visited)).toBeGreaterThanOrEqual(50);
    expect(await rendered()).toBeLessThan(100);
    const deepest = await focusedRow(page);
    for (let i = 0; i < 100; i++) {
      await page.keyboard.press('Shift+Tab');
      expect(await focusedRow(page)).toBeGreaterThan(0);
    }
    expect(await focusedRow(page)).toBeLessThan(deepest - 25);

    // Scrolled to the end, the last row is there.
    await page.locator('.rows.windowed').evaluate((box) => (box.scrollTop = box.scrollHeight));
    await page.locator(`ul[aria-label="Library"] > li[aria-posinset="${COUNT}"]`).waitFor();
  });
});
