// Picking a folder of 3,000 small files, or dropping 3,000 files from disk, in Chromium: the page never
// freezes while it takes them in, nor while they are indexed. A picked file does not know its size until
// asked, and the browser asks synchronously (about half a millisecond each): sending all 3,000 to the
// library worker at once froze the page for seconds; so did asking each dropped item for its entry. While
// they are indexed, the library is listed again a few times a second: rendering every listing at once
// (the Library list, the filters' option per document, the question read against every name) blocked the
// page for 66–200 ms at a time. Measured with the Long Tasks API from the moment the page is handed the
// files until the library worker has taken them all (the progress line counts them) and, for the picked
// folder, until every file is indexed.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useApp, type Page } from '../support/browser.ts';
import { writeTree } from '../support/fixture-folder.ts';

/**
 * A "long task" past which a page feels stuck. Slices of work are about 20 ms, and a refresh's renders
 * each well under 50 ms: here the longest block was 28–72 ms over three runs, while before the renders
 * were split, indexing the picked folder blocked the page for 100–236 ms every quarter second (80–140
 * tasks over 50 ms a run). A loaded machine (CI has run these tests at 2.5× this machine's time) may
 * stretch a task or two past the bound, so the test allows {@link STRETCHED} of them and none past
 * {@link NEVER_MS}; the old code fails it by dozens.
 */
const MAX_BLOCKED_MS = 100;
const STRETCHED = 2;
const NEVER_MS = 250;

interface Watch {
  handedAt?: number;
  tasks: Array<{ start: number; end: number }>;
}

/** 3,000 small notes in a new folder (in sub-folders of 100 when `boxes`); returns the folder. */
function writeNotes(boxes: boolean): Promise<string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < 3000; i++) files[`${boxes ? `box-${Math.floor(i / 100)}/` : ''}note-${i}.txt`] = `Note ${i}\n\nShelf ${i} holds folder ${i * 3}.`;
  return writeTree(files, 'notes');
}

/** Starts recording long tasks, and when the page is handed files (the first `event`, seen before the app's own handler). */
async function watchLongTasks(page: Page, event: 'change' | 'drop'): Promise<void> {
  await page.evaluate((type) => {
    const watch: Watch = { tasks: [] };
    (window as unknown as { watch: Watch }).watch = watch;
    document.addEventListener(type, () => (watch.handedAt ??= performance.now()), true);
    const observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) watch.tasks.push({ start: e.startTime, end: e.startTime + e.duration });
    });
    observer.observe({ type: 'longtask' });
    (window as unknown as { watchObserver: PerformanceObserver }).watchObserver = observer;
  }, event);
}

/**
 * How long each block of the page lasted once it was handed the files, in ms. The test's own picking or
 * dropping (the browser building the file list for the automation) runs in the same task as the event:
 * only what follows the event counts.
 */
async function blocks(page: Page): Promise<number[]> {
  const { handedAt, tasks } = await page.evaluate(() => {
    const { watch, watchObserver } = window as unknown as { watch: Watch; watchObserver: PerformanceObserver };
    // Long tasks not yet handed to the observer's callback count too.
    for (const e of watchObserver.takeRecords()) watch.tasks.push({ start: e.startTime, end: e.startTime + e.duration });
    return watch;
  });
  expect(handedAt).toBeDefined();
  const after = tasks.filter((t) => t.end > handedAt!).map((t) => ({ at: Math.round(Math.max(t.start, handedAt!) - handedAt!), ms: Math.round(t.end - Math.max(t.start, handedAt!)) }));
  const blocked = after.map((t) => t.ms);
  console.log(`longest block after the files were handed over: ${Math.max(0, ...blocked)} ms (long tasks, ms at ms after: ${after.map((t) => `${t.ms} at ${t.at}`).join(', ') || 'none'})`);
  return blocked;
}

/** The page was never blocked for long: at most {@link STRETCHED} blocks past the bound, none past {@link NEVER_MS}. */
function expectResponsive(blocked: readonly number[]): void {
  expect(blocked.filter((ms) => ms >= MAX_BLOCKED_MS).length).toBeLessThanOrEqual(STRETCHED);
  expect(Math.max(0, ...blocked)).toBeLessThan(NEVER_MS);
}

const takenIn = (page: Page, n: number) => page.waitForFunction((count) => new RegExp(`of ${count} files`).test(document.querySelector('.progress')?.textContent ?? ''), n, { timeout: 120_000 });

/** Until the run is over: the Activity list says what became of every file. 2-2.5 minutes here, so up to 6 on CI. */
const indexed = (page: Page, n: number) =>
  page.waitForFunction((count) => document.querySelector('[aria-label="Activity"]')?.textContent?.includes(`Done: ${count} indexed`) ?? false, n, { timeout: 540_000 });

describe('picking 3,000 files', () => {
  const app = useApp();

  it('never blocks the page for long while the files are taken in and indexed', async () => {
    const { page } = app;
    const folder = await writeNotes(true);
    await watchLongTasks(page, 'change');
    await page.getByLabel('Add a folder').setInputFiles(folder);
    await takenIn(page, 3000);
    await indexed(page, 3000);
    expectResponsive(await blocks(page));
  }, 600_000);
});

describe('dropping 3,000 files from disk, and a folder', () => {
  const app = useApp();

  it('never blocks the page for long while the files are taken in, and still reads the folder', async () => {
    const { page } = app;
    const folder = await writeNotes(false);
    const box = await writeTree({ 'inside/deep.txt': 'A note inside a dropped folder.', 'top.md': '# Top\n\nA note at the top of a dropped folder.' }, 'box');
    const paths = [...(await readdir(folder)).map((n) => join(folder, n)), box];
    await watchLongTasks(page, 'drop');
    // A real drop of files on disk (not built in the page): Chromium's drag data with file paths.
    const zone = (await page.getByRole('region', { name: 'Drop documents here' }).boundingBox())!;
    const cdp = await page.context().newCDPSession(page);
    const at = { x: zone.x + 20, y: zone.y + 20, data: { items: [], files: paths, dragOperationsMask: 1 } };
    for (const type of ['dragEnter', 'dragOver', 'drop'] as const) await cdp.send('Input.dispatchDragEvent', { type, ...at });
    await takenIn(page, 3002);
    expectResponsive(await blocks(page));
  });
});
