import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { WordBox } from '../core/types.ts';
import { withoutCellSeparators } from '../core/table-cells.ts';
import { findInItems, type ItemRange } from './text-match.ts';
import { markRects, WordMarks } from './word-marks.tsx';

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
type PdfDocument = Awaited<ReturnType<PdfJs['getDocument']>['promise']>;
type TextLayer = InstanceType<PdfJs['TextLayer']>;

/** Where the build puts pdf.js's CMaps and standard fonts (`PDFJS_ASSET_ROOT` in src/ingest/pdf-assets.ts). */
const ASSETS = 'pdfjs/';
/** CSS pixels per PDF point at zoom 100%. */
const BASE_SCALE = 1.25;
/** The page's margin on either side, in CSS pixels (`.pdf-page` in styles.css: 1rem). */
const PAGE_MARGIN = 16;
/** The steps of Zoom in and Zoom out; a page opens at 100 %, or at the zoom that fits its width when narrower. */
const ZOOMS = [0.25, 0.375, 0.5, 0.75, 1, 1.25, 1.5, 2, 3];
const MIN_ZOOM = ZOOMS[0]!;
const MAX_ZOOM = ZOOMS.at(-1)!;

/** The zoom at which a page `width` pixels wide (at 100 %) fills `room` pixels: 100 % at most, 25 % at least. */
export function fittingZoom(width: number, room: number): number {
  return Math.max(MIN_ZOOM, Math.min(1, room / width));
}

/** The next step of {@link ZOOMS} above (`dir` 1) or below (-1) `zoom`, which may lie between steps (a fitted page). */
export function nextZoom(zoom: number, dir: 1 | -1): number {
  const steps = dir > 0 ? ZOOMS.filter((z) => z > zoom + 1e-6) : ZOOMS.filter((z) => z < zoom - 1e-6).reverse();
  return steps[0] ?? zoom;
}

/**
 * The most pixels a page's canvas holds: 16 Mi (64 MiB of RGBA, a 4,096 × 4,096 square). A larger page
 * (a poster, a 40,000-point drawing, a high zoom on a big page) is drawn at a lower resolution and shown
 * at its full size, a little blurred, rather than on a canvas the browser cannot allocate, which stays blank.
 */
const MAX_CANVAS_PIXELS = 16 * 2 ** 20;
/** The longest side a canvas may have (browsers refuse about 32,767 and more; a thin strip of a page could reach it within the pixel budget). */
const MAX_CANVAS_SIDE = 16_384;

/**
 * Sizes `canvas` for a page `width` × `height` CSS pixels: device pixels when they fit the budget
 * ({@link MAX_CANVAS_PIXELS}, {@link MAX_CANVAS_SIDE}), fewer otherwise. Returns the device pixels per CSS pixel.
 */
function sizeCanvas(canvas: HTMLCanvasElement, width: number, height: number): number {
  const ratio = Math.min(window.devicePixelRatio || 1, Math.sqrt(MAX_CANVAS_PIXELS / (width * height)), MAX_CANVAS_SIDE / width, MAX_CANVAS_SIDE / height);
  canvas.width = Math.max(1, Math.floor(width * ratio));
  canvas.height = Math.max(1, Math.floor(height * ratio));
  canvas.style.width = `${Math.floor(width)}px`;
  canvas.style.height = `${Math.floor(height)}px`;
  return ratio;
}

let loading: Promise<PdfJs> | undefined;

/** pdf.js for the page, loaded on first use, with its worker started from the bundle (same origin). */
function loadPdfJs(): Promise<PdfJs> {
  loading ??= import('pdfjs-dist/legacy/build/pdf.mjs').then((pdfjs) => {
    pdfjs.GlobalWorkerOptions.workerPort = new Worker(new URL('../../workers/pdf-render.worker.ts', import.meta.url), { type: 'module', name: 'pdf-render' });
    return pdfjs;
  });
  return loading;
}

async function openPdf(blob: Blob): Promise<PdfDocument> {
  const pdfjs = await loadPdfJs();
  const base = new URL(`${import.meta.env.BASE_URL}${ASSETS}`, location.href).href;
  return pdfjs.getDocument({
    data: new Uint8Array(await blob.arrayBuffer()),
    cMapUrl: `${base}cmaps/`,
    cMapPacked: true,
    standardFontDataUrl: `${base}standard_fonts/`,
    useWorkerFetch: true,
    // No `new Function` for glyph outlines: the CSP allows no eval.
    isEvalSupported: false,
    verbosity: 0,
  }).promise;
}

/** Wraps the cited text's pieces in `<mark>`, inside the text layer's spans (whose text is transparent over the canvas). */
function markQuotes(layer: TextLayer, quotes: readonly string[]): void {
  const byItem = new Map<number, ItemRange[]>();
  for (const quote of quotes) {
    // A table row's cells are joined by " | " in the stored text; the page has them side by side.
    const found = findInItems(layer.textContentItemsStr, quote);
    for (const r of found.length ? found : findInItems(layer.textContentItemsStr, withoutCellSeparators(quote))) byItem.set(r.item, [...(byItem.get(r.item) ?? []), r]);
  }
  for (const [item, ranges] of byItem) {
    const span = layer.textDivs[item];
    if (!span) continue;
    const text = span.textContent ?? '';
    const parts: Array<string | HTMLElement> = [];
    let at = 0;
    for (const r of ranges.sort((a, b) => a.start - b.start)) {
      if (r.start < at) continue;
      const mark = document.createElement('mark');
      mark.textContent = text.slice(r.start, r.end);
      parts.push(text.slice(at, r.start), mark);
      at = r.end;
    }
    parts.push(text.slice(at));
    span.replaceChildren(...parts);
  }
}

