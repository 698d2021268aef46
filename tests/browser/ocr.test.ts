import { describe, expect, it } from 'vitest';
import { useApp } from '../support/browser.ts';
import { askQuestion, dropFile, libraryStatus, statusWhenDone, waitForQueueEmpty } from '../support/app-page.ts';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { makeImageBombPdf, makeLoopingTiff, makePdf, makeScannedTextPdf, makeScannedTiff, renderPageImage } from '../support/fixtures.ts';
import type { Page } from '../support/browser.ts';

/**
 * The marks over the page image in the Source dialog: each as fractions of the page (left, top, right,
 * bottom), with the share of its pixels that are ink (dark) on the page under it.
 */
async function pageMarks(page: Page, canvasSelector: string): Promise<Array<{ box: number[]; ink: number }>> {
  return page.evaluate((selector) => {
    const canvas = document.querySelector<HTMLCanvasElement>(selector)!;
    const c = canvas.getBoundingClientRect();
    const pixels = canvas.getContext('2d')!;
    return [...document.querySelectorAll('.word-mark')].map((mark) => {
      const r = mark.getBoundingClientRect();
      const box = [(r.left - c.left) / c.width, (r.top - c.top) / c.height, (r.right - c.left) / c.width, (r.bottom - c.top) / c.height];
      const [x0, y0, x1, y1] = [box[0]! * canvas.width, box[1]! * canvas.height, box[2]! * canvas.width, box[3]! * canvas.height].map(Math.round) as [number, number, number, number];
      const data = pixels.getImageData(x0, y0, Math.max(1, x1 - x0), Math.max(1, y1 - y0)).data;
      let dark = 0;
      for (let i = 0; i < data.length; i += 4) if (data[i]! < 128) dark++;
      return { box, ink: dark / (data.length / 4) };
    });
  }, canvasSelector);
}

const LEASE = [
  'The tenancy begins on the first of March 2026 and runs for twelve months.',
  'The monthly rent is eight hundred and fifty euros, payable in advance. The security deposit is returned within thirty days after the keys are handed back.',
];
const HOUSE_RULES = ['Pets are allowed only with the written consent of the landlord. The tenant keeps the garden tidy and the hedges trimmed.'];

