import type { ComponentChildren, RefObject } from 'preact';
import { signal } from '@preact/signals';
import { useEffect, useLayoutEffect, useMemo, useRef } from 'preact/hooks';
import { useModal } from './modal.ts';
import type { SourceView, TextRange } from '../core/types.ts';
import { segments } from './code-ranges.ts';
import { ImagePage } from './image-page.tsx';
import { PdfPage } from './pdf-page.tsx';
import { original, source } from './source-state.ts';

const VIEW_KEY = 'docqa.sourceView';
/**
 * Page (a PDF's real page or an image document, the default: what the person would see in the file) or
 * text (the extracted text, always the view for other formats and for a file whose original was not
 * kept); the last choice is remembered.
 */
const view = signal<'text' | 'page'>(globalThis.localStorage?.getItem(VIEW_KEY) === 'text' ? 'text' : 'page');

function chooseView(next: 'text' | 'page'): void {
  view.value = next;
  localStorage.setItem(VIEW_KEY, next);
}

/** An object URL for the kept original, revoked when the dialog shows another or none. */
function useObjectUrl(blob: Blob | undefined): string | undefined {
  const url = useMemo(() => (blob ? URL.createObjectURL(blob) : undefined), [blob]);
  useEffect(() => () => url && URL.revokeObjectURL(url), [url]);
  return url;
}

/** Whether the source can be shown as its page: a PDF's page or an image, when the original was kept. */
function hasPage(s: SourceView, blob: Blob | undefined): boolean {
  return Boolean(blob) && ((s.docType === 'pdf' && s.page !== undefined) || s.docType === 'image');
}

/** Text / Page switch (the page only for a PDF or an image whose original was kept), and "Open original". */
function ViewTools({ s, blob, url }: { s: SourceView; blob: Blob | undefined; url: string | undefined }) {
  const canShowPage = hasPage(s, blob);
  if (!url) return null;
  return (
    <div class="source-tools">
      {canShowPage && (
        <>
          <button type="button" aria-pressed={view.value === 'page'} onClick={() => chooseView('page')}>
            Page
          </button>
          <button type="button" aria-pressed={view.value === 'text'} onClick={() => chooseView('text')}>
            Text
          </button>
        </>
      )}
      {/* A download, not a navigation: the file opens in the system's viewer, outside the app's CSP. */}
      <a href={url} download={s.docName}>
        Open original
      </a>
    </div>
  );
}

/** `text` between `start` and `end`, the part inside `context` tinted (the retrieved chunk). */
function tinted(text: string, start: number, end: number, context: TextRange | undefined): ComponentChildren[] {
  if (!context || context.end <= start || context.start >= end) return [text.slice(start, end)];
  const from = Math.max(start, context.start);
  const to = Math.min(end, context.end);
  return [text.slice(start, from), <span class="source-context">{text.slice(from, to)}</span>, text.slice(to, end)];
}

/**
 * The block's text with each cited sentence in its own `<mark>` (the first one given `firstMark`), the
 * rest of the retrieved chunk tinted, never marked, and its code blocks shown as code.
 */
function MarkedText({ text, marks, context, firstMark, code }: { text: string; marks: TextRange[]; context?: TextRange; firstMark: RefObject<HTMLElement>; code?: TextRange[] }) {
  const piece = (from: number, to: number) => {
    const parts: ComponentChildren[] = [];
    let at = from;
    marks.forEach((m, i) => {
      const start = Math.max(m.start, at);
      const end = Math.min(m.end, to);
      if (end <= start) return;
      parts.push(...tinted(text, at, start, context), <mark ref={i === 0 && start === m.start ? firstMark : undefined}>{text.slice(start, end)}</mark>);
      at = end;
    });
    parts.push(...tinted(text, at, to, context));
    return parts;
  };
  return <>{segments(text.length, code).map((s) => (s.code ? <code class="code-block">{piece(s.start, s.end)}</code> : piece(s.start, s.end)))}</>;
}

/**
 * The source view: the whole page or section, with the cited sentences marked and the first scrolled
 * into view. Closing it (Escape, Close) gives focus back to what opened it (the `[n]` link).
 */
export function SourceDialog() {
  const ref = useRef<HTMLDialogElement>(null);
  const markRef = useRef<HTMLElement>(null);
  const opener = useRef<HTMLElement | null>(null);
  const s = source.value;
  const blob = original.value;
  const showPage = view.value === 'page' && s !== undefined && hasPage(s, blob);
  const url = useObjectUrl(blob);
  const quotes = useMemo(() => (s ? s.marks.map((m) => s.text.slice(m.start, m.end)) : []), [s]);
  // Focus goes back to what opened it (onClose).
  useModal(ref, Boolean(s), () => {
    opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  });
  useLayoutEffect(() => {
    if (s) markRef.current?.scrollIntoView({ block: 'center' });
  }, [s, showPage]);
  const onClose = () => {
    source.value = undefined;
    if (opener.current?.isConnected) opener.current.focus();
    opener.current = null;
  };
  return (
    <dialog ref={ref} aria-label="Source" class="source" onClose={onClose}>
      {s && (
        <>
          <header>
            <h2>
              <bdi>{s.docName}</bdi> — <bdi>{s.label}</bdi>
            </h2>
            <button type="button" onClick={() => (source.value = undefined)}>
              Close
            </button>
          </header>
          <ViewTools s={s} blob={blob} url={url} />
          {showPage && s.docType === 'image' ? (
            <ImagePage blob={blob!} name={s.docName} page={s.page ?? 1} quotes={quotes} words={s.words} />
          ) : showPage ? (
            <PdfPage blob={blob!} page={s.page!} quotes={quotes} words={s.words} />
          ) : (
            <div class="source-text">
              <MarkedText text={s.text} marks={s.marks} context={s.context} firstMark={markRef} code={s.code} />
            </div>
          )}
        </>
      )}
    </dialog>
  );
}
