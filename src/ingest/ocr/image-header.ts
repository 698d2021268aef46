/**
 * An image file's format and size read from its header, before anything is decoded: a 40,000 × 40,000
 * pixel image (a few kilobytes of PNG) would take 6.4 GB to decode. Pure and bounded: reads at most the
 * bytes it walks, never past the end.
 */

export type ImageFormat = 'png' | 'jpeg' | 'webp';

export interface ImageHeader {
  format: ImageFormat;
  width: number;
  height: number;
}

const u16be = (b: Uint8Array, i: number) => (b[i]! << 8) | b[i + 1]!;
const u32be = (b: Uint8Array, i: number) => ((b[i]! << 24) >>> 0) + (b[i + 1]! << 16) + (b[i + 2]! << 8) + b[i + 3]!;
const u16le = (b: Uint8Array, i: number) => b[i]! | (b[i + 1]! << 8);
const u24le = (b: Uint8Array, i: number) => b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16);
const ascii = (b: Uint8Array, i: number, n: number) => String.fromCharCode(...b.subarray(i, i + n));

/** The header of a PNG, JPEG or WebP file; undefined when the bytes are none of these or are cut short. */
export function readImageHeader(bytes: Uint8Array): ImageHeader | undefined {
  if (bytes.length >= 24 && u32be(bytes, 0) === 0x89504e47 && u32be(bytes, 4) === 0x0d0a1a0a && ascii(bytes, 12, 4) === 'IHDR') {
    return { format: 'png', width: u32be(bytes, 16), height: u32be(bytes, 20) };
  }
  if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8) return jpegHeader(bytes);
  if (bytes.length >= 30 && ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 4) === 'WEBP') return webpHeader(bytes);
  return undefined;
}

/** Start-of-frame markers (baseline, progressive, lossless…), which carry the frame's size. */
const SOF = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

