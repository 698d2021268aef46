/**
 * An image file's pixels, for OCR: decoded by the platform (`createImageBitmap` in the parse worker,
 * `@napi-rs/canvas` in Node), drawn on white and scaled down to at most `maxPixels`, read back as grey PGM.
 */
import { toPgm } from './recognised-page.ts';

interface Canvas2D {
  fillStyle: string;
  fillRect(x: number, y: number, w: number, h: number): void;
  drawImage(image: unknown, x: number, y: number, w: number, h: number): void;
  getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
}

/** The size an image of `width` × `height` is read at: itself, or scaled down to `maxPixels`. */
export function fitPixels(width: number, height: number, maxPixels: number): { width: number; height: number } {
  const scale = Math.min(1, Math.sqrt(maxPixels / (width * height)));
  return { width: Math.max(1, Math.floor(width * scale)), height: Math.max(1, Math.floor(height * scale)) };
}

/** Decodes `bytes` (PNG, JPEG, WebP) and returns the image as PGM, at most `maxPixels`. Throws when it does not decode. */
export async function imageToPgm(bytes: Uint8Array, maxPixels: number): Promise<Uint8Array> {
  if (typeof process !== 'undefined' && process.versions?.node) {
    // No static import: this module is also bundled into the browser worker, which decodes with the platform.
    const require = process.getBuiltinModule('module').createRequire(import.meta.url);
    const { createCanvas, loadImage } = require('@napi-rs/canvas') as typeof import('@napi-rs/canvas');
    const image = await loadImage(Buffer.from(bytes));
    const size = fitPixels(image.width, image.height, maxPixels);
    const canvas = createCanvas(size.width, size.height);
    return draw(canvas.getContext('2d') as unknown as Canvas2D, image, size);
  }
  const bitmap = await createImageBitmap(new Blob([bytes.slice()]));
  try {
    const size = fitPixels(bitmap.width, bitmap.height, maxPixels);
    const canvas = new OffscreenCanvas(size.width, size.height);
    return draw(canvas.getContext('2d', { willReadFrequently: true }) as unknown as Canvas2D, bitmap, size);
  } finally {
    bitmap.close();
  }
}

function draw(g: Canvas2D, image: unknown, { width, height }: { width: number; height: number }): Uint8Array {
  g.fillStyle = '#fff';
  g.fillRect(0, 0, width, height);
  g.drawImage(image, 0, 0, width, height);
  return toPgm(g.getImageData(0, 0, width, height).data, width, height);
}
