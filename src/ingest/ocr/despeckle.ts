/**
 * Grain on a scan: a photocopy's or a cheap scanner's specks (isolated dark pixels) make tesseract's layout
 * analysis read every speck as a character. On a page of a few lines it then reads garbage at confidence
 * 19 and takes 46 s; on a full page it makes 5.7 % of characters wrong. Such a page is made black and white
 * at mid-grey and its isolated dark pixels removed before it is read: 0–1.1 % on the same pages (figures in
 * decision 0032). Only speckled pages are: the same step on a blurred or a 150-dpi page, whose strokes are
 * grey and thin, costs 3–18 % of characters. Pure: PGM in, PGM out.
 */

import { pgmHeader } from './pgm.ts';

/** Below this grey a pixel is ink. */
const INK = 128;
/** Share of a page's pixels that are isolated ink (a speck) above which the page is cleaned. */
export const SPECKLED = 0.001;

/** Whether pixel `i` of an image `w` wide (not on its edge) is ink with at most one inked neighbour. */
function isSpeck(p: Uint8Array, i: number, w: number, ink: (v: number) => boolean): boolean {
  if (!ink(p[i]!)) return false;
  let n = 0;
  for (const d of [-w - 1, -w, -w + 1, -1, 1, w - 1, w, w + 1]) if (ink(p[i + d]!)) n++;
  return n <= 1;
}

/** The share of the page's pixels that are specks: isolated ink. Clean scans, blurred ones included, have next to none. */
export function speckRatio(pgm: Uint8Array): number {
  const { width: w, height: h, offset } = pgmHeader(pgm);
  const p = pgm.subarray(offset);
  const ink = (v: number) => v < INK;
  let specks = 0;
  for (let y = 1; y < h - 1; y++) for (let x = 1; x < w - 1; x++) if (isSpeck(p, y * w + x, w, ink)) specks++;
  return specks / (w * h);
}

/** The page in black and white (ink below mid-grey), its specks removed. */
export function withoutSpecks(pgm: Uint8Array): Uint8Array {
  const { width: w, height: h, offset } = pgmHeader(pgm);
  const out = pgm.slice();
  const p = out.subarray(offset);
  for (let i = 0; i < w * h; i++) p[i] = p[i]! < INK ? 0 : 255;
  const bw = p.slice();
  const ink = (v: number) => v === 0;
  for (let y = 1; y < h - 1; y++) for (let x = 1; x < w - 1; x++) if (isSpeck(bw, y * w + x, w, ink)) p[y * w + x] = 255;
  return out;
}

/** The page as it is read: cleaned when it is speckled ({@link SPECKLED}), else untouched. */
export function cleanedForOcr(pgm: Uint8Array): Uint8Array {
  return speckRatio(pgm) > SPECKLED ? withoutSpecks(pgm) : pgm;
}
