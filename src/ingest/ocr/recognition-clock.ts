import type { ReadingStage } from '../../core/types.ts';

/** Least of a first page recognised, and time spent on it, before its pace is trusted for an estimate. */
const FIRST_PAGE_FRACTION = 0.15;
const FIRST_PAGE_MS = 1000;

/**
 * The stage a document's OCR reports ("page 3 of 12, about 40 s left"): the time left is the pace of the
 * pages recognised so far (their average), or, before the first is done, the first page's own pace once
 * enough of it is, times what remains of this page and of the pages after it. Pages after it are assumed
 * to need OCR too, as every page of a scan does; a document that mixes text and scanned pages finishes early.
 *
 * @example
 * const clock = new RecognitionClock(12);
 * clock.start(1); … clock.finish(); clock.start(2);
 * clock.at(2, 0.5) // { stage: 'recognising', page: 2, pages: 12, secondsLeft: 36 } at 3.3 s a page
 */
export class RecognitionClock {
  private pagesDone = 0;
  private spentMs = 0;
  private startedAt = 0;

  constructor(
    private readonly pages: number,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** A page's recognition starts. */
  start(): void {
    this.startedAt = this.now();
  }

  /** The page being recognised ended (read or not). */
  finish(): void {
    this.spentMs += this.now() - this.startedAt;
    this.pagesDone++;
  }

  /** The stage while `fraction` (0–1) of page `page` is recognised. */
  at(page: number, fraction: number): ReadingStage {
    const elapsed = this.now() - this.startedAt;
    const f = Math.min(1, Math.max(0, fraction));
    const perPage = this.pagesDone > 0 ? this.spentMs / this.pagesDone : f >= FIRST_PAGE_FRACTION && elapsed >= FIRST_PAGE_MS ? elapsed / f : undefined;
    const stage: ReadingStage = { stage: 'recognising', page, pages: this.pages };
    if (perPage === undefined) return stage;
    return { ...stage, secondsLeft: roundSeconds((perPage * (1 - f + this.pages - page)) / 1000) };
  }
}

/** Seconds as a person reads an estimate: to the second under 10, to 5 s under a minute, to 10 s above. */
export function roundSeconds(seconds: number): number {
  if (seconds < 10) return Math.max(1, Math.round(seconds));
  if (seconds < 60) return Math.round(seconds / 5) * 5;
  return Math.round(seconds / 10) * 10;
}
