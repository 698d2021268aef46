import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useApp } from '../support/browser.ts';
import { askQuestion, sourcePaths, waitForIndexed } from '../support/app-page.ts';
import { writeTree } from '../support/fixture-folder.ts';
import { makePdf } from '../support/fixtures.ts';
import { axeViolations, layoutReport } from '../support/page-checks.ts';
import { useScriptedGenerator } from '../support/scripted-answer.ts';

const PHONE = { width: 390, height: 844 };
const THEMES = ['light', 'dark'] as const;

/** A folder path and a file name as long as real ones get (a matter, a year, a long descriptive name). */
const FOLDER = 'Client matters/2026 Harbour Authority v. Northern Shipping Consolidated Holdings Limited/Correspondence and pleadings';
const ROOMS = ['laundry', 'garden', 'roof', 'elevator', 'mailbox', 'lobby', 'boiler', 'stairwell', 'attic', 'courtyard'];

/** 149 Markdown notes with long names (one an unbroken 90-character run) and a two-page PDF lease. */
async function library(): Promise<Record<string, Uint8Array | string>> {
  const files: Record<string, Uint8Array | string> = {};
  for (let i = 0; i < 149; i++) {
    const room = ROOMS[i % ROOMS.length]!;
    const name = i === 7 ? `${'UnbrokenReferenceNumber'.repeat(4)}-${i}.md` : `Inspection report ${i + 1} on the ${room} of the north harbour building with remarks by the caretaker.md`;
    files[`${FOLDER}/${i % 3 === 0 ? 'Older reports kept for the file/' : ''}${name}`] = `# Inspection ${i + 1}: ${room}\n\nThe ${room} was inspected on day ${i + 1}; the caretaker noted ${i % 2 ? 'no defects' : 'a loose fitting'} in section ${i}.\n`;
  }
  files[`${FOLDER}/Residential lease agreement between the landlord and the tenant, signed copy.pdf`] = await makePdf([
    { lines: ['Lease agreement', '', 'The tenant pays the rent on the first day of each month.', 'The landlord returns the security deposit', 'within fourteen days after the keys are handed back.'] },
    { lines: ['Repairs', '', 'The landlord repairs the heating and the roof.'] },
  ]);
  return files;
}

/** The layout report and axe's findings in both themes, with a screenshot of each. */
async function checkState(page: Page, state: string): Promise<void> {
  for (const theme of THEMES) {
    await page.emulateMedia({ colorScheme: theme });
    await page.waitForFunction((dark) => matchMedia('(prefers-color-scheme: dark)').matches === dark, theme === 'dark');
    const report = await layoutReport(page);
    const axe = await axeViolations(page);
    await page.screenshot({ path: `/tmp/phone-${state}-${theme}.png` });
    expect.soft({ state, theme, ...report, axe }).toEqual({ state, theme, overflow: 0, overflowing: [], dialogsOutside: [], smallTargets: [], axe: [] });
  }
}

