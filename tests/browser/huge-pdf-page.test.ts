// A PDF page too large to draw at full resolution, in Chromium: the Source dialog draws it at a capped
// resolution instead of leaving the page blank. Two ways a page gets that large: an image of 40,000 ×
// 40,000 pixels on an ordinary page (pdf.js scales such an image down in its worker), and a page of
// 40,000 × 40,000 points with a tiny image stretched over it (a 50,000-pixel-square canvas at 100 %, which
// the browser cannot allocate: the page view capped its canvas at 16 Mi pixels for it).
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { concatTransformationMatrix, drawObject, PDFDocument, popGraphicsState, pushGraphicsState, rgb, StandardFonts, type PDFPage } from 'pdf-lib';
import { askQuestion, waitForIndexed } from '../support/app-page.ts';
import { useApp, type Page } from '../support/browser.ts';

const HUGE = 40_000;

/** Draws a black 1-bit image of `pixels` × `pixels` (all zero bits: cheap to compress) over the lower half of `page`. */
function drawBlackImage(pdf: PDFDocument, page: PDFPage, pixels: number): void {
  const bytes = deflateSync(new Uint8Array(Math.ceil(pixels / 8) * pixels), { level: 9 });
  const image = pdf.context.register(
    pdf.context.stream(bytes, { Type: 'XObject', Subtype: 'Image', Width: pixels, Height: pixels, ColorSpace: 'DeviceGray', BitsPerComponent: 1, Filter: 'FlateDecode' }),
  );
  const name = page.node.newXObject('Im', image);
  const { width, height } = page.getSize();
  page.pushOperators(pushGraphicsState(), concatTransformationMatrix(width, 0, 0, height / 2, 0, 0), drawObject(name), popGraphicsState());
}

/** Page 1: 612 × 792 points holding a 40,000² image. Page 2: 40,000² points holding a 2² image. Each with a sentence on top. */
async function makeHugePdf(): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const sizes = [
    { page: [612, 792], image: HUGE, text: 'The harbour map shows the northern pier and the customs house.' },
    { page: [HUGE, HUGE], image: 2, text: 'The wall chart shows the tides of the southern bay for each month.' },
  ];
  for (const { page: [w, h], image, text } of sizes) {
    const page = pdf.addPage([w!, h!]);
    drawBlackImage(pdf, page, image);
    page.drawText(text, { x: w! / 20, y: h! * 0.75, size: w! / 50, font, color: rgb(0, 0, 0) });
  }
  return pdf.save({ useObjectStreams: false });
}

/** The share of the drawn canvas's lower half that is dark (the black image), read from a 100 × 100 copy; and the canvas's size in pixels. */
function lowerHalf(page: Page): Promise<{ dark: number; pixels: number }> {
  return page.locator('.pdf-page canvas').evaluate((c: HTMLCanvasElement) => {
    const copy = document.createElement('canvas');
    copy.width = copy.height = 100;
    const ctx = copy.getContext('2d')!;
    ctx.drawImage(c, 0, c.height / 2, c.width, c.height / 2, 0, 0, 100, 100);
    const data = ctx.getImageData(0, 0, 100, 100).data;
    let dark = 0;
    for (let i = 0; i < data.length; i += 4) if (data[i]! < 100 && data[i + 3]! > 200) dark++;
    return { dark: dark / (data.length / 4), pixels: c.width * c.height };
  });
}

describe('a PDF page too large to draw at full resolution', () => {
  const app = useApp();

  it('is drawn at a capped resolution in the Source dialog: the huge image and the huge page both show', async () => {
    const { page } = app;
    await page.getByLabel('Add documents').setInputFiles({ name: 'charts.pdf', mimeType: 'application/pdf', buffer: Buffer.from(await makeHugePdf()) });
    await waitForIndexed(page, 1);
    expect(await askQuestion(page, 'What does the harbour map show?')).toContain('northern pier');
    await page.getByRole('region', { name: 'Answer' }).getByRole('link', { name: '[1]' }).click();
    const dialog = page.getByRole('dialog', { name: 'Source' });
    await dialog.locator('.pdf-page[data-page="1"]').waitFor({ timeout: 60_000 });
    const first = await lowerHalf(page);
    expect(first.dark).toBeGreaterThan(0.9);
    await dialog.getByRole('button', { name: 'Next page' }).click();
    await dialog.locator('.pdf-page[data-page="2"]').waitFor({ timeout: 60_000 });
    const second = await lowerHalf(page);
    expect(second.dark).toBeGreaterThan(0.9);
    expect(second.pixels).toBeLessThanOrEqual(16 * 2 ** 20);
    await expect(dialog.locator('.textLayer').textContent()).resolves.toContain('tides of the southern bay');
  });
});
