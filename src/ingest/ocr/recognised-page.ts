import { CELL_SEPARATOR } from '../../core/table-cells.ts';
import type { PageReading, WordBox } from '../../core/types.ts';
import { CELL_GAP, tableRows, type PlacedLine } from '../pdf-lines.ts';
import { isReadable } from '../readable.ts';
import { newPgm } from './pgm.ts';

/**
 * What OCR gives for one page image, and how it becomes the lines a parser hands on. Pure: shared by the
 * parse worker, Node tools and tests.
 */

/** A rectangle in the page image's pixels. */
export interface PixelBox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** One recognised word, with where it is and how sure the engine is (0–100). */
export interface RecognisedWord {
  text: string;
  box: PixelBox;
  confidence: number;
}

/** Degrees a page image is turned clockwise to be upright. */
export type Turn = 0 | 90 | 180 | 270;

/** One page read by OCR: its paragraphs as lines of words, in reading order. */
export interface RecognisedPage {
  /** Paragraphs, each a list of lines, each a list of words. */
  paragraphs: RecognisedWord[][][];
  /** The engine's mean word confidence for the page, 0–100 (0 when it found no words). */
  confidence: number;
  /** The image's size in pixels (as read: turned upright). */
  width: number;
  height: number;
  /** Degrees the image was turned clockwise to be read upright (`ocr/orientation.ts`); none when it was read as it is. */
  turn?: Turn;
  /** Degrees the scan was askew (clockwise) and was turned back before it was read (`ocr/deskew.ts`); none when straight. */
  skew?: number;
}

/**
 * Below this mean word confidence a page is named in the document's status ("page 4 recognised with low
 * confidence"). tesseract's confidence on clean 150–300 dpi pages of real abstracts is 90–96; on a page of
 * noise or a photograph it falls under 60.
 */
export const LOW_CONFIDENCE = 70;

/**
 * Under this mean word confidence what OCR read is not text: a page of symbols (a subset font's codes drawn
 * as "!\"#$…") reads as "IHS) (SOSYoH +U8H0" at 0–10, where printed prose reads at 90–96.
 */
export const MIN_CONFIDENCE = 30;

/**
 * A gap between two lines taller than this share of the page's median line height starts a paragraph, as
 * well as tesseract's own paragraph ends: it often reads a page's paragraphs as one when they are not
 * indented.
 */
const PARAGRAPH_GAP = 0.6;

/**
 * The height a page's median line is taken to have when its lines are compared with a PDF's table rules
 * (`pdf-lines.ts`, whose gaps and tolerances are in points of a line about this high).
 */
const LINE_POINTS = 10;

/**
 * The page's text as the PDF parser's lines: one line per recognised line, an empty line between
 * paragraphs (as `pageLines` marks a paragraph gap), nothing for a page without words. A table's rows are
 * read as a PDF's are (`tableRows`): tesseract reads a row as one line whose cells stand far apart, and
 * each row becomes a paragraph of its cells joined by " | ", where it read as words run together.
 */
export function linesOfPage(page: RecognisedPage): string[] {
  const lines = page.paragraphs.flatMap((paragraph, p) =>
    paragraph
      .map((line) => line.filter((w) => w.text.trim() !== ''))
      .filter((line) => line.length > 0)
      .map((line, i) => ({
        words: line,
        text: line.map((w) => w.text).join(' ').trim(),
        top: Math.min(...line.map((w) => w.box.y0)),
        bottom: Math.max(...line.map((w) => w.box.y1)),
        starts: i === 0 && p > 0,
      })),
  );
  const heights = lines.map((l) => l.bottom - l.top).sort((a, b) => a - b);
  const median = heights[Math.floor(heights.length / 2)] ?? 0;
  const rows = median > 0 ? tableRows(lines.map((l) => placedLine(l.words, l.bottom, LINE_POINTS / median))) : new Map<number, { cells: string[]; absorbed: number[] }>();
  const absorbed = new Set([...rows.values()].flatMap((r) => r.absorbed));
  const columns = columnRuns(lines.map((_, i) => (absorbed.has(i) ? 'absorbed' : rows.get(i)?.cells)));
  const out: string[] = [];
  let afterRow = false;
  lines.forEach((line, i) => {
    if (absorbed.has(i)) return;
    const prev = lines[i - 1];
    const row = rows.get(i);
    const run = columns.get(i);
    if (run === null) return;
    if (prev && (row || afterRow || line.starts || line.top - prev.bottom > PARAGRAPH_GAP * median) && out.at(-1) !== '') out.push('');
    // Two columns of prose read across as one line each: the left column, then the right.
    if (run) out.push(...run.map((r) => rows.get(r)!.cells[0]!), '', ...run.map((r) => rows.get(r)!.cells[1]!));
    else out.push(row ? row.cells.join(CELL_SEPARATOR) : line.text);
    afterRow = !!row;
  });
  return out;
}

/** Words each cell of a line has in two columns of prose (a table's first cell is a name or a number: fewer). */
const COLUMN_WORDS = 4;
/** Lines of two columns of prose in a row before they are read as columns rather than a table. */
const COLUMN_LINES = 4;

/**
 * Two columns of prose that tesseract read across the gutter, each line a "row" of two long cells: runs of
 * {@link COLUMN_LINES} rows or more in a row (their wrapped lines between them), every one of two cells of
 * {@link COLUMN_WORDS} words or more. The map gives each run's first line its rows, and the others null.
 */
function columnRuns(lines: ReadonlyArray<string[] | 'absorbed' | undefined>): Map<number, number[] | null> {
  const out = new Map<number, number[] | null>();
  let run: number[] = [];
  const close = () => {
    if (run.length >= COLUMN_LINES) run.forEach((r, k) => out.set(r, k === 0 ? run : null));
    run = [];
  };
  lines.forEach((cells, i) => {
    if (cells === 'absorbed') return;
    if (cells?.length === 2 && cells.every((c) => c.split(' ').length >= COLUMN_WORDS)) run.push(i);
    else close();
  });
  close();
  return out;
}

