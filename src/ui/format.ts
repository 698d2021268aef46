import type { ReadingStage } from '../core/types.ts';

export { formatBytes } from '../core/format-bytes.ts';

/** "1 document", "1,000 documents" (digits grouped as the browser's language groups them). */
export function plural(n: number, one: string): string {
  return `${n.toLocaleString()} ${one}${n === 1 ? '' : 's'}`;
}

/** "about 40 s left", "about 3 min left", "about 2 h left" (from 90 minutes). */
export function formatEta(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `about ${s} s left`;
  return s < 90 * 60 ? `about ${Math.round(s / 60)} min left` : `about ${Math.round(s / 3600)} h left`;
}

/**
 * ", about 3 min left" for work done in parts: the time per part so far times the parts left, once a part
 * is done and a second has passed (the first parts say little); '' before that and when all are done.
 */
export function partsEta(done: number, total: number, elapsedMs: number): string {
  if (done <= 0 || done >= total || elapsedMs < 1000) return '';
  return `, ${formatEta((elapsedMs / done) * (total - done))}`;
}

/** "Recognising text: page 3 of 12, about 40 s left" ("about 3 min left" from 90 s; a one-page image has no page). */
export function stageLine(stage: ReadingStage): string {
  const where = stage.pages > 1 ? `: page ${stage.page} of ${stage.pages}` : '';
  const s = stage.secondsLeft;
  const left = s === undefined ? '' : s < 90 ? `, about ${s} s left` : `, about ${Math.round(s / 60)} min left`;
  return `Recognising text${where}${left}`;
}
