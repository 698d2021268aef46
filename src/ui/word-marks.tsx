import type { WordBox } from '../core/types.ts';
import { wordsOf } from './text-match.ts';

type Box = WordBox['box'];

/**
 * The rectangles that mark the cited sentences on a page image: the boxes of the words each quote covers
 * ({@link wordsOf}), the words of one line joined into one rectangle (a highlighter's stroke), in reading order.
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
      // The same line: the word starts after the last one and overlaps it by more than half its height.
      const overlap = line ? Math.min(line[3], y1) - Math.max(line[1], y0) : 0;
      if (line && x0 >= line[0] && overlap > 0.5 * Math.min(line[3] - line[1], y1 - y0)) line = [line[0], Math.min(line[1], y0), Math.max(line[2], x1), Math.max(line[3], y1)];
      else {
        if (line) rects.push(line);
        line = [x0, y0, x1, y1];
      }
    }
    if (line) rects.push(line);
  }
  return rects;
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
