/**
 * Bench-only page (built by `vite.harness.config.ts`, never into the app): the app's own Library list
 * (`LibraryPanel`, its styles, its windowing) with a library of `n` generated documents put in its state,
 * so `npm run bench -- ui` can time rendering and scrolling it in Chromium without indexing thousands of
 * files first. `window.listHarness.show(n)` renders and resolves once the browser has painted.
 */
import { render } from 'preact';
import type { DocId } from '../../src/core/ids.ts';
import type { LibraryItem } from '../../src/core/types.ts';
import { LibraryPanel } from '../../src/ui/library-panel.tsx';
import { items, loaded } from '../../src/ui/library-state.ts';
import '../../src/ui/styles.css';

const ROOMS = ['laundry', 'garden', 'roof', 'elevator', 'mailbox', 'lobby', 'boiler', 'stairwell', 'attic', 'courtyard'];
const TYPES = ['pdf', 'docx', 'markdown', 'html', 'text'] as const;

/** `n` documents in 20 folders, with long names, half of them titled, sizes and dates varied. */
function library(n: number): LibraryItem[] {
  return Array.from({ length: n }, (_, i): LibraryItem => {
    const room = ROOMS[i % ROOMS.length]!;
    const name = `Inspection report ${i + 1} on the ${room} of the north harbour building.${TYPES[i % TYPES.length] === 'markdown' ? 'md' : TYPES[i % TYPES.length]}`;
    const path = `Client matters/Matter ${i % 20}/Correspondence and reports/${name}`;
    return {
      key: `doc:${i}`,
      kind: 'document',
      name,
      path,
      docId: `doc-${i}` as DocId,
      type: TYPES[i % TYPES.length],
      size: 1000 + ((i * 7919) % 900_000),
      pages: i % 5 === 0 ? 1 + (i % 40) : undefined,
      ...(i % 2 ? { title: `The ${room} inspection, part ${i}` } : {}),
      addedAt: Date.UTC(2026, 0, 1) + i * 60_000,
      tags: i % 7 === 0 ? ['harbour'] : [],
    };
  });
}

const painted = () => new Promise<void>((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));

/** Milliseconds per step of scrolling the list `steps` times by `by` px (the list's own box when it is windowed, else the page). */
async function scroll(steps: number, by: number): Promise<number[]> {
  const box = document.querySelector<HTMLElement>('.rows.windowed');
  const times: number[] = [];
  for (let i = 0; i < steps; i++) {
    const t = performance.now();
    if (box) box.scrollTop += by;
    else window.scrollBy(0, by);
    // The scroll event renders the next window; the frame after it shows it.
    await painted();
    times.push(performance.now() - t);
  }
  return times;
}

loaded.value = true;
render(<LibraryPanel />, document.getElementById('app')!);

(window as unknown as { listHarness: unknown }).listHarness = {
  /** Shows a library of `n` documents; resolves with the milliseconds until it was painted, and the rows rendered. */
  async show(n: number): Promise<{ ms: number; rendered: number }> {
    items.value = [];
    window.scrollTo(0, 0);
    await painted();
    const list = library(n);
    const t = performance.now();
    items.value = list;
    await painted();
    return { ms: performance.now() - t, rendered: document.querySelectorAll('ul[aria-label="Library"] > li').length };
  },
  scroll,
};
document.body.dataset.ready = 'true';