/** A recognised line in points (`scale` of a pixel), its cells the runs of words closer than a cell's gap (`CELL_GAP` line heights). */
function placedLine(words: readonly RecognisedWord[], bottom: number, scale: number): PlacedLine {
  const cells: Array<{ x: number; text: string }> = [];
  let end: number | undefined;
  for (const w of words) {
    if (end === undefined || w.box.x0 - end >= CELL_GAP * LINE_POINTS / scale) cells.push({ x: w.box.x0 * scale, text: w.text });
    else cells.at(-1)!.text += ` ${w.text}`;
    end = w.box.x1;
  }
  return { cells, y: -bottom * scale, h: LINE_POINTS };
}

/**
 * The page's lines ({@link linesOfPage}) when they are text: read with at least {@link MIN_CONFIDENCE},
 * holding a letter, and readable (`isReadable`); undefined otherwise, as for a page of symbols or of nothing.
 */
export function acceptedLines(page: RecognisedPage): string[] | undefined {
  const lines = linesOfPage(page);
  const text = lines.join('\n');
  return page.confidence >= MIN_CONFIDENCE && /\p{L}/u.test(text) && isReadable(text) ? lines : undefined;
}

/** Fractions of the page kept to 4 decimals: a tenth of a pixel on a 300-dpi page. */
const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

/**
 * The page's words in reading order with their boxes as fractions of the page as it was scanned (turned
 * back when it was read turned): what the Source view marks on the page, at any size the page is shown.
 */
export function pageWords(page: RecognisedPage): WordBox[] {
  const { width, height } = page;
  if (!width || !height) return [];
  // The straightened page's size: the image as read, before it was turned a quarter.
  const [w, h] = page.turn === 90 || page.turn === 270 ? [height, width] : [width, height];
  return page.paragraphs.flat(2).map((word) => {
    const straight = unturnBox([word.box.x0 / width, word.box.y0 / height, word.box.x1 / width, word.box.y1 / height], page.turn ?? 0);
    return { text: word.text, box: (page.skew ? unskewBox(straight, page.skew, w, h) : straight).map(round4) as WordBox['box'] };
  });
}

/**
 * A box on the straightened page (fractions of a `width` × `height` page) as it lies on the page scanned
 * `skew` degrees askew (clockwise): its corners turned back about the centre, and the box around them.
 */
export function unskewBox(box: [number, number, number, number], skew: number, width: number, height: number): [number, number, number, number] {
  const a = (skew * Math.PI) / 180;
  const [sin, cos] = [Math.sin(a), Math.cos(a)];
  const corners = [
    [box[0], box[1]],
    [box[2], box[1]],
    [box[0], box[3]],
    [box[2], box[3]],
  ].map(([u, v]) => {
    const dx = (u! - 0.5) * width;
    const dy = (v! - 0.5) * height;
    return [(dx * cos - dy * sin) / width + 0.5, (dx * sin + dy * cos) / height + 0.5] as const;
  });
  const xs = corners.map((c) => c[0]);
  const ys = corners.map((c) => c[1]);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

/**
 * A box in fractions of the upright page (left, top, right, bottom) as fractions of the page as it was
 * scanned, before it was turned clockwise by `turn`.
 */
export function unturnBox(box: [number, number, number, number], turn: Turn): [number, number, number, number] {
  const point = (u: number, v: number): [number, number] => (turn === 90 ? [v, 1 - u] : turn === 180 ? [1 - u, 1 - v] : turn === 270 ? [1 - v, u] : [u, v]);
  const [ax, ay] = point(box[0], box[1]);
  const [bx, by] = point(box[2], box[3]);
  return [Math.min(ax, bx), Math.min(ay, by), Math.max(ax, bx), Math.max(ay, by)];
}

/**
 * A grey-scale PGM (binary "P5") image of RGBA pixels: what the page renderer hands the OCR engine. Leptonica
 * reads it without decoding, so the same bytes serve Node and the browser and no PNG is encoded.
 */
export function toPgm(rgba: Uint8ClampedArray | Uint8Array, width: number, height: number): Uint8Array {
  if (rgba.length !== width * height * 4) throw new RangeError(`toPgm: ${rgba.length} bytes for ${width} × ${height} pixels`);
  const { pgm: out, offset } = newPgm(width, height);
  for (let i = 0, o = offset; i < rgba.length; i += 4, o++) {
    // Transparent pixels are paper: a page rendered on a transparent canvas has no white under its text.
    const a = rgba[i + 3]! / 255;
    const grey = 0.299 * rgba[i]! + 0.587 * rgba[i + 1]! + 0.114 * rgba[i + 2]!;
    out[o] = Math.round(grey * a + 255 * (1 - a));
  }
  return out;
}

/** What a parser keeps of a page OCR read: its lines when they are text ({@link acceptedLines}), and their words. */
export function readingOf(page: number, read: RecognisedPage, languages?: readonly string[]): PageReading {
  const lines = acceptedLines(read);
  return { page, ...(lines && { lines }), words: lines ? pageWords(read) : [], confidence: read.confidence, ...(languages && { languages: [...languages] }) };
}

/** `{ ocrLanguages }`: the languages a document's recognised pages were read in, each once; `{}` when none is known. */
export function withLanguages(readings: Iterable<PageReading>): { ocrLanguages?: string[] } {
  const codes = [...new Set([...readings].flatMap((r) => r.languages ?? []))];
  return codes.length ? { ocrLanguages: codes } : {};
}
