import { useEffect, useRef } from 'preact/hooks';
import { source } from './state.ts';

/** The source view: the whole page or section, with the cited passage marked and scrolled into view. */
export function SourceDialog() {
  const ref = useRef<HTMLDialogElement>(null);
  const markRef = useRef<HTMLElement>(null);
  const s = source.value;
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (s && !dialog.open) dialog.showModal();
    if (!s && dialog.open) dialog.close();
    markRef.current?.scrollIntoView({ block: 'center' });
  }, [s]);
  return (
    <dialog ref={ref} aria-label="Source" class="source" onClose={() => (source.value = undefined)}>
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
            {s.text.slice(0, s.markStart)}
            <mark ref={markRef}>{s.text.slice(s.markStart, s.markEnd)}</mark>
            {s.text.slice(s.markEnd)}
          </div>
        </>
      )}
    </dialog>
  );
}
