import type { WordBox } from '../core/types.ts';
import { wordsOf } from './text-match.ts';

type Box = WordBox['box'];

/**
 * The rectangles that mark the cited sentences on a page image: the boxes of the words each quote covers
 * ({@link wordsOf}), the words of one line joined into one rectangle (a highlighter's stroke), in reading
 * order. A line runs in any direction on the page as scanned (a page read turned: right to left, or down
 * the page): two words in a row are on one line when they overlap by more than half their height across
 * it, or, for a line down the page, by more than half their width.
 *
 * @example
 * markRects([{ text: 'Pets', box: [0.1, 0.1, 0.2, 0.12] }, { text: 'allowed.', box: [0.21, 0.1, 0.3, 0.12] }], ['Pets allowed.'])
 * // → [[0.1, 0.1, 0.3, 0.12]]
 */
export function markRects(words: readonly WordBox[], quotes: readonly string[]): Box[] {
  const texts = words.map((w) => w.text);
  const rects: Box[] = [];
  for (const quote of quotes) {
    let line: Box | undefined;
    for (const i of wordsOf(texts, quote)) {
      const [x0, y0, x1, y1] = words[i]!.box;
      if (line && (sameLine(line, words[i]!.box, 1) || sameLine(line, words[i]!.box, 0))) line = [Math.min(line[0], x0), Math.min(line[1], y0), Math.max(line[2], x1), Math.max(line[3], y1)];
      else {
        if (line) rects.push(line);
        line = [x0, y0, x1, y1];
      }
    }
    if (line) rects.push(line);
  }
  return rects;
}

/**
 * Whether `word` goes on along `line`: overlapping it by more than half the smaller of the two across the
 * line (`axis` 1: a line across the page, compared by height; 0: down the page, by width), and no further
 * from it along the line than that size twice over.
 */
function sameLine(line: Box, word: Box, axis: 0 | 1): boolean {
  const [a0, a1, b0, b1] = axis === 1 ? [line[1], line[3], word[1], word[3]] : [line[0], line[2], word[0], word[2]];
  const [c0, c1, d0, d1] = axis === 1 ? [line[0], line[2], word[0], word[2]] : [line[1], line[3], word[1], word[3]];
  const size = Math.min(a1 - a0, b1 - b0);
  const across = Math.min(a1, b1) - Math.max(a0, b0);
  const gap = Math.max(d0 - c1, c0 - d1);
  return across > 0.5 * size && gap < 2 * size;
}

const percent = (x: number) => `${(x * 100).toFixed(3)}%`;

/**
 * The cited sentences marked on a page image (a scan read by OCR), laid over the image in fractions of
 * its size, so the marks follow any zoom. Decorative for assistive technology: the Text view marks the same sentences.
 */
export function WordMarks({ rects }: { rects: readonly Box[] }) {
  if (!rects.length) return null;
  return (
    <div class="word-marks" aria-hidden="true">
      {rects.map(([x0, y0, x1, y1]) => (
        <span class="word-mark" style={{ left: percent(x0), top: percent(y0), width: percent(x1 - x0), height: percent(y1 - y0) }} />
      ))}
    </div>
  );
}
