import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { askQuestion, dropFile, statusWhenDone } from '../support/app-page.ts';
import { useApp, type Page } from '../support/browser.ts';
import { makeScannedTextPdf } from '../support/fixtures.ts';

const packaged = (code: string) => readFileSync(createRequire(import.meta.url).resolve(`@tesseract.js-data/${code}/4.0.0_best_int/${code}.traineddata.gz`));

/** A French lease clause (read by English alone as "dépot", "apres", "I’accord"). */
const BAIL = [
  'Le loyer mensuel est réglé à l’échéance, le cinq de chaque mois. Le dépôt de garantie est restitué dans un délai de deux mois après la remise des clés.',
  'Les animaux ne sont acceptés qu’avec l’accord écrit du propriétaire. Le locataire entretient le jardin et élague la haie chaque année.',
];

async function openScanLanguages(page: Page) {
  const settings = page.locator('details.settings');
  if (!(await settings.evaluate((d) => (d as HTMLDetailsElement).open))) await page.locator('summary', { hasText: 'Settings' }).click();
  await page.getByRole('button', { name: 'Scan languages' }).click();
  return page.getByRole('dialog', { name: 'Scan languages' });
}

/** The scan languages setting: languages downloaded only on consent, from the app's origin, or imported; scans read in them. */
describe('scan languages', () => {
  const app = useApp();

  it('adds French from the app’s own site only when asked, imports German from a file, refuses a wrong file, and reads a French scan read before with its accents', async () => {
    const { page } = app;
    const requests: string[] = [];
    page.context().on('request', (r) => requests.push(r.url()));
    await page.locator('summary', { hasText: 'Settings' }).click();
    await expect.poll(() => page.locator('details.settings').textContent()).toContain('Scanned pages are read in: English');
    // A French scan read in English alone loses its accents: its sentence is not quoted as written.
    await dropFile(page, 'bail-scan.pdf', await makeScannedTextPdf([{ paragraphs: BAIL }], 'Bail'));
    expect(await statusWhenDone(page, 'bail-scan.pdf')).toBe('Indexed: page 1 recognised from images (OCR)');
    const clause = 'Le dépôt de garantie est restitué dans un délai de deux mois après la remise des clés.';
    expect(await askQuestion(page, 'Quand le dépôt de garantie est-il restitué ?')).not.toContain(clause);
    const offer = page.getByRole('status').filter({ hasText: 'stored before this app could' });
    expect(await offer.count()).toBe(0);
    const dialog = await openScanLanguages(page);
    await dialog.getByRole('button', { name: 'Add French' }).waitFor();
    // Nothing is downloaded before the person chooses.
    expect(requests.filter((u) => u.includes('/ocr/lang/') && !u.endsWith('/eng.traineddata.gz'))).toEqual([]);

    await dialog.getByRole('button', { name: 'Add French' }).click();
    await expect.poll(() => dialog.getByRole('status').first().textContent(), { timeout: 30_000 }).toMatch(/^French added \((691 KB|1\.2 MB)\): scanned pages added from now on are read in it too; the Library offers to read again those read before\.$/);
    const origin = new URL(page.url()).origin;
    expect(requests.filter((u) => u.includes('/ocr/lang/fra'))).toEqual([`${origin}/ocr/lang/fra.traineddata.gz`]);
    await dialog.getByRole('button', { name: 'Remove French' }).waitFor();

    const input = dialog.locator('input[type="file"]');
    await input.setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not a language') });
    await expect.poll(() => dialog.getByRole('status').first().textContent()).toContain('notes.txt: not a Tesseract language file');
    await input.setInputFiles({ name: 'deu.traineddata', mimeType: 'application/octet-stream', buffer: gunzipSync(packaged('deu')) });
    await expect.poll(() => dialog.getByRole('status').first().textContent()).toMatch(/^German added from deu\.traineddata \(2\.0 MB\)/);
    expect(await dialog.textContent()).toContain('Scanned pages are read in: French, German, English');
    await page.screenshot({ path: '/tmp/ocr-languages.png' });
    await dialog.getByRole('button', { name: 'Close' }).click();
    expect(await page.locator('details.settings').textContent()).toContain('Scanned pages are read in: French, German, English');

    // The scan read before is offered to be read again, and read again in French: its accents come out, so
    // a question in French finds its sentence.
    // Offered once French was added; once German was too, the offer names both.
    await expect.poll(() => offer.textContent(), { timeout: 30_000 }).toContain('1 document was stored before this app could read French and German in scans.');
    await offer.getByRole('button', { name: 'Read again' }).click();
    await page.getByRole('list', { name: 'Activity' }).getByText('Done: 1 read again', { exact: true }).waitFor({ timeout: 60_000 });
    expect(await statusWhenDone(page, 'bail-scan.pdf')).toBe('Indexed: page 1 recognised from images (OCR)');
    expect(await askQuestion(page, 'Quand le dépôt de garantie est-il restitué ?')).toContain(clause);
    // Read in every language added, it is offered no more (once the Library list is read again).
    await offer.waitFor({ state: 'detached', timeout: 15_000 });

    // The languages stay after a reload; removing one says what it freed.
    await page.reload();
    const again = await openScanLanguages(page);
    await again.getByRole('button', { name: 'Remove French' }).click();
    await expect.poll(() => again.getByRole('status').first().textContent()).toMatch(/^French removed \((691 KB|1\.2 MB) freed\)\. Documents already read keep their text\.$/);
    expect(await again.textContent()).toContain('Scanned pages are read in: German, English');
    expect(requests.filter((u) => !u.startsWith(origin) && !u.startsWith('data:') && !u.startsWith('blob:'))).toEqual([]);
  });
});