/** A scanned PDF (page images, no text layer) read by OCR in the parse worker, with the app's own files. */
describe('a scanned PDF', () => {
  const app = useApp();

  it('is read from its page images, answers a question only it answers, and cites its page', async () => {
    const { page } = app;
    const requests: string[] = [];
    page.context().on('request', (r) => requests.push(r.url()));
    await dropFile(page, 'notes.pdf', await makePdf([{ lines: ['Meeting notes', '', 'The boiler was serviced in May by the plumber.'] }]));
    await dropFile(page, 'lease-scan.pdf', await makeScannedTextPdf([{ paragraphs: LEASE }, { paragraphs: HOUSE_RULES }], 'Lease of Flat 4'));
    expect(await statusWhenDone(page, 'notes.pdf')).toBe('Indexed');
    expect(await statusWhenDone(page, 'lease-scan.pdf')).toBe('Indexed: pages 1–2 recognised from images (OCR)');

    const answer = await askQuestion(page, 'Are pets allowed in the flat?');
    expect(answer).toContain('Pets are allowed only with the written consent of the landlord.');
    const sources = (await page.getByRole('list', { name: 'Sources' }).textContent()) ?? '';
    expect(sources).toContain('page 2');
    // The citation opens the scanned page with the cited sentence marked over its words: in the page's
    // first lines (where it was printed), on ink, from the left margin on.
    await page.getByRole('region', { name: 'Answer' }).getByRole('link', { name: '[1]' }).click();
    const dialog = page.getByRole('dialog', { name: 'Source' });
    await dialog.locator('.pdf-page[data-page="2"] .word-mark').first().waitFor({ timeout: 30_000 });
    const marks = await pageMarks(page, '.pdf-page canvas');
    expect(marks.length).toBeGreaterThan(0);
    expect(marks.length).toBeLessThanOrEqual(3);
    for (const { box, ink } of marks) {
      expect(box[1]).toBeGreaterThan(0.06);
      expect(box[3]).toBeLessThan(0.16);
      expect(ink).toBeGreaterThan(0.05);
    }
    expect(Math.min(...marks.map((m) => m.box[0]!))).toBeCloseTo(72 / 612, 1);
    await page.screenshot({ path: '/tmp/ocr-source.png' });
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect(await askQuestion(page, 'When is the security deposit returned?')).toContain('returned within thirty days');

    // The recogniser's worker, core and English model came from the app itself, and nothing else was fetched.
    const origin = new URL(page.url()).origin;
    for (const file of ['/ocr/worker.min.js', '/ocr/core/', '/ocr/lang/eng.traineddata.gz']) expect(requests.some((u) => u.startsWith(`${origin}${file}`)), file).toBe(true);
    expect(requests.filter((u) => !u.startsWith(origin) && !u.startsWith('data:') && !u.startsWith('blob:'))).toEqual([]);
  });

  it('reads a page photographed upside down (JPEG) as a one-page document, and refuses an image bomb, alone or in a PDF, from its declared size', async () => {
    const { page } = app;
    const png = await loadImage(Buffer.from(renderPageImage({ paragraphs: ['The recycling bins are emptied every second Tuesday of the month.'], dpi: 150, turn: 180 })));
    const canvas = createCanvas(png.width, png.height);
    canvas.getContext('2d').drawImage(png, 0, 0);
    await page.getByLabel('Add documents').setInputFiles({ name: 'notice.jpg', mimeType: 'image/jpeg', buffer: canvas.toBuffer('image/jpeg', 70) });
    expect(await statusWhenDone(page, 'notice.jpg')).toBe('Indexed: page 1 recognised from images (OCR)');
    expect(await askQuestion(page, 'When are the recycling bins emptied?')).toContain('every second Tuesday of the month');
    expect(await page.getByRole('list', { name: 'Sources' }).textContent()).toContain('notice.jpg, page 1');
    // The photo itself is the source's page, the sentence marked on it: near its bottom, where the upside-down line is.
    await page.getByRole('region', { name: 'Answer' }).getByRole('link', { name: '[1]' }).click();
    const dialog = page.getByRole('dialog', { name: 'Source' });
    await dialog.locator('.image-page[data-page="1"] .word-mark').first().waitFor({ timeout: 30_000 });
    const marks = await pageMarks(page, '.image-page canvas');
    expect(marks.length).toBe(1);
    expect(marks[0]!.box[1]).toBeGreaterThan(0.88);
    expect(marks[0]!.box[3]).toBeLessThan(0.94);
    expect(marks[0]!.ink).toBeGreaterThan(0.05);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    // A PNG header claiming 40,000 × 40,000 pixels: refused before decoding, the page stays responsive.
    const bomb = new Uint8Array(64);
    bomb.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
    new DataView(bomb.buffer).setUint32(16, 40_000);
    new DataView(bomb.buffer).setUint32(20, 40_000);
    await page.getByLabel('Add documents').setInputFiles({ name: 'bomb.png', mimeType: 'image/png', buffer: Buffer.from(bomb) });
    expect(await statusWhenDone(page, 'bomb.png')).toBe('bomb.png: too large to read here: 40,000 × 40,000 pixels (the limit is 64 megapixels). Scale the image down, or press Try again to insist');
    // The same image as a PDF's page: left out by pdf.js before decoding, and named as the reason.
    await dropFile(page, 'bomb.pdf', makeImageBombPdf());
    expect(await statusWhenDone(page, 'bomb.pdf')).toBe('bomb.pdf: too large to read here: 40,000 × 40,000 pixels (the limit is 64 megapixels). Scale the image down, or press Try again to insist');
  });

  it('reads a multi-page TIFF from a scanner, cites its page and marks the sentence on that page, and refuses a TIFF whose pages loop', async () => {
    const { page } = app;
    const notices = [['The caretaker collects bulky waste on the last Friday of each month.'], ['Bicycles are kept in the locked shed behind building C, never in the hallway.']];
    // Stored mirrored and sideways, as its Orientation tag (7) says: read and shown as the page is seen.
    await dropFile(page, 'lease-scan.tif', makeScannedTiff(notices.map((paragraphs) => ({ paragraphs })), { orientation: 7 }));
    expect(await statusWhenDone(page, 'lease-scan.tif')).toBe('Indexed: pages 1–2 recognised from images (OCR)');
    expect(await askQuestion(page, 'Where are bicycles kept?')).toContain('Bicycles are kept in the locked shed behind building C');
    expect(await page.getByRole('list', { name: 'Sources' }).textContent()).toContain('lease-scan.tif, page 2');
    // The browser does not show TIFF: the page is decoded for the dialog, and the sentence marked on it.
    await page.getByRole('region', { name: 'Answer' }).getByRole('link', { name: '[1]' }).click();
    const dialog = page.getByRole('dialog', { name: 'Source' });
    await dialog.locator('.image-page[data-page="2"] .word-mark').first().waitFor({ timeout: 30_000 });
    expect(await dialog.locator('canvas[aria-label="lease-scan.tif, page 2"]').count()).toBe(1);
    const marks = await pageMarks(page, '.image-page canvas');
    expect(marks.length).toBeGreaterThan(0);
    for (const { box, ink } of marks) {
      expect(box[1]).toBeGreaterThan(0.06);
      expect(box[3]).toBeLessThan(0.16);
      expect(ink).toBeGreaterThan(0.05);
    }
    await page.screenshot({ path: '/tmp/ocr-tiff-source.png' });
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await dropFile(page, 'loop.tif', makeLoopingTiff());
    expect(await statusWhenDone(page, 'loop.tif')).toBe('loop.tif: this TIFF could not be read; it may be damaged (its list of pages is broken)');
  });

  it('says which page it is recognising and the time left, and Delete stops it mid-page for good', async () => {
    const { page } = app;
    const minutes = (n: number) => [`Minutes of meeting ${n}. The committee discussed the drainage of the lower field and the price of fencing.`, 'The treasurer reported that the accounts balance and that the hall roof needs repair before winter.'];
    await dropFile(page, 'kept.md', new TextEncoder().encode('# Kept\n\nThe heron fishes at dawn beside the weir.\n'));
    await dropFile(page, 'minutes-scan.pdf', await makeScannedTextPdf([1, 2, 3, 4, 5, 6].map((n) => ({ paragraphs: minutes(n) }))));
    const row = page.getByRole('list', { name: 'Library' }).getByRole('listitem').filter({ hasText: 'minutes-scan.pdf' });
    // From the second page on, the pace of the first gives the time left.
    await expect.poll(() => row.textContent(), { timeout: 60_000, interval: 100 }).toMatch(/Recognising text: page [2-5] of 6, about \d+ s left/);
    await row.getByRole('button', { name: 'Delete' }).click();
    await waitForQueueEmpty(page);
    const names = async () => (await libraryStatus(page)).map((r) => r.name);
    // The list is read again a moment after the change (250 ms).
    await expect.poll(names).not.toContain('minutes-scan.pdf');
    expect(await statusWhenDone(page, 'kept.md')).toBe('Indexed');
    expect(await page.getByRole('list', { name: 'Activity' }).textContent()).toContain('minutes-scan.pdf: removed');
    expect(await askQuestion(page, 'drainage of the lower field')).not.toContain('drainage');
    await page.reload();
    await page.waitForFunction(() => document.querySelectorAll('ul[aria-label="Library"] > li').length > 0);
    await page.waitForTimeout(1500);
    expect(await names()).not.toContain('minutes-scan.pdf');
    expect(await statusWhenDone(page, 'kept.md')).toBe('Indexed');
  });

  it('resumes a scan after a reload from the page it had reached, not from the first', async () => {
    const { page } = app;
    const pages = [1, 2, 3, 4, 5, 6].map((n) => ({ paragraphs: [`Report page ${n}. The survey of the north wall found nothing of note.`, n === 2 ? 'The plumber found a leaking pipe under the bathroom sink.' : 'The inspector will return in the spring to check the roof.'] }));
    await dropFile(page, 'survey-scan.pdf', await makeScannedTextPdf(pages));
    const row = page.getByRole('list', { name: 'Library' }).getByRole('listitem').filter({ hasText: 'survey-scan.pdf' });
    await expect.poll(() => row.textContent(), { timeout: 60_000, interval: 100 }).toMatch(/Recognising text: page [3-5] of 6/);
    const reached = Number(/page (\d) of 6/.exec((await row.textContent()) ?? '')![1]);
    // Every status the row shows after the reload, from the first paint on.
    await page.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { seen: string[] }).seen = seen;
      setInterval(() => {
        const status = [...document.querySelectorAll('ul[aria-label="Library"] > li')].find((li) => li.textContent?.includes('survey-scan.pdf'))?.querySelector('.status')?.textContent;
        if (status && status !== seen.at(-1)) seen.push(status);
      }, 20);
    });
    await page.reload();
    expect(await statusWhenDone(page, 'survey-scan.pdf')).toBe('Indexed: pages 1–6 recognised from images (OCR)');
    const seen = await page.evaluate(() => (window as unknown as { seen: string[] }).seen);
    const pagesSeen = seen.flatMap((s) => (/page (\d) of 6/.exec(s) ? [Number(/page (\d) of 6/.exec(s)![1])] : []));
    expect(pagesSeen.length).toBeGreaterThan(0);
    // The pages finished before the reload (all before the one it had reached) are not recognised again.
    expect(Math.min(...pagesSeen)).toBeGreaterThanOrEqual(reached - 1);
    expect(await askQuestion(page, 'What did the plumber find under the bathroom sink?')).toContain('a leaking pipe under the bathroom sink');
  });
});
