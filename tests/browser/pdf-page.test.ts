import { describe, expect, it } from 'vitest';
import { makePdf, SETTINGS_ROWS } from '../support/fixtures.ts';
import { useApp } from '../support/browser.ts';
import { askQuestion, waitForIndexed } from '../support/app-page.ts';

interface Violation {
  directive: string;
  blocked: string;
}

const LEASE_PAGES = [
  { lines: ['Lease agreement', '', 'The tenant pays the rent on the first day of each month.', 'The landlord returns the security deposit', 'within fourteen days after the keys are handed back.'] },
  { lines: ['Repairs', '', 'The landlord repairs the heating and the roof.'] },
];

describe('the Source dialog shows a PDF page, drawn by pdf.js, with the cited sentence marked', () => {
  const app = useApp();

  it('keeps the original, draws the cited page with the sentence marked in its text layer, and turns pages', async () => {
    await app.page.evaluate(() => {
      const seen: Violation[] = [];
      (window as unknown as { cspViolations: Violation[] }).cspViolations = seen;
      document.addEventListener('securitypolicyviolation', (e) => seen.push({ directive: e.effectiveDirective, blocked: e.blockedURI }));
    });
    await expect(app.page.getByLabel('Keep original files').isChecked()).resolves.toBe(true);
    await app.page.getByLabel('Add documents').setInputFiles({ name: 'lease.pdf', mimeType: 'application/pdf', buffer: Buffer.from(await makePdf(LEASE_PAGES)) });
    await waitForIndexed(app.page, 1);
    expect(await askQuestion(app.page, 'When does the landlord return the security deposit?')).toContain('within fourteen days');
    await app.page.getByRole('region', { name: 'Answer' }).getByRole('link', { name: '[1]' }).click();
    const dialog = app.page.getByRole('dialog', { name: 'Source' });
    await dialog.waitFor();
    await expect(dialog.getByRole('link', { name: 'Open original' }).getAttribute('href')).resolves.toMatch(/^blob:/);

    // The real page is the default view.
    await expect(dialog.getByRole('button', { name: 'Page', exact: true }).getAttribute('aria-pressed')).resolves.toBe('true');
    await dialog.locator('.pdf-page[data-page="1"]').waitFor({ timeout: 30_000 });
    const canvas = dialog.locator('.pdf-page canvas');
    await expect(canvas.evaluate((c: HTMLCanvasElement) => c.width > 100 && c.height > 100)).resolves.toBe(true);
    // Something was drawn: the canvas is not blank.
    await expect(canvas.evaluate((c: HTMLCanvasElement) => c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data.some((v, i) => i % 4 !== 3 && v < 200))).resolves.toBe(true);
    await expect(dialog.locator('.textLayer span').count()).resolves.toBeGreaterThan(3);
    const marked = (await dialog.locator('.textLayer mark').allTextContents()).join(' ');
    expect(marked.replace(/\s+/g, ' ')).toContain('returns the security deposit');
    expect(marked).toContain('within fourteen days');
    expect(marked).not.toContain('rent');

    await dialog.getByRole('button', { name: 'Next page' }).click();
    await dialog.locator('.pdf-page[data-page="2"]').waitFor({ timeout: 30_000 });
    await expect(dialog.locator('.textLayer').textContent()).resolves.toContain('repairs the heating');
    await expect(dialog.locator('.textLayer mark').count()).resolves.toBe(0);
    const width = await canvas.evaluate((c: HTMLCanvasElement) => c.getBoundingClientRect().width);
    await dialog.getByRole('button', { name: 'Zoom in' }).click();
    await app.page.waitForFunction((w) => (document.querySelector('.pdf-page canvas')?.getBoundingClientRect().width ?? 0) > w * 1.2, width);
    await dialog.getByRole('button', { name: 'Previous page' }).click();
    await dialog.locator('.pdf-page[data-page="1"]').waitFor();
    await app.page.waitForFunction(() => document.querySelectorAll('.textLayer mark').length > 0);
    await app.page.screenshot({ path: '/tmp/pdf-page.png' });

    // The extracted text is one toggle away, with the sentence marked there too.
    await dialog.getByRole('button', { name: 'Text' }).click();
    await expect(dialog.locator('.source-text mark').allTextContents()).resolves.toEqual(['The landlord returns the security deposit within fourteen days after the keys are handed back.']);
    await app.page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await expect(app.page.evaluate(() => (window as unknown as { cspViolations: Violation[] }).cspViolations)).resolves.toEqual([]);
  });

  it('quotes one row of a table in a PDF, not the table run together, and marks that row on the page', async () => {
    const settings = [
      'Server settings',
      '',
      'These settings are read when the server starts.',
      '',
      ...SETTINGS_ROWS,
      '',
      'Table 2: Settings and their defaults',
    ];
    await app.page.getByLabel('Add documents').setInputFiles({ name: 'settings.pdf', mimeType: 'application/pdf', buffer: Buffer.from(await makePdf([{ lines: settings }])) });
    await waitForIndexed(app.page, 2);
    const answer = await askQuestion(app.page, 'What is the default of shared_buffers?');
    expect(answer).toContain('128 MB');
    // Run together, the table was one sentence: every setting in it, quoted whole.
    expect(answer).not.toContain('work_mem');
    expect(answer).not.toContain('max_connections');
    await app.page.getByRole('region', { name: 'Answer' }).getByRole('link', { name: '[1]' }).click();
    const dialog = app.page.getByRole('dialog', { name: 'Source' });
    // The last test left the dialog on its text; the row is looked for on the page.
    await dialog.getByRole('button', { name: 'Page', exact: true }).click();
    await dialog.locator('.pdf-page[data-page="1"]').waitFor({ timeout: 30_000 });
    await app.page.waitForFunction(() => document.querySelectorAll('.textLayer mark').length > 0);
    const marked = (await dialog.locator('.textLayer mark').allTextContents()).join(' ');
    expect(marked).toContain('shared_buffers');
    expect(marked).toContain('128 MB');
    expect(marked).not.toContain('work_mem');
    await app.page.screenshot({ path: '/tmp/pdf-table-row.png' });
    await app.page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
  });

  it('keeps no original when the setting is off: the dialog shows the text only', async () => {
    // The setting sits in Settings, folded under the page's title.
    await app.page.locator('summary', { hasText: 'Settings' }).click();
    await app.page.getByLabel('Keep original files').uncheck();
    await app.page.getByLabel('Add documents').setInputFiles({ name: 'boat.pdf', mimeType: 'application/pdf', buffer: Buffer.from(await makePdf([{ lines: ['Change the engine oil every hundred hours.'] }])) });
    await waitForIndexed(app.page, 3);
    expect(await askQuestion(app.page, 'How often to change the engine oil?')).toContain('every hundred hours');
    await app.page.getByRole('region', { name: 'Answer' }).getByRole('link', { name: '[1]' }).click();
    const dialog = app.page.getByRole('dialog', { name: 'Source' });
    await dialog.waitFor();
    await expect(dialog.locator('.source-text mark').textContent()).resolves.toBe('Change the engine oil every hundred hours.');
    await expect(dialog.getByRole('button', { name: 'Page', exact: true }).count()).resolves.toBe(0);
    await expect(dialog.getByRole('link', { name: 'Open original' }).count()).resolves.toBe(0);
    await app.page.keyboard.press('Escape');
  });
});
