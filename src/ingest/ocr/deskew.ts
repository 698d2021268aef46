/**
 * Pages scanned askew. tesseract's layout absorbs a few degrees (2.5° read at 0.27 % CER, 4° at 1.4 %) but
 * not more (6° at 7 %, 8° at 15 %, figures in decision 0032). The skew is measured as the angle at which
 * the page's rows of ink are sharpest (the projection profile's sum of squares, on a copy at most
 * {@link SAMPLE_WIDTH} wide), and a page askew by {@link MIN_SKEW}° or more is turned straight before it is
 * read. A page whose profile sharpens at no angle (a picture, lines running down the page) is left as it is.
 * Pure: PGM in, PGM out.
 */

import { pgmHeader } from './pgm.ts';

/** Angles tried, in degrees either way, and the step. */
const MAX_SKEW = 10;
const STEP = 0.25;
/** Below this many degrees the page is read as it is. */
export const MIN_SKEW = 1.5;
/** The profile must be this much sharper at the best angle than unturned for the page to count as askew. */
const SHARPER = 1.15;
/** The copy the angle is measured on is at most this many pixels wide. */
const SAMPLE_WIDTH = 600;
const INK = 128;
/** How far outside the page (in pixels, for rounding) a sample still takes the edge's pixel. */
const EDGE = 1e-6;

/**
 * The page's skew in degrees (positive: its lines fall to the right, as on a page turned clockwise on
 * the scanner), or 0 when it is under {@link MIN_SKEW} or no angle sharpens its rows of ink.
 */
export function skewAngle(pgm: Uint8Array): number {
  const { width, height, offset } = pgmHeader(pgm);
  const step = Math.max(1, Math.ceil(width / SAMPLE_WIDTH));
  const xs: number[] = [];
  const ys: number[] = [];
  for (let y = 0; y < height; y += step) {
    for (let x = 0; x < width; x += step) {
      if (pgm[offset + y * width + x]! < INK) {
        xs.push(x / step);
        ys.push(y / step);
      }
    }
  }
  if (xs.length < 100) return 0;
  const rows = Math.ceil(Math.hypot(width, height) / step) + 2;
  const counts = new Float64Array(rows * 2);
  const sharpness = (degrees: number): number => {
    const a = (degrees * Math.PI) / 180;
    const [sin, cos] = [Math.sin(a), Math.cos(a)];
    counts.fill(0);
    // The row a pixel falls in once the page is turned back by `degrees`.
    for (let i = 0; i < xs.length; i++) counts[Math.round(ys[i]! * cos - xs[i]! * sin) + rows]!++;
    let sum = 0;
    for (const c of counts) sum += c * c;
    return sum;
  };
  const flat = sharpness(0);
  let best = 0;
  let bestScore = flat;
  for (let d = -MAX_SKEW; d <= MAX_SKEW + 1e-9; d += STEP) {
    const score = sharpness(d);
    if (score > bestScore) [best, bestScore] = [d, score];
  }
  return Math.abs(best) >= MIN_SKEW && bestScore >= SHARPER * flat ? best : 0;
}

/** The page turned by `degrees` counter-clockwise about its centre (bilinear; white where nothing was). */
export function rotatePgm(pgm: Uint8Array, degrees: number): Uint8Array {
  const { width: w, height: h, offset } = pgmHeader(pgm);
  const out = pgm.slice();
  const src = pgm.subarray(offset);
  const dst = out.subarray(offset);
  const a = (degrees * Math.PI) / 180;
  const [sin, cos] = [Math.sin(a), Math.cos(a)];
  const [cx, cy] = [(w - 1) / 2, (h - 1) / 2];
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      // The source pixel this output pixel shows: the output point turned back clockwise.
      const dx = x - cx;
      const dy = y - cy;
      const sx = cx + dx * cos - dy * sin;
      const sy = cy + dx * sin + dy * cos;
      if (sx < -EDGE || sy < -EDGE || sx > w - 1 + EDGE || sy > h - 1 + EDGE) {
        dst[y * w + x] = 255;
        continue;
      }
      const x0 = Math.min(w - 1, Math.max(0, Math.floor(sx)));
      const y0 = Math.min(h - 1, Math.max(0, Math.floor(sy)));
      const x1 = Math.min(w - 1, x0 + 1);
      const y1 = Math.min(h - 1, y0 + 1);
      const fx = Math.max(0, sx - x0);
      const fy = Math.max(0, sy - y0);
      const top = src[y0 * w + x0]! * (1 - fx) + src[y0 * w + x1]! * fx;
      const bottom = src[y1 * w + x0]! * (1 - fx) + src[y1 * w + x1]! * fx;
      dst[y * w + x] = Math.round(top * (1 - fy) + bottom * fy);
    }
  }
  return out;
}
