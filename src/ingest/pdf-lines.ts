/**
 * A PDF page's text items (pdf.js `getTextContent`) as lines in reading order, a table's rows written as the
 * other parsers write them (HTML, DOCX, Markdown): one row a paragraph, cells joined by " | ". A PDF has
 * no cells, only text placed on the page; a table is seen by its gaps and its columns: lines whose pieces
 * stand apart by much more than a word space, their cells starting at the same places ({@link markRows}).
 * Without this a table read as one paragraph
 * ("package popcon size description mc V:54, I:226 1482 A text-mode …") and its rows were quoted as prose.
 */

import { CELL_SEPARATOR, DOT_LEADER } from '../core/table-cells.ts';

/** What this reads of a pdf.js text item. */
export interface TextItemLike {
  str: string;
  hasEOL?: boolean;
  /** [a, b, c, d, x, y]: where the item starts on the page. */
  transform?: number[];
  width?: number;
  height?: number;
  /** Key of its font in the page's `styles`. */
  fontName?: string;
}

/** pdf.js's fonts of a page by name: `fontFamily` is "monospace" for a fixed-pitch font. */
export type TextStyles = Readonly<Record<string, { fontFamily?: string }>>;

/**
 * A gap between two pieces of one line at least this many times the line's font height starts a new cell.
 * Word spaces are a quarter to a half of it; tables set by LaTeX leave 1.2 or more between columns (two
 * column separations beside the widest entry); a table of contents leaves as much after a section number,
 * and a justified line stretched by a long unbreakable word leaves 1.7 between its words: neither is a
 * table, which is why a row also needs dot-free cells and a neighbour in its columns.
 */
export const CELL_GAP = 1.2;
/** Cells of each line of a table of two lines (a header and one row): with two, it may be a heading's number and title, or a justified line stretched wide over one with a footnote mark. */
const MIN_CELLS = 3;
/**
 * Most cells of a table row: wider tables are rare, and comparing the columns of two lines costs the product
 * of their cells (a hostile page of lines of 60,000 spaced pieces each would take minutes).
 */
const MAX_CELLS = 64;
/** How many lines away a row's neighbour in its columns may be: its wrapped cells' next lines lie between. */
const ROW_REACH = 3;
/**
 * A list's marker or a footnote's number standing apart from its text: "•", "–", "3", "12.", "b)", "(iv)". A
 * "table" of two columns whose first cells are all such is a list or a page's footnotes, not a table.
 */
const MARKER = /^(?:\p{N}{1,3}[.)]?|\(?\p{L}[.)]|\(?[ivxlc]{1,5}[.)]|[•◦▪‣∙·●○■□➢✓*+\-–—])$/u;

interface Cell {
  /** Where its first visible piece starts. */
  x: number;
  parts: string[];
}

interface Line {
  cells: Cell[];
  /** All its text is in fixed-pitch fonts: code or a terminal's output, whose columns are spaces. */
  code: boolean;
  y: number;
  h: number;
  /** A table row ({@link markRows}). */
  row: boolean;
  /** Its place among the lines given to {@link tableRows}. */
  index?: number;
  /** The places of the lines that were its wrapped cells' next lines ({@link withWrappedCells}). */
  absorbed?: number[];
}

const cellText = (cell: Cell) => cell.parts.join('').trim();

/**
 * Lines of one page in reading order. Pieces on one baseline are one line; a piece far to the right of the
 * last (a gap of {@link CELL_GAP} line heights) starts a new cell, also when it sits a little above or below
 * (a cell of two lines is centred on its row). A gap between lines much taller than the line height starts
 * a new paragraph (marked by an empty line); a table row is a paragraph of its own, and a line under a row
 * whose pieces all start where the row's cells (after its first) start is those cells' next line.
 */
export function pageLines(items: readonly TextItemLike[], styles: TextStyles = {}): string[] {
  const lines: Line[] = [];
  let cells: Cell[] = [];
  let code = true;
  let y: number | undefined;
  let h = 0;
  // Where the last visible piece of the line ends, while pieces carry their widths, and its baseline.
  let end: number | undefined;
  let lastY: number | undefined;
  const push = () => {
    const kept = cells.filter((c) => cellText(c));
    if (kept.length) lines.push({ cells: kept, code, y: y ?? 0, h: h || 10, row: false });
    cells = [];
    code = true;
    y = undefined;
    h = 0;
    end = undefined;
    lastY = undefined;
  };
  for (const item of items) {
    const ix = item.transform?.[4];
    const iy = item.transform?.[5];
    const visible = item.str.trim() !== '';
    let newCell = visible && end !== undefined && ix !== undefined && ix - end >= CELL_GAP * (h || item.height || 10);
    // A space off the baseline says nothing of where the line goes: only pieces with text move to a new line.
    if (visible && y !== undefined && iy !== undefined && cells.length) {
      const near = Math.max(2, h * 0.5);
      const onward = end !== undefined && ix !== undefined && ix >= end - 1;
      const dy = Math.abs(iy - y);
      // Off the line's baseline: the next line, unless it goes on to the right on the baseline of the piece
      // before, or less than a line away (a cell centred on its row beside one-line cells: another cell).
      if (dy > near && !(onward && lastY !== undefined && Math.abs(iy - lastY) <= near)) {
        if (onward && dy < Math.max(h, item.height ?? 0)) newCell = true;
        else push();
      }
    }
    if (y === undefined && iy !== undefined) y = iy;
    h = Math.max(h, item.height ?? 0);
    if (!cells.length || newCell) cells.push({ x: ix ?? 0, parts: [] });
    cells.at(-1)!.parts.push(item.str);
    if (visible) code &&= styles[item.fontName ?? '']?.fontFamily === 'monospace';
    if (visible && ix !== undefined && item.width !== undefined) end = ix + item.width;
    if (visible && iy !== undefined) lastY = iy;
    if (item.hasEOL) push();
  }
  push();
  markRows(lines);
  return toText(withWrappedCells(lines));
}

