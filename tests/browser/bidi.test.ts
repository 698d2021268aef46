import { describe, expect, it } from 'vitest';
import type { Locator } from 'playwright-core';
import { useApp } from '../support/browser.ts';
import { askQuestion, libraryStatus, waitForIndexed } from '../support/app-page.ts';

/** A Hebrew word ("summary"), then U+202E RIGHT-TO-LEFT OVERRIDE, which reverses everything after it. */
const NAME = 'סיכום\u202Ebudget.txt';
const FILE = {
  name: NAME,
  mimeType: 'text/plain',
  buffer: Buffer.from('The quarterly budget was approved by the board.\nשלום עולם, the minutes follow.'),
};

/** Screen x of the first `first` and the first `second` after it in the element's text, as laid out. */
async function xOf(locator: Locator, first: string, second: string): Promise<[number, number]> {
  return locator.evaluate(
    (el, { a, b }) => {
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      const nodes: Text[] = [];
      for (let n = walker.nextNode(); n; n = walker.nextNode()) nodes.push(n as Text);
      const x = (s: string, after?: { node: Text; at: number }) => {
        for (const node of nodes) {
          if (after && node.compareDocumentPosition(after.node) & Node.DOCUMENT_POSITION_FOLLOWING) continue;
          const at = node.data.indexOf(s, after?.node === node ? after.at + 1 : 0);
          if (at < 0) continue;
          const range = document.createRange();
          range.setStart(node, at);
          range.setEnd(node, at + s.length);
          return { node, at, left: range.getBoundingClientRect().left };
        }
        throw new Error(`"${s}" not found in ${el.textContent}`);
      };
      const p = x(a);
      return [p.left, x(b, p).left] as [number, number];
    },
    { a: first, b: second },
  );
}

const isolated = (locator: Locator) => locator.evaluate((el) => el.tagName === 'BDI' && getComputedStyle(el).unicodeBidi === 'isolate');

describe('right-to-left names and bidi control characters stay in their place', () => {
  const app = useApp();

  it('shows the file name isolated in its row, and "Indexed" as is', async () => {
    await app.page.getByLabel('Add documents').setInputFiles(FILE);
    await waitForIndexed(app.page, 1);
    expect(await libraryStatus(app.page)).toEqual([{ name: NAME, status: 'Indexed' }]);
    await expect(isolated(app.page.locator('ul[aria-label="Library"] .name bdi'))).resolves.toBe(true);
  });

  it('keeps the citation label "lines 1–2" in reading order next to the name, in Sources and the Source dialog', async () => {
    expect(await askQuestion(app.page, 'Who approved the quarterly budget?')).toContain('approved by the board');
    const label = app.page.getByRole('list', { name: 'Sources' }).locator('.source-name').first();
    await expect(label.textContent()).resolves.toBe(`[1] ${NAME}, lines 1–2`);
    await expect(isolated(label.locator('.source-title'))).resolves.toBe(true);
    await expect(isolated(app.page.getByRole('list', { name: 'Sources' }).locator('.source-path').first())).resolves.toBe(true);
    const [one, two] = await xOf(label, '1–2', '2');
    expect(one).toBeLessThan(two);
    const [path, lines] = await xOf(label, 'budget', 'lines');
    expect(path).toBeLessThan(lines);
    const segment = app.page.getByRole('region', { name: 'Answer' }).locator('bdi').first();
    await expect(segment.textContent()).resolves.toContain('approved by the board');
    await app.page.screenshot({ path: '/tmp/bidi.png', fullPage: true });

    await app.page.getByRole('region', { name: 'Answer' }).getByRole('link', { name: '[1]' }).click();
    const heading = app.page.getByRole('dialog', { name: 'Source' }).locator('h2');
    await expect(heading.textContent()).resolves.toBe(`${NAME} — lines 1–2`);
    const [dOne, dTwo] = await xOf(heading, '1–2', '2');
    expect(dOne).toBeLessThan(dTwo);
    await app.page.screenshot({ path: '/tmp/bidi-dialog.png' });
    await app.page.keyboard.press('Escape');
  });

  it('keeps "already in library" readable after the name in the Activity list', async () => {
    await app.page.getByLabel('Add documents').setInputFiles(FILE);
    const line = app.page.getByRole('list', { name: 'Activity' }).getByRole('listitem').filter({ hasText: ': already in library' });
    await line.waitFor();
    await expect(line.textContent()).resolves.toBe(`${NAME}: already in library`);
    const [already, library] = await xOf(line, 'already', 'library');
    expect(already).toBeLessThan(library);
  });
});
