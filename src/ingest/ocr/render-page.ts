/**
 * A PDF page as an image for OCR: pdf.js renders it at {@link OCR_DPI} onto a canvas (an OffscreenCanvas in
 * the parse worker, `@napi-rs/canvas` in Node), read back as grey-scale PGM (`toPgm`).
 */
import { toPgm } from './recognised-page.ts';

/**
 * Resolution pages are rendered at for OCR. On pages of real abstracts (`tools/ocr-engines.ts`, decision
 * 0032) tesseract's character error rate on clean pages was 0.06 / 0.07 / 0.05 % at 150 / 200 / 300 dpi,
 * at 3.0 / 3.4 / 4.0 s a page; 200 is the low end of what scanners write and what the degraded pages
 * (noise, JPEG, photocopy, skew) were measured at.
 */
export const OCR_DPI = 200;

/**
 * Most pixels a page is rendered with: a page larger than A0 at 200 dpi is rendered at a lower resolution
 * rather than allocating a canvas of hundreds of megabytes (a page of 40,000 × 40,000 points would need 80 GB).
 */
export const MAX_OCR_PIXELS = 6000 * 6000;

interface Viewport {
  width: number;
  height: number;
}
interface RenderablePage {
  getViewport(params: { scale: number }): Viewport;
  render(params: { canvas: unknown; canvasContext: unknown; viewport: Viewport; background?: string }): { promise: Promise<void> };
}
interface CanvasAndContext {
  canvas: unknown;
  context: { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } | null;
}
/** The canvas factory pdf.js made for the document (`PDFDocumentProxy.canvasFactory`). */
export interface PageCanvasFactory {
  create(width: number, height: number): CanvasAndContext;
  destroy(canvasAndContext: CanvasAndContext): void;
}

/** The scale (pixels per PDF point) a page of `size` points is rendered at: {@link OCR_DPI}, less for a huge page. */
export function ocrScale(size: Viewport, dpi = OCR_DPI, maxPixels = MAX_OCR_PIXELS): number {
  const scale = dpi / 72;
  const pixels = size.width * scale * size.height * scale;
  return pixels > maxPixels ? Math.sqrt(maxPixels / (size.width * size.height)) : scale;
}

/** Renders `page` on white and returns it as a PGM image. */
export async function renderPageForOcr(page: RenderablePage, factory: PageCanvasFactory): Promise<Uint8Array> {
  const viewport = page.getViewport({ scale: ocrScale(page.getViewport({ scale: 1 })) });
  const width = Math.max(1, Math.floor(viewport.width));
  const height = Math.max(1, Math.floor(viewport.height));
  const target = factory.create(width, height);
  try {
    await page.render({ canvas: target.canvas, canvasContext: target.context, viewport, background: 'rgb(255,255,255)' }).promise;
    return toPgm(target.context!.getImageData(0, 0, width, height).data, width, height);
  } finally {
    factory.destroy(target);
  }
}

/**
 * pdf.js's canvas factory for a worker: pdf.js's default one creates `<canvas>` elements through
 * `document`, which a worker has not.
 */
export class OffscreenCanvasFactory {
  constructor(_options?: unknown) {}
  create(width: number, height: number) {
    const canvas = new OffscreenCanvas(width, height);
    return { canvas, context: canvas.getContext('2d', { willReadFrequently: true }) };
  }
  reset(target: { canvas: OffscreenCanvas }, width: number, height: number) {
    target.canvas.width = width;
    target.canvas.height = height;
  }
  destroy(target: { canvas: OffscreenCanvas | null; context: unknown }) {
    if (target.canvas) target.canvas.width = target.canvas.height = 0;
    target.canvas = null;
    target.context = null;
  }
}
