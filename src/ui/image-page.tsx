import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { WordBox } from '../core/types.ts';
import { pageBitmap } from './image-bitmap.ts';
import { markRects, WordMarks } from './word-marks.tsx';

/** The most pixels the image's canvas holds (as a PDF page's: 16 Mi); a larger photo is drawn smaller. */
const MAX_CANVAS_PIXELS = 16 * 2 ** 20;

/**
 * An image document's page (a photographed or scanned page read by OCR; a TIFF's cited page) as it is, the width of the dialog at
 * most, with the cited sentences marked over their recognised words and the first mark scrolled into view.
 * Drawn on a canvas, as PDF pages are: the CSP allows no `blob:` images.
 */
export function ImagePage({ blob, name, page, quotes, words }: { blob: Blob; name: string; page: number; quotes: readonly string[]; words?: readonly WordBox[] }) {
  const box = useRef<HTMLDivElement>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const [drawn, setDrawn] = useState(false);
  const [error, setError] = useState<string>();
  const rects = useMemo(() => (words ? markRects(words, quotes) : []), [words, quotes]);
  useEffect(() => {
    let live = true;
    setDrawn(false);
    pageBitmap(blob, page).then(
      (bitmap) => {
        const canvas = canvasRef.current;
        if (!live || !canvas) return bitmap.close();
        const scale = Math.min(1, Math.sqrt(MAX_CANVAS_PIXELS / (bitmap.width * bitmap.height)));
        canvas.width = Math.max(1, Math.round(bitmap.width * scale));
        canvas.height = Math.max(1, Math.round(bitmap.height * scale));
        canvas.getContext('2d')?.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
        bitmap.close();
        setDrawn(true);
      },
      (err: unknown) => live && setError(`This image could not be shown: ${err instanceof Error ? err.message : String(err)}`),
    );
    return () => {
      live = false;
    };
  }, [blob, page]);
  useEffect(() => {
    if (drawn) box.current?.querySelector('.word-mark')?.scrollIntoView({ block: 'center' });
  }, [drawn, rects]);
  return (
    <>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <div class="image-page" ref={box} data-page={drawn ? page : undefined}>
        <canvas ref={canvasRef} aria-label={`${name}, page ${page}`} />
        {drawn && <WordMarks rects={rects} />}
      </div>
    </>
  );
}
