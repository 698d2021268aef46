import { orientPixels, tiffOrientation } from '../core/image-orientation.ts';

/**
 * An image document's page as a bitmap to draw: the browser decodes PNG, JPEG and WebP itself (their EXIF
 * orientation applied); a TIFF (which browsers do not show) is decoded by UTIF.js, loaded only when one is
 * shown, at the cited page, and shown as OCR read it: its Orientation tag applied (mirrored, turned).
 */
export async function pageBitmap(blob: Blob, page: number): Promise<ImageBitmap> {
  const head = new Uint8Array(await blob.slice(0, 4).arrayBuffer());
  const tiff = (head[0] === 0x49 && head[1] === 0x49 && head[2] === 42) || (head[0] === 0x4d && head[1] === 0x4d && head[3] === 42);
  if (!tiff) return createImageBitmap(blob);
  const { default: UTIF } = await import('utif');
  const buffer = await blob.arrayBuffer();
  const images = UTIF.decode(buffer).filter((ifd) => ifd['t256'] !== undefined);
  const ifd = images[page - 1];
  if (!ifd) throw new Error(`the file has no page ${page}`);
  UTIF.decodeImage(buffer, ifd);
  const { pixels, width, height } = orientPixels(UTIF.toRGBA8(ifd), ifd.width, ifd.height, 4, tiffOrientation(ifd));
  return createImageBitmap(new ImageData(new Uint8ClampedArray(pixels.buffer as ArrayBuffer, pixels.byteOffset, pixels.byteLength), width, height));
}