describe('a phone (390 × 844) with a library of 150 documents with long names', () => {
  const app = useApp();

  it('fits the screen, with targets of 24 px and no axe violation, in light and dark, in every main state', async () => {
    const page = app.page;
    await page.setViewportSize(PHONE);
    await page.getByRole('status').filter({ hasText: /^Ready$/ }).waitFor();
    await checkState(page, 'empty');

    await page.getByLabel('Add a folder').setInputFiles(await writeTree(await library(), 'Harbour'));
    await page.locator('ul[aria-label="Library"] .status', { hasText: /^(Queued|Indexing)/ }).first().waitFor({ timeout: 30_000 });
    await checkState(page, 'indexing');
    await waitForIndexed(page, 150, 180_000);
    await checkState(page, 'library');

    expect(await askQuestion(page, 'When does the landlord return the security deposit?')).toContain('within fourteen days');
    await checkState(page, 'answer');

    await page.getByRole('region', { name: 'Answer' }).getByRole('link', { name: '[1]' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Source' });
    await dialog.locator('.pdf-page[data-page="1"]').waitFor({ timeout: 30_000 });
    // The page fits the phone's width at first (zoom in for more), and its marked sentence is in view.
    const [pageBox, dialogBox] = await Promise.all([dialog.locator('.pdf-page').boundingBox(), dialog.boundingBox()]);
    expect(pageBox!.width).toBeLessThanOrEqual(dialogBox!.width);
    expect(pageBox!.width).toBeGreaterThan(dialogBox!.width * 0.8);
    await checkState(page, 'source-pdf');
    await dialog.getByRole('button', { name: 'Zoom in' }).click();
    await dialog.getByRole('button', { name: 'Text', exact: true }).click();
    await dialog.locator('.source-text mark').first().waitFor();
    await checkState(page, 'source-text');
    await dialog.getByRole('button', { name: 'Close' }).click();

    await page.getByRole('button', { name: /Set up semantic search|Semantic search models/ }).click();
    await page.getByRole('dialog', { name: 'Semantic search models' }).waitFor();
    await checkState(page, 'semantic-models');
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: /Choose an answer model|Answer model/ }).click();
    await page.getByRole('dialog', { name: 'Answer models' }).waitFor();
    await checkState(page, 'answer-models');
    await page.keyboard.press('Escape');
  });

  it('finds one document of 150 by part of its name for "Only in document", and asks only in it', async () => {
    const page = app.page;
    const report = `Harbour/${FOLDER}/Inspection report 42 on the garden of the north harbour building with remarks by the caretaker.md`;
    const only = page.getByLabel('Only in document');
    const find = page.getByRole('searchbox', { name: 'Find a document' });
    const options = () => only.locator('option').allTextContents();
    // A hundred documents, and a line that says what is left out, instead of 150 options to scroll.
    const all = await options();
    expect(all).toHaveLength(102);
    expect(all.at(-1)).toBe('50 more: type part of a name in “Find a document”');
    await askQuestion(page, 'Was the garden inspected?');
    expect(new Set(await sourcePaths(page)).size).toBeGreaterThan(1);

    await find.fill('REPORT 42 on');
    expect(await options()).toEqual(['All documents', report]);
    await only.selectOption({ label: report });
    expect(await askQuestion(page, 'Was the garden inspected?')).toContain('The garden was inspected on day 42');
    expect(new Set(await sourcePaths(page))).toEqual(new Set([report]));
    await find.fill('no such name');
    expect(await options()).toEqual(['All documents', report, 'No document\'s name holds “no such name”']);
    await page.screenshot({ path: '/tmp/phone-find-document.png' });
    await only.selectOption('');
    await find.fill('');
    expect(await options()).toHaveLength(102);
  });

  it('keeps the newest answer in view after the sixth question', async () => {
    const page = app.page;
    const questions = ['When is the rent paid?', 'What did the caretaker note in the laundry?', 'Who repairs the heating?', 'Was the attic inspected?', 'What about the boiler?', 'When is the deposit returned?'];
    for (const q of questions) await askQuestion(page, q);
    await expect(page.locator('.current-question').textContent()).resolves.toBe(questions.at(-1));
    // The question just asked and the start of its answer are on screen.
    const box = await page.locator('.current-question').boundingBox();
    // Within a pixel: the page scrolls by whole pixels, and layout may place the question at a fraction of one.
    expect(box!.y).toBeGreaterThan(-1);
    expect(box!.y + box!.height).toBeLessThanOrEqual(PHONE.height);
    await page.screenshot({ path: '/tmp/phone-sixth-answer.png' });
  });

  it('fits a desktop window (1280 × 800) too, in light and dark: the library, an answer, a PDF page', async () => {
    const page = app.page;
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.waitForFunction(() => window.innerWidth === 1280);
    await checkState(page, 'desktop-answer');
    await page.getByRole('region', { name: 'Answer' }).getByRole('link', { name: '[1]' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Source' });
    await dialog.getByRole('button', { name: 'Page', exact: true }).click();
    await dialog.locator('.pdf-page[data-page="1"]').waitFor({ timeout: 30_000 });
    await checkState(page, 'desktop-source-pdf');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await page.setViewportSize(PHONE);
  });

  it('follows the Colours setting over the system, from the first paint after a reload', async () => {
    const page = app.page;
    const background = () => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    await page.emulateMedia({ colorScheme: 'light' });
    expect(await background()).toBe('rgb(255, 255, 255)');
    await page.locator('summary', { hasText: 'Settings' }).click();
    await page.getByLabel('Colours').selectOption({ label: 'Dark' });
    expect(await background()).toBe('rgb(20, 23, 28)');
    // Chosen before the first render: the page is dark as soon as its document has loaded.
    await page.reload({ waitUntil: 'domcontentloaded' });
    expect(await background()).toBe('rgb(20, 23, 28)');
    await page.locator('summary', { hasText: 'Settings' }).click();
    await page.getByLabel('Colours').selectOption({ label: 'As the system' });
    expect(await background()).toBe('rgb(255, 255, 255)');
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await background()).toBe('rgb(20, 23, 28)');
  });
});

describe('an answer being written on a phone', () => {
  const app = useApp();

  it('keeps the newest text in view until the person scrolls away; earlier questions fold', async () => {
    const page = app.page;
    await page.setViewportSize(PHONE);
    await page.getByLabel('Add documents').setInputFiles({ name: 'lease.md', mimeType: 'text/markdown', buffer: Buffer.from('# Lease\n\n## Payment\n\nThe tenant pays the rent of 950 euros on the first day of each month.\n') });
    await waitForIndexed(page, 1);
    const sentence = 'The tenant pays the rent of 950 euros on the first day of each month [1].';
    await useScriptedGenerator(page, { replies: [Array.from({ length: 30 }, () => sentence).join(' ')], delayMs: 15 });
    await waitForIndexed(page, 1);
    await askQuestion(page, 'When is the rent paid?');

    const answerBottom = () => page.evaluate(() => document.querySelector('section[aria-label="Answer"]')!.getBoundingClientRect().bottom);
    await page.getByLabel('Ask a question').fill('How much rent does the tenant pay each month?');
    await page.getByRole('button', { name: 'Ask' }).click();
    // While it is written and taller than the screen, its end stays on screen.
    await page.waitForFunction(() => (document.querySelector('section[aria-label="Answer"] .streaming')?.getBoundingClientRect().height ?? 0) > 1000, undefined, { timeout: 30_000 });
    for (let i = 0; i < 3; i++) {
      expect(await answerBottom()).toBeLessThanOrEqual(PHONE.height + 2);
      expect(await answerBottom()).toBeGreaterThan(0);
      await page.waitForTimeout(150);
    }
    // The person scrolls up: the page stays where they put it while the text goes on.
    await page.mouse.move(200, 400);
    await page.mouse.wheel(0, -500);
    await page.waitForTimeout(200);
    const at = await page.evaluate(() => scrollY);
    await page.waitForTimeout(400);
    expect(await page.getByRole('region', { name: 'Answer' }).getAttribute('aria-busy')).toBe('true');
    expect(await page.evaluate(() => scrollY)).toBe(at);
    await page.locator('.current-question').waitFor({ timeout: 30_000 });

    // The earlier question folds away and comes back.
    const earlier = page.getByRole('region', { name: 'Earlier in this conversation' });
    await earlier.getByRole('button', { name: 'Hide 1 earlier question' }).click();
    expect(await earlier.getByRole('listitem').count()).toBe(0);
    await earlier.getByRole('button', { name: 'Show 1 earlier question' }).click();
    expect(await earlier.getByRole('listitem').count()).toBe(1);
  });
});