/** A line placed on its page with its cells already found (OCR's lines: `ocr/recognised-page.ts`), in points. */
export interface PlacedLine {
  cells: ReadonlyArray<{ x: number; text: string }>;
  /** Its baseline, growing up the page (as a PDF's). */
  y: number;
  /** Its height. */
  h: number;
}

/**
 * The table rows among placed lines, by the rules {@link pageLines} reads a PDF's by: each row by the
 * place of its line, with its cells and the places of the lines that were its wrapped cells' next lines.
 */
export function tableRows(placed: readonly PlacedLine[]): Map<number, { cells: string[]; absorbed: number[] }> {
  const lines: Line[] = placed.map((p, index) => ({ cells: p.cells.map((c) => ({ x: c.x, parts: [c.text] })), code: false, y: p.y, h: p.h, row: false, index }));
  markRows(lines);
  const rows = new Map<number, { cells: string[]; absorbed: number[] }>();
  for (const line of withWrappedCells(lines)) if (line.row) rows.set(line.index!, { cells: line.cells.map(cellText), absorbed: line.absorbed ?? [] });
  return rows;
}

/** Whether two cell starts are one column's (pieces of a column share their left edge). */
const sameColumn = (a: number, b: number) => Math.abs(a - b) <= 2;

/**
 * Marks the table rows among the lines. A candidate has two cells or more, no dot leaders, and is not all
 * in fixed-pitch fonts (code, a terminal's output: its columns are runs of spaces, not cells); candidates
 * at most {@link ROW_REACH} lines apart whose cells after the first start in the same columns (two of them,
 * or the one a two-cell line has) are one table. A table is rows when it has three lines, or two of three
 * cells or more (a header and one row), and is not a list: two cells a line, the first a marker or a
 * number ({@link MARKER}: bullets or footnotes set apart from their text). A line of prose stretched wide, a
 * heading's number and title, a running header and its page number: each is alone, the lines around it
 * have one cell.
 */
function markRows(lines: Line[]): void {
  const candidate = lines.map((l) => !l.code && l.cells.length >= 2 && l.cells.length <= MAX_CELLS && !l.cells.some((c) => DOT_LEADER.test(cellText(c))));
  const aligned = (a: Line, b: Line) => {
    const shared = a.cells.slice(1).filter((c) => b.cells.slice(1).some((d) => sameColumn(c.x, d.x))).length;
    return shared >= Math.min(2, a.cells.length - 1, b.cells.length - 1);
  };
  let table: number[] = [];
  const close = () => {
    const list = table.every((i) => lines[i]!.cells.length === 2 && MARKER.test(cellText(lines[i]!.cells[0]!)));
    if (!list && (table.length >= 3 || (table.length === 2 && table.every((i) => lines[i]!.cells.length >= MIN_CELLS)))) for (const i of table) lines[i]!.row = true;
    table = [];
  };
  lines.forEach((line, i) => {
    if (!candidate[i]) return;
    const last = table.at(-1);
    if (last !== undefined && !(i - last <= ROW_REACH && aligned(lines[last]!, line))) close();
    table.push(i);
  });
  close();
}

/**
 * Lines with a row's wrapped cells put back into it: a line right under a row (within two line heights)
 * whose every piece starts where one of the row's cells after the first starts, or right of its last (a
 * cell centred on the row, whose first line the row did not reach). Text starting under the first cell is
 * left alone: it may as well be the next row, or the paragraph after the table.
 */
function withWrappedCells(lines: readonly Line[]): Line[] {
  const out: Line[] = [];
  let lastY = 0;
  for (const line of lines) {
    const row = out.at(-1);
    const continues =
      row?.row &&
      !line.row &&
      line.cells.length <= MAX_CELLS &&
      lastY - line.y > 0 &&
      lastY - line.y <= 2 * Math.max(row.h, line.h) &&
      line.cells.every((c) => row.cells.slice(1).some((r) => sameColumn(r.x, c.x)) || c.x > row.cells.at(-1)!.x + 2);
    if (continues) {
      if (line.index !== undefined) row.absorbed = [...(row.absorbed ?? []), line.index];
      for (const c of line.cells) {
        const into = row.cells.find((r, i) => i > 0 && sameColumn(r.x, c.x));
        if (into) into.parts.push(' ', ...c.parts);
        else row.cells.push({ x: c.x, parts: [...c.parts] });
      }
    } else out.push({ ...line, cells: line.cells.map((c) => ({ ...c, parts: [...c.parts] })) });
    lastY = line.y;
  }
  return out;
}

/** The lines as text: a row's cells joined by {@link CELL_SEPARATOR} between empty lines; other lines' pieces as they came. */
function toText(lines: readonly Line[]): string[] {
  const out: string[] = [];
  lines.forEach((line, i) => {
    const prev = lines[i - 1];
    if (prev && (line.row || prev.row || Math.abs(prev.y - line.y) > Math.max(prev.h, line.h) * 1.8)) out.push('');
    out.push(line.row ? line.cells.map(cellText).join(CELL_SEPARATOR) : line.cells.flatMap((c) => c.parts).join('').trim());
  });
  return out;
}
