/**
 * Pages fed to the scanner upside down. Their projection profiles are an upright page's, but their lines
 * are not: in Latin script, letters rise above the x-height (b d f h k l t, capitals, digits) far more
 * often than they fall below the baseline (g j p q y), so an upright line has more ink above its core than
 * below it, and a line upside down the reverse. Pure: PGM in, a verdict out.
 */
import { pgmHeader } from './pgm.ts';

const INK = 128;

/** Ink above and below the lines' cores (the rows of each line holding at least half its fullest row's ink), summed over the page's lines. */
export function inkAroundLineCores(pgm: Uint8Array): { above: number; below: number; lines: number } {
  const { width, height, offset } = pgmHeader(pgm);
  const rows = new Float64Array(height);
  for (let y = 0; y < height; y++) {
    const row = offset + y * width;
    let n = 0;
    for (let x = 0; x < width; x++) if (pgm[row + x]! < INK) n++;
    rows[y] = n;
  }
  let above = 0;
  let below = 0;
  let lines = 0;
  for (let y = 0; y < height; ) {
    if (!rows[y]) {
      y++;
      continue;
    }
    const top = y;
    while (y < height && rows[y]) y++;
    const bottom = y - 1;
    // A band of a few rows is a rule or speck, not a line of text.
    if (bottom - top < 6) continue;
    let peak = 0;
    for (let r = top; r <= bottom; r++) peak = Math.max(peak, rows[r]!);
    let coreTop = top;
    while (rows[coreTop]! < peak / 2) coreTop++;
    let coreBottom = bottom;
    while (rows[coreBottom]! < peak / 2) coreBottom--;
    for (let r = top; r < coreTop; r++) above += rows[r]!;
    for (let r = coreBottom + 1; r <= bottom; r++) below += rows[r]!;
    lines++;
  }
  return { above, below, lines };
}

/** Fewest lines the verdict is drawn from: one or two lines can be all capitals or all descenders. */
const MIN_LINES = 3;
/**
 * A page is taken to be upside down when the ink above its lines' cores is under this share of the ink
 * below them. Measured: rendered pages of prose upright 5.1–6.7, upside down 0.15–0.20; OCRmyPDF's scans
 * upright 0.59–3.6 (a receipt-like scan, epson.pdf, 0.59), cardinal.pdf's upside-down page 0.27. Pages
 * between are read as they are first, as before, and turned when that reads badly.
 */
const UPSIDE_DOWN = 0.4;

/** Whether the page's lines look upside down (see {@link UPSIDE_DOWN}). */
export function looksUpsideDown(pgm: Uint8Array): boolean {
  const { above, below, lines } = inkAroundLineCores(pgm);
  return lines >= MIN_LINES && above < UPSIDE_DOWN * below;
}
