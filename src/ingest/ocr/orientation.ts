/**
 * Pages fed to the scanner sideways or upside down. Tesseract's LSTM reads an upright page at a mean word
 * confidence of 90–96 and the same page turned by 90, 180 or 270 degrees at 36–45, as garbage; a page read
 * with low confidence is therefore tried in the three other orientations, at half its resolution (a quarter
 * of the pixels: each trial costs about a fifth of the page), and read again upright when one of them reads
 * clearly better. Upright pages with good confidence, nearly every page, cost nothing more. Pure apart from
 * the engine: the PGM turning and the box mapping are shared by the parse worker, Node tools and tests.
 */
import { sourceOf } from '../../core/image-orientation.ts';
import { cleanedForOcr } from './despeckle.ts';
import { newPgm, pgmHeader } from './pgm.ts';
import { lineDirection, rotatePgm } from './deskew.ts';
import type { OcrEngine } from './tesseract-engine.ts';
import { looksUpsideDown } from './upside-down.ts';
import { LOW_CONFIDENCE, type RecognisedPage, type Turn } from './recognised-page.ts';

/** Fewest pixels across an image has for it to be read: a line of text needs a few pixels of height and width. */
const MIN_SIDE = 8;

/** How much better (mean word confidence, 0–100) a turned trial reads than the page as it is for the page to be turned. */
const TURN_MARGIN = 15;

/**
 * A PGM image mirrored left to right when `mirror` (a TIFF's Orientation tag can say so), turned clockwise by
 * `turn` degrees, and shrunk by `step` (each output pixel the darkest of its `step` × `step` square: thin
 * strokes survive).
 */
export function turnPgm(pgm: Uint8Array, turn: Turn, step = 1, mirror = false): Uint8Array {
  const src = pgmHeader(pgm);
  const pixels = pgm.subarray(src.offset);
  const w = Math.floor(src.width / step);
  const h = Math.floor(src.height / step);
  const quarter = turn === 90 || turn === 270;
  const [ow, oh] = quarter ? [h, w] : [w, h];
  const { pgm: turned, offset } = newPgm(ow, oh);
  const out = turned.subarray(offset);
  for (let y = 0; y < oh; y++) {
    for (let x = 0; x < ow; x++) {
      // The shrunk source pixel this output pixel shows.
      const [sx, sy] = sourceOf(x, y, w, h, { mirror, turn });
      let v = 255;
      for (let dy = 0; dy < step; dy++) {
        const row = (sy * step + dy) * src.width + sx * step;
        for (let dx = 0; dx < step; dx++) v = Math.min(v, pixels[row + dx]!);
      }
      out[y * ow + x] = v;
    }
  }
  return turned;
}

/**
 * Recognises a page image (PGM), its specks cleaned first when it has them (`despeckle.ts`), turned
 * straight when it is askew (`deskew.ts`: `skew` in the result), the right way up: as it is, or, when that
 * reads with low confidence, turned
 * by the quarter turn whose half-resolution trial reads best (by {@link TURN_MARGIN} over the page as it
 * is, tried at the same resolution), when the page then reads as text does ({@link LOW_CONFIDENCE} or
 * more). The result says the turn it was read at (`turn`, none when it was read as it is).
 */
export async function recogniseUpright(engine: OcrEngine, scanned: Uint8Array, onProgress?: (fraction: number) => void): Promise<RecognisedPage> {
  // An image a few pixels across holds no text, and the engine refuses one this small (a TIFF's 1 × 1 thumbnail).
  const { width, height } = pgmHeader(scanned);
  if (width < MIN_SIDE || height < MIN_SIDE) return { paragraphs: [], confidence: 0, width, height };
  const cleaned = cleanedForOcr(scanned);
  const { runsDown, skew } = lineDirection(cleaned);
  const pgm = skew ? rotatePgm(cleaned, skew) : cleaned;
  const read = await readUpright(engine, pgm, runsDown, onProgress);
  return skew ? { ...read, skew } : read;
}

/**
 * {@link recogniseUpright} once the page is clean and straight: as it is, or turned. A page whose lines
 * run down it is tried first at a quarter turn either way (and as it is) at half resolution, one whose
 * lines look upside down (`upside-down.ts`) at a half turn, and read turned when one of them reads clearly
 * best: reading it as it is first, at full resolution, costs more than a page (garbage reads slowly).
 * Any other page, or one those trials do not settle, is read as it is and tried in every turn only when
 * that reads badly.
 */
async function readUpright(engine: OcrEngine, pgm: Uint8Array, runsDown: boolean, onProgress?: (fraction: number) => void): Promise<RecognisedPage> {
  const trials = new Map<Turn, number>();
  const tryTurns = async (turns: readonly Turn[], heartbeat: number) => {
    for (const turn of turns) {
      if (trials.has(turn)) continue;
      trials.set(turn, (await engine.recognise(turnPgm(pgm, turn, 2))).confidence);
      // Each trial is a heartbeat for the watchdog; the page's own progress stays where it was.
      onProgress?.(heartbeat);
    }
  };
  // Full reads made, by turn: the trials' best turn may come up twice (after the likely turns, then after
  // all four), and a page read as garbage once reads the same again.
  const reads = new Map<Turn, RecognisedPage>();
  /** The page read in the trials' best turn, when that is not as it is, beats it by TURN_MARGIN and reads as text. */
  const readBestTurn = async (): Promise<RecognisedPage | undefined> => {
    const [turn, confidence] = [...trials].reduce((a, b) => (b[1] > a[1] ? b : a));
    if (turn === 0 || confidence < trials.get(0)! + TURN_MARGIN) return undefined;
    const upright = reads.get(turn) ?? (await engine.recognise(turnPgm(pgm, turn), onProgress));
    reads.set(turn, upright);
    // A page turned upright reads as text does (81 for a grainy photocopy, 94-96 clean); a page of symbols
    // can read a little better turned (44 against 7) and is still garbage.
    return upright.confidence >= LOW_CONFIDENCE ? { ...upright, turn } : undefined;
  };
  // Turns the page's ink suggests: a quarter either way for lines running down, a half for lines upside down.
  const likely: Turn[] | undefined = runsDown ? [0, 90, 270] : looksUpsideDown(pgm) ? [0, 180] : undefined;
  if (likely) {
    await tryTurns(likely, 0);
    const turned = await readBestTurn();
    if (turned) return turned;
  }
  const asIs = await engine.recognise(pgm, onProgress);
  if (asIs.confidence >= LOW_CONFIDENCE) return asIs;
  await tryTurns([0, 90, 180, 270], 1);
  return (await readBestTurn()) ?? asIs;
}
