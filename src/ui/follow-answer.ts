import { useEffect, useRef, type MutableRef } from 'preact/hooks';

/** Keys that scroll the page when the focus is not in a text field. */
const SCROLL_KEYS = new Set(['PageUp', 'PageDown', 'ArrowUp', 'ArrowDown', 'Home', 'End', ' ']);

/**
 * Keeps the turn being answered in view: when a question starts (`question` changes to one), the turn's top
 * (the question) is scrolled to the top of the screen; while its answer is written, the newest text stays on
 * screen (the answer's end is followed once it reaches past the screen), until the person scrolls (wheel,
 * touch, a scrolling key): then the page is theirs until the next question.
 */
export function useFollowAnswer(question: string | undefined): MutableRef<HTMLDivElement | null> {
  const turn = useRef<HTMLDivElement>(null);
  const following = useRef(false);

  useEffect(() => {
    const stop = () => (following.current = false);
    const onKey = (e: KeyboardEvent) => {
      const field = e.target instanceof HTMLElement && e.target.closest('input, textarea, select, [contenteditable]');
      if (SCROLL_KEYS.has(e.key) && !field) stop();
    };
    window.addEventListener('wheel', stop, { passive: true });
    window.addEventListener('touchmove', stop, { passive: true });
    window.addEventListener('keydown', onKey);
    return () => {
      window.removeEventListener('wheel', stop);
      window.removeEventListener('touchmove', stop);
      window.removeEventListener('keydown', onKey);
    };
  }, []);

  useEffect(() => {
    const el = turn.current;
    if (question === undefined || !el) return;
    following.current = true;
    el.scrollIntoView({ block: 'start' });
    const follow = () => {
      if (!following.current) return;
      const top = el.getBoundingClientRect().top;
      // The answer's own end, not its sources': the newest text written.
      const bottom = (el.querySelector('section[aria-label="Answer"]') ?? el).getBoundingClientRect().bottom;
      if (bottom > innerHeight) window.scrollBy(0, bottom - innerHeight);
      else if (top < 0 && bottom - top <= innerHeight) el.scrollIntoView({ block: 'start' });
    };
    const observer = new MutationObserver(follow);
    observer.observe(el, { childList: true, subtree: true, characterData: true });
    return () => {
      observer.disconnect();
      // The answer has arrived: one last follow keeps its end (or the whole turn, when it fits) on screen, unless the person scrolled away.
      requestAnimationFrame(follow);
    };
  }, [question]);

  return turn;
}
