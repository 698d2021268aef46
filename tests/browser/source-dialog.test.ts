import { describe, expect, it } from 'vitest';
import { useApp } from '../support/browser.ts';
import { askQuestion, waitForIndexed } from '../support/app-page.ts';

const THINGS = ['laundry', 'garden', 'roof', 'elevator', 'mailbox', 'lobby', 'boiler', 'stairwell', 'attic', 'courtyard', 'parking', 'intercom'];
const VERBS = ['is cleaned', 'is inspected', 'is painted', 'is repaired', 'is checked', 'is swept'];
const WHEN = ['every Monday', 'each spring', 'twice a year', 'after storms', 'every month', 'before winter', 'on request'];

/** Forty paragraphs of house rules, none about bicycles, in one section; the bicycle rule comes near its end. */
function handbook(): string {
  const paragraphs = Array.from({ length: 40 }, (_, i) => {
    const thing = THINGS[i % THINGS.length]!;
    return `Rule ${i + 1}. The ${thing} ${VERBS[i % VERBS.length]} ${WHEN[i % WHEN.length]} by the caretaker. Residents report ${thing} problems to the office in writing.`;
  });
  paragraphs.splice(37, 0, 'Bicycles must be stored in the locked basement room next to the boiler. The key is kept by the caretaker.');
  paragraphs.splice(2, 0, 'Bicycles are never left in the entrance hall overnight.');
  return `# Handbook\n\n## House rules\n\n${paragraphs.join('\n\n')}\n`;
}

const QUOTED = 'Bicycles must be stored in the locked basement room next to the boiler.';

describe('a citation opens the Source dialog on the quoted sentence', () => {
  const app = useApp();

  it('marks exactly the quoted sentence of a tall section and scrolls it into view; Escape returns to [1]', async () => {
    await app.page.getByLabel('Add documents').setInputFiles({ name: 'handbook.md', mimeType: 'text/markdown', buffer: Buffer.from(handbook()) });
    await waitForIndexed(app.page, 1);
    expect(await askQuestion(app.page, 'Where must bicycles be stored?')).toContain(QUOTED);
    const first = app.page.getByRole('list', { name: 'Sources' }).getByRole('listitem').first();
    // Named by the document's title (its first heading), which its location starts with; the path below.
    await expect(first.locator('.source-name').textContent()).resolves.toBe('[1] Handbook › House rules');
    await expect(first.locator('.source-path').textContent()).resolves.toBe('handbook.md');
    const quoted = await first.locator('.hl').allTextContents();
    expect(quoted).toContain(QUOTED);

    const link = app.page.getByRole('region', { name: 'Answer' }).getByRole('link', { name: '[1]' });
    await link.click();
    const dialog = app.page.getByRole('dialog', { name: 'Source' });
    await dialog.waitFor();
    await expect(dialog.locator('h2').textContent()).resolves.toBe('handbook.md — Handbook › House rules');
    // One <mark> per quoted sentence of this passage, holding exactly it; the rest of the chunk is only tinted.
    await expect(dialog.locator('mark').allTextContents()).resolves.toEqual(quoted);
    await expect(dialog.locator('.source-text').textContent()).resolves.toContain('Rule 1. The laundry');
    // The section is taller than the dialog, and the mark is inside the dialog's viewport, below its header.
    const mark = dialog.locator('mark', { hasText: QUOTED });
    await app.page.waitForFunction(() => (document.querySelector('dialog.source')?.scrollTop ?? 0) > 0);
    const [box, header, markBox] = await Promise.all([dialog.boundingBox(), dialog.locator('header').boundingBox(), mark.boundingBox()]);
    expect(await dialog.evaluate((d) => d.scrollHeight > d.clientHeight * 2)).toBe(true);
    expect(markBox!.y).toBeGreaterThanOrEqual(header!.y + header!.height);
    expect(markBox!.y + markBox!.height).toBeLessThanOrEqual(box!.y + box!.height);

    await app.page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await expect(app.page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('[1]');
  });

  it('tells apart two sources from the same section by the first words of what they cite', async () => {
    await askQuestion(app.page, 'bicycles stored entrance hall basement');
    const names = await app.page.getByRole('list', { name: 'Sources' }).locator('.source-name').allTextContents();
    const sameSection = names.filter((n) => n.includes('Handbook › House rules'));
    expect(sameSection.length).toBeGreaterThan(1);
    expect(new Set(sameSection.map((n) => n.replace(/^\[\d+\] /, ''))).size).toBe(sameSection.length);
    expect(sameSection.join('\n')).toContain('“Bicycles');
  });

  it('shows a code block as code, in the source list and in the Source dialog', async () => {
    const md = '# Setup\n\n## Install\n\nRun the installer from a terminal:\n\n```sh\nnpm install --save harbourlog\nharbourlog init --port 8080\n```\n\nThen open the dashboard.\n';
    await app.page.getByLabel('Add documents').setInputFiles({ name: 'setup.md', mimeType: 'text/markdown', buffer: Buffer.from(md) });
    await waitForIndexed(app.page, 2);
    await askQuestion(app.page, 'harbourlog init port 8080');
    const source = app.page.getByRole('list', { name: 'Sources' }).getByRole('listitem').filter({ hasText: 'setup.md' }).first();
    expect(await source.locator('code.code-block').textContent()).toBe('npm install --save harbourlog\nharbourlog init --port 8080');
    await source.getByRole('button', { name: /^Open source \d+ in its document$/ }).click();
    const dialog = app.page.getByRole('dialog', { name: 'Source' });
    await dialog.waitFor();
    expect(await dialog.locator('code.code-block').textContent()).toBe('npm install --save harbourlog\nharbourlog init --port 8080');
    expect(await dialog.locator('code.code-block').evaluate((c) => getComputedStyle(c).fontFamily)).toMatch(/mono/i);
    await app.page.keyboard.press('Escape');
  });
});
