/**
 * The Library list in Chromium: time to render a library of 1,000 and 5,000 documents, and the time of
 * each step of scrolling through it, against a small library (100 documents) measured in the same run.
 * The app's own `LibraryPanel` (its styles, its windowing past {@link WINDOW_ABOVE} rows) on the
 * bench-only harness page `tests/harness/list-harness.tsx`, which puts generated documents in its state
 * (long names, 20 folders, half titled), so no indexing is timed. Desktop (1280 × 800) and phone
 * (390 × 844) viewports; the sizes alternate over ROUNDS rounds (which goes first rotates); a figure is
 * the median of the rounds, with min and max; ratios are to the 100-document figure of the same round.
 * Standalone: `npx tsx bench/ui.ts`; in the suite: `npm run bench -- ui`.
 */
import { buildHarness, openHarness } from '../tests/support/harness.ts';
import { WINDOW_ABOVE } from '../src/ui/library-view.ts';
import type { BenchContext } from './context.ts';
import { isMain, median, progress, round } from './util.ts';

const ROUNDS = 5;
const SIZES = [100, 1000, 5000] as const;
const SCROLL_STEPS = 40;
const SCROLL_BY = 400;
const VIEWPORTS = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;

interface ListHarness {
  show(n: number): Promise<{ ms: number; rendered: number }>;
  scroll(steps: number, by: number): Promise<number[]>;
}

export async function benchUi(ctx: BenchContext): Promise<void> {
  await buildHarness();
  const harness = await openHarness('dist-harness', 'list-harness.html');
  try {
    const { page } = harness;
    for (const [view, size] of Object.entries(VIEWPORTS)) {
      await page.setViewportSize(size);
      const render: Record<number, number[]> = {};
      const frame: Record<number, number[]> = {};
      const rendered: Record<number, number> = {};
      const renderRatio: Record<number, number[]> = {};
      const frameRatio: Record<number, number[]> = {};
      for (let round_ = 0; round_ < ROUNDS; round_++) {
        const order = [...SIZES.slice(round_ % SIZES.length), ...SIZES.slice(0, round_ % SIZES.length)];
        const got: Record<number, { ms: number; frame: number }> = {};
        for (const n of order) {
          const shown = await page.evaluate((count) => (window as unknown as { listHarness: ListHarness }).listHarness.show(count), n);
          const steps = await page.evaluate(([s, by]) => (window as unknown as { listHarness: ListHarness }).listHarness.scroll(s, by), [SCROLL_STEPS, SCROLL_BY] as const);
          got[n] = { ms: shown.ms, frame: median(steps) };
          rendered[n] = shown.rendered;
          (render[n] ??= []).push(shown.ms);
          (frame[n] ??= []).push(median(steps));
        }
        for (const n of SIZES) {
          (renderRatio[n] ??= []).push(got[n]!.ms / got[100]!.ms);
          (frameRatio[n] ??= []).push(got[n]!.frame / got[100]!.frame);
        }
        progress(`ui ${view}: round ${round_ + 1} of ${ROUNDS}`);
      }
      for (const n of SIZES) {
        const key = `ui_${view}_${n}`;
        ctx.record({
          [`${key}_rows_rendered`]: rendered[n]!,
          [`${key}_render_ms`]: round(median(render[n]!), 1),
          [`${key}_render_ms_min`]: round(Math.min(...render[n]!), 1),
          [`${key}_render_ms_max`]: round(Math.max(...render[n]!), 1),
          [`${key}_scroll_step_ms`]: round(median(frame[n]!), 1),
          [`${key}_scroll_step_ms_min`]: round(Math.min(...frame[n]!), 1),
          [`${key}_scroll_step_ms_max`]: round(Math.max(...frame[n]!), 1),
          ...(n === 100 ? {} : { [`${key}_render_vs_100`]: round(median(renderRatio[n]!), 2), [`${key}_scroll_vs_100`]: round(median(frameRatio[n]!), 2) }),
        });
      }
    }
    ctx.record({ ui_window_above_rows: WINDOW_ABOVE });
  } finally {
    await harness.close();
  }
}

if (isMain(import.meta.url)) {
  const { runOne } = await import('./report.ts');
  await runOne('ui', benchUi);
}
