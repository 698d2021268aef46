import type { ComponentChildren, RefObject } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import type { TextRange } from '../core/types.ts';
import { source } from './state.ts';

/** `text` between `start` and `end`, the part inside `context` tinted (the retrieved chunk). */
function tinted(text: string, start: number, end: number, context: TextRange | undefined): ComponentChildren[] {
  if (!context || context.end <= start || context.start >= end) return [text.slice(start, end)];
  const from = Math.max(start, context.start);
  const to = Math.min(end, context.end);
  return [text.slice(start, from), <span class="source-context">{text.slice(from, to)}</span>, text.slice(to, end)];
}

/**
 * The block's text with each cited sentence in its own `<mark>` (the first one given `firstMark`), and
 * the rest of the retrieved chunk tinted, never marked.
 */
function MarkedText({ text, marks, context, firstMark }: { text: string; marks: TextRange[]; context?: TextRange; firstMark: RefObject<HTMLElement> }) {
  const parts: ComponentChildren[] = [];
  let at = 0;
  marks.forEach((m, i) => {
    parts.push(...tinted(text, at, m.start, context), <mark ref={i === 0 ? firstMark : undefined}>{text.slice(m.start, m.end)}</mark>);
    at = m.end;
  });
  parts.push(...tinted(text, at, text.length, context));
  return <>{parts}</>;
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
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (s && !dialog.open) {
      opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      dialog.showModal();
    }
    if (!s && dialog.open) dialog.close();
    if (s) markRef.current?.scrollIntoView({ block: 'center' });
  }, [s]);
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
          <div class="source-text">
            <MarkedText text={s.text} marks={s.marks} context={s.context} firstMark={markRef} />
          </div>
        </>
      )}
    </dialog>
  );
}