/**
 * A PDF's real page, drawn by pdf.js on a canvas with its text layer above it (selectable text), the cited
 * sentences marked in the text layer on the cited page, or, on a page read by OCR (`words`), over the
 * recognised words' boxes; zoom and previous/next page.
 */
export function PdfPage({ blob, page, quotes, words }: { blob: Blob; page: number; quotes: readonly string[]; words?: readonly WordBox[] }) {
  const [doc, setDoc] = useState<PdfDocument>();
  const [error, setError] = useState<string>();
  const [at, setAt] = useState(page);
  // Undefined until the first page is measured: it opens at 100 %, or smaller when the dialog is narrower
  // (a phone), so nothing scrolls sideways; Zoom in is there for the rest.
  const [zoom, setZoom] = useState<number>();
  const viewRef = useRef<HTMLDivElement>(null);
  const [shown, setShown] = useState(0);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const layerRef = useRef<HTMLDivElement>(null);
  const pageRef = useRef<HTMLDivElement>(null);
  const rects = useMemo(() => (words ? markRects(words, quotes) : []), [words, quotes]);

  useEffect(() => {
    let open: PdfDocument | undefined;
    let live = true;
    openPdf(blob).then(
      (d) => (live ? setDoc((open = d)) : void d.destroy()),
      (err: unknown) => live && setError(`This page could not be shown: ${err instanceof Error ? err.message : String(err)}`),
    );
    return () => {
      live = false;
      void open?.destroy();
    };
  }, [blob]);
  useEffect(() => setAt(page), [page]);

  useEffect(() => {
    const canvas = canvasRef.current;
    const box = layerRef.current;
    if (!doc || !canvas || !box) return;
    let live = true;
    let cancel = () => {};
    void (async () => {
      const pdfjs = await loadPdfJs();
      const pdfPage = await doc.getPage(at);
      if (!live) return;
      if (zoom === undefined) {
        const room = (viewRef.current?.clientWidth ?? Infinity) - 2 * PAGE_MARGIN;
        setZoom(fittingZoom(pdfPage.getViewport({ scale: BASE_SCALE }).width, room));
        return;
      }
      const viewport = pdfPage.getViewport({ scale: zoom * BASE_SCALE });
      const ratio = sizeCanvas(canvas, viewport.width, viewport.height);
      box.replaceChildren();
      box.style.setProperty('--total-scale-factor', String(viewport.scale));
      const render = pdfPage.render({ canvas, viewport, transform: ratio === 1 ? undefined : [ratio, 0, 0, ratio, 0, 0] });
      const layer = new pdfjs.TextLayer({ textContentSource: pdfPage.streamTextContent(), container: box, viewport });
      cancel = () => {
        render.cancel();
        layer.cancel();
      };
      await Promise.all([render.promise, layer.render()]);
      if (!live) return;
      if (at === page) markQuotes(layer, quotes);
      box.querySelector('mark')?.scrollIntoView({ block: 'center' });
      setShown(at);
    })().catch((err: unknown) => {
      if (live && (err as { name?: string }).name !== 'RenderingCancelledException' && (err as { name?: string }).name !== 'AbortException') {
        setError(`This page could not be shown: ${err instanceof Error ? err.message : String(err)}`);
      }
    });
    return () => {
      live = false;
      cancel();
    };
  }, [doc, at, zoom, page, quotes]);

  useEffect(() => {
    if (shown === page) pageRef.current?.querySelector('.word-mark')?.scrollIntoView({ block: 'center' });
  }, [shown, page, rects]);

  const pages = doc?.numPages ?? 0;
  return (
    <div class="pdf-view" ref={viewRef}>
      <div class="pdf-tools" role="toolbar" aria-label="Page">
        <button type="button" disabled={at <= 1} onClick={() => setAt(at - 1)}>
          Previous page
        </button>
        <span aria-live="polite">{pages ? `Page ${at} of ${pages}` : 'Loading the page…'}</span>
        <button type="button" disabled={!pages || at >= pages} onClick={() => setAt(at + 1)}>
          Next page
        </button>
        <button type="button" disabled={zoom === undefined || zoom <= MIN_ZOOM} onClick={() => setZoom(nextZoom(zoom ?? 1, -1))}>
          Zoom out
        </button>
        <span>{zoom === undefined ? '' : `${Math.round(zoom * 100)}%`}</span>
        <button type="button" disabled={zoom === undefined || zoom >= MAX_ZOOM} onClick={() => setZoom(nextZoom(zoom ?? 1, 1))}>
          Zoom in
        </button>
      </div>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <div class="pdf-page" ref={pageRef} data-page={shown || undefined}>
        <canvas ref={canvasRef} aria-label={`Page ${at}`} />
        <div ref={layerRef} class="textLayer" />
        {shown === page && <WordMarks rects={rects} />}
      </div>
    </div>
  );
}
