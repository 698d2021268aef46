/**
 * Pages scanned askew. tesseract's layout absorbs a few degrees (2.5° read at 0.27 % CER, 4° at 1.4 %) but
 * not more (6° at 7 %, 8° at 15 %, figures in decision 0032). The skew is measured as the angle at which
 * the page's rows of ink are sharpest (the projection profile's sum of squares, on a copy at most
 * {@link SAMPLE_WIDTH} wide), or at which its columns are, when they are the sharper (a page fed sideways:
 * its lines run down it), and a page askew by {@link MIN_SKEW}° or more is turned straight before it is read.
 * A page whose profile sharpens at no angle (a picture) is left as it is.
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

/** Which way a page's lines run, and how far askew they are. */
export interface LineDirection {
  /**
   * The lines run down the page (it was fed to the scanner sideways): the ink per column, at the columns'
   * sharpest angle, is more uneven than the ink per row at the rows' (see {@link RUNS_DOWN}).
   */
  runsDown: boolean;
  /**
   * Degrees the page is askew (positive: its lines fall to the right, as on a page turned clockwise on the
   * scanner; for lines running down, as seen once the page is turned a quarter clockwise), 0 under
   * {@link MIN_SKEW} or when no angle sharpens the lines. `rotatePgm(page, skew)` straightens the page
   * either way: turns about the centre commute, so a sideways page straightened as it is stays straight
   * when it is later turned upright.
   */
  skew: number;
}

/**
 * Lines of text make the ink per row uneven (a line's rows full of ink, the gaps between lines empty) and
 * the ink per column even (the words of many lines overlap); a page whose lines run down it, the reverse.
 * Unevenness is the coefficient of variation of the ink per line between the first and the last holding
 * any, at each direction's sharpest angle; the columns must be this many times as uneven as the rows.
 */
const RUNS_DOWN = 1.2;
/**
 * ... and the ink must span at least this share of the page both ways: one line across an upright page
 * (a title, a one-line note) has even rows and uneven columns too.
 */
const MIN_SPAN = 0.05;

/**
 * Which way the page's lines run and how far they are askew: the angle (±{@link MAX_SKEW}°, by {@link STEP})
 * at which the rows of ink are sharpest (the projection profile's sum of squares, on a copy at most
 * {@link SAMPLE_WIDTH} wide), and the same for its columns; then how uneven each is at that angle.
 */
export function lineDirection(pgm: Uint8Array): LineDirection {
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
  if (xs.length < 100) return { runsDown: false, skew: 0 };
  const bins = Math.ceil(Math.hypot(width, height) / step) + 2;
  const counts = new Float64Array(bins * 2);
  /** The ink per line at `degrees`, into `counts`: lines across (rows) or down (columns) the page. */
  const profile = (degrees: number, down: boolean) => {
    const a = (degrees * Math.PI) / 180;
    const [sin, cos] = [Math.sin(a), Math.cos(a)];
    counts.fill(0);
    // The row a pixel falls in once the page is turned back by `degrees`; for lines running down, the
    // row it falls in on the page turned a quarter clockwise (x becomes the row, y the column from the right).
    if (down) for (let i = 0; i < xs.length; i++) counts[Math.round(xs[i]! * cos + ys[i]! * sin) + bins]!++;
    else for (let i = 0; i < xs.length; i++) counts[Math.round(ys[i]! * cos - xs[i]! * sin) + bins]!++;
  };
  const sharpness = (degrees: number, down: boolean): number => {
    profile(degrees, down);
    let sum = 0;
    for (const c of counts) sum += c * c;
    return sum;
  };
  const sharpest = (down: boolean) => {
    const flat = sharpness(0, down);
    let best = 0;
    let score = flat;
    for (let d = -MAX_SKEW; d <= MAX_SKEW + 1e-9; d += STEP) {
      const s = sharpness(d, down);
      if (s > score) [best, score] = [d, s];
    }
    profile(best, down);
    return { skew: Math.abs(best) >= MIN_SKEW && score >= SHARPER * flat ? best : 0, ...unevenness(counts, (down ? width : height) / step) };
  };
  const across = sharpest(false);
  const down = sharpest(true);
  const runsDown = across.span >= MIN_SPAN && down.span >= MIN_SPAN && down.variation > RUNS_DOWN * across.variation;
  return { runsDown, skew: runsDown ? down.skew : across.skew };
}

/**
 * The coefficient of variation of `counts` between the first and the last that are not zero, and the share
 * of a side `side` bins long that they span.
 */
function unevenness(counts: Float64Array, side: number): { variation: number; span: number } {
  let first = 0;
  let last = counts.length - 1;
  while (!counts[first]) first++;
  while (!counts[last]) last--;
  const n = last - first + 1;
  let sum = 0;
  for (let i = first; i <= last; i++) sum += counts[i]!;
  const mean = sum / n;
  let squares = 0;
  for (let i = first; i <= last; i++) squares += (counts[i]! - mean) ** 2;
  return { variation: Math.sqrt(squares / n) / mean, span: n / side };
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