function jpegHeader(bytes: Uint8Array): ImageHeader | undefined {
  let i = 2;
  while (i + 4 <= bytes.length) {
    if (bytes[i] !== 0xff) return undefined;
    const marker = bytes[i + 1]!;
    // Fill bytes, and markers without a length (restart markers, TEM).
    if (marker === 0xff) {
      i++;
      continue;
    }
    if ((marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      i += 2;
      continue;
    }
    const length = u16be(bytes, i + 2);
    if (length < 2) return undefined;
    if (SOF.has(marker)) return i + 9 <= bytes.length ? { format: 'jpeg', height: u16be(bytes, i + 5), width: u16be(bytes, i + 7) } : undefined;
    if (marker === 0xda || marker === 0xd9) return undefined;
    i += 2 + length;
  }
  return undefined;
}

function webpHeader(bytes: Uint8Array): ImageHeader | undefined {
  const chunk = ascii(bytes, 12, 4);
  if (chunk === 'VP8 ') return { format: 'webp', width: u16le(bytes, 26) & 0x3fff, height: u16le(bytes, 28) & 0x3fff };
  if (chunk === 'VP8L' && bytes[20] === 0x2f) {
    const bits = bytes[21]! | (bytes[22]! << 8) | (bytes[23]! << 16) | ((bytes[24]! << 24) >>> 0);
    return { format: 'webp', width: 1 + (bits & 0x3fff), height: 1 + ((bits >>> 14) & 0x3fff) };
  }
  if (chunk === 'VP8X') return { format: 'webp', width: 1 + u24le(bytes, 24), height: 1 + u24le(bytes, 27) };
  return undefined;
}

/** Bytes of a PDF decoded at a time by {@link largestPdfImage}, and the overlap kept between windows. */
const SCAN_WINDOW = 1 << 20;
const SCAN_OVERLAP = 4096;

/**
 * The largest image a PDF declares (its `/Width` × `/Height`), read from the image dictionaries in the
 * file's bytes without decoding anything: an image is a stream, and streams never sit inside compressed
 * object streams, so their dictionaries are always in the open. Sizes given by reference are not followed.
 * Used to say why a PDF gave no text when pdf.js left out an image over the pixel limit.
 *
 * @example
 * largestPdfImage(bytes) // → { width: 40000, height: 40000 }
 */
export function largestPdfImage(bytes: Uint8Array): { width: number; height: number } | undefined {
  const decoder = new TextDecoder('latin1');
  let best: { width: number; height: number } | undefined;
  for (let start = 0; start < bytes.length; start += SCAN_WINDOW) {
    const text = decoder.decode(bytes.subarray(Math.max(0, start - SCAN_OVERLAP), Math.min(bytes.length, start + SCAN_WINDOW)));
    for (const m of text.matchAll(/\/Subtype\s*\/Image\b/g)) {
      // The dictionary around the match: from the last "<<" before it to the first ">>" after it.
      const open = text.lastIndexOf('<<', m.index);
      const close = text.indexOf('>>', m.index);
      if (open < 0 || close < 0 || m.index - open > SCAN_OVERLAP) continue;
      const dict = text.slice(open, close);
      const width = Number(/\/Width\s+(\d+)(?!\s+\d+\s+R)/.exec(dict)?.[1] ?? 0);
      const height = Number(/\/Height\s+(\d+)(?!\s+\d+\s+R)/.exec(dict)?.[1] ?? 0);
      if (width * height > (best ? best.width * best.height : 0)) best = { width, height };
    }
  }
  return best;
}

/** Whether the bytes start as a BigTIFF (version 43: 64-bit offsets, for files over 4 GB). */
export function isBigTiff(bytes: Uint8Array): boolean {
  return bytes.length >= 8 && ((bytes[0] === 0x49 && bytes[1] === 0x49 && bytes[2] === 43 && bytes[3] === 0) || (bytes[0] === 0x4d && bytes[1] === 0x4d && bytes[2] === 0 && bytes[3] === 43));
}

/** Whether the bytes start as a TIFF (`II*\0` little-endian or `MM\0*` big-endian; BigTIFF is not one). */
export function isTiff(bytes: Uint8Array): boolean {
  return bytes.length >= 8 && ((bytes[0] === 0x49 && bytes[1] === 0x49 && bytes[2] === 42 && bytes[3] === 0) || (bytes[0] === 0x4d && bytes[1] === 0x4d && bytes[2] === 0 && bytes[3] === 42));
}

/** A TIFF's pages: each image directory's size, in order. */
export interface TiffPages {
  sizes: Array<{ width: number; height: number }>;
  /** The chain of directories goes on past `maxPages`. */
  more: boolean;
}

/**
 * The pages of a TIFF (a scanner's or fax's multi-page file) and each one's size, from its chain of image
 * directories, without decoding any pixels; at most `maxPages` are walked. Undefined when the bytes are
 * not a TIFF, or the chain points outside the file or back into itself (a loop would keep a decoder
 * walking it forever). Directories without a size (not images) are skipped.
 */
export function tiffPages(bytes: Uint8Array, maxPages: number): TiffPages | undefined {
  if (!isTiff(bytes)) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const le = bytes[0] === 0x49;
  const u16 = (i: number) => view.getUint16(i, le);
  const u32 = (i: number) => view.getUint32(i, le);
  const sizes: TiffPages['sizes'] = [];
  const seen = new Set<number>();
  let offset = u32(4);
  let directories = 0;
  while (offset !== 0) {
    if (seen.has(offset) || offset < 8 || offset + 2 > bytes.length) return undefined;
    seen.add(offset);
    if (++directories > maxPages) return { sizes, more: true };
    const count = u16(offset);
    const end = offset + 2 + 12 * count;
    if (end + 4 > bytes.length) return undefined;
    let width = 0;
    let height = 0;
    for (let e = offset + 2; e < end; e += 12) {
      const tag = u16(e);
      if (tag !== 256 && tag !== 257) continue;
      const type = u16(e + 2);
      // SHORT (3) sits in the value field's first two bytes, LONG (4) fills it.
      const value = type === 3 ? u16(e + 8) : type === 4 ? u32(e + 8) : 0;
      if (tag === 256) width = value;
      else height = value;
    }
    if (width > 0 && height > 0) sizes.push({ width, height });
    offset = u32(end);
  }
  return { sizes, more: false };
}
