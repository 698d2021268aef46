/**
 * Several libraries and library files in Chromium (decisions 0033, 0034): the app as built, a real profile,
 * real IndexedDB, driven through the Libraries dialog as a person uses it.
 * - Import: library files of {@link SIZES} SciFact documents (made in Node by `bench/library-file.ts`'s
 *   library, each chunk with a 384-dimension vector), from the file chosen to the new library listed, in
 *   MB/s of the file, and the peak resident memory of the whole browser (every Chromium process) above its
 *   level before, sampled every {@link SAMPLE_MS} ms.
 * - Switch: the time to open another library (the page loads again with that library's worker) until its
 *   list is shown, to each imported library and back to one of {@link SMALL} notes, against a reload of the
 *   same library in the same round (the baseline: a switch should cost what a reload costs). The first
 *   open of an imported library (its index built from the store) is reported apart; the switches start
 *   once that index is saved, as it is for a person who stays a moment.
 * - Export: from the click to the file saved, in MB/s, and its peak memory as for import, by both routes:
 *   into the file chosen in the save dialog (Chromium) against a download of the whole file (the baseline,
 *   the route of browsers without a save dialog), alternating.
 * Rounds alternate which side goes first where there are two; a figure is the median, with min and max.
 * Standalone: `npx tsx bench/library.ts`; in the suite: `npm run bench -- library`. Node figures and
 * their baseline: `bench/library-file.ts`.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { build } from 'vite';
import type { Page } from 'playwright-core';
import { exportLibrary } from '../src/store/library-export.ts';
import { waitForQueueEmpty } from '../tests/support/app-page.ts';
import { openSession, removeProfile, serveApp } from '../tests/support/browser.ts';
import type { BenchContext } from './context.ts';
import { sciFactLibrary } from './library-file.ts';
import { browserPid, peakAbove, peaksByKind, treeRss } from './process-memory.ts';
import { isMain, MB, median, progress, REPO_ROOT, round, stats } from './util.ts';

const SIZES = [1000, 10_000];
const SMALL = 10;
const ROUNDS = 5;
const FILE_ROUNDS = 3;
const SAMPLE_MS = 50;

/** `count` short Markdown notes in a folder `name`. */
async function folderOf(dir: string, name: string, count: number): Promise<string> {
  const root = join(dir, name);
  await mkdir(root, { recursive: true });
  for (let i = 0; i < count; i++) {
    await writeFile(join(root, `note-${i}.md`), `# Note ${i} of ${name}\n\nThe inspection of unit ${i} found the ${['roof', 'boiler', 'fence', 'drain'][i % 4]} in order on day ${i % 28}.\n`);
  }
  return root;
}

/** A library file of `size` SciFact documents, written by the app's export in Node. */
async function libraryFile(dir: string, size: number): Promise<string> {
  const db = await sciFactLibrary(size);
  const path = join(dir, `bench-${size}.docqa.zip`);
  await exportLibrary(db, Writable.toWeb(createWriteStream(path)) as WritableStream<Uint8Array>, { libraryName: `bench ${size}` });
  db.close();
  return path;
}

/** Waits until the page shows library `name` with `docs` documents listed. */
export async function shown(page: Page, name: string, docs: number): Promise<void> {
  await page.waitForFunction(
    ([n, d]) => document.querySelector('.current-library strong')?.textContent === n && document.querySelector('main[aria-busy="false"] .count')?.textContent === `(${d.toLocaleString('en')} document${d === 1 ? '' : 's'})`,
    [name, docs] as const,
    { timeout: 600_000, polling: 10 },
  );
}

/** In the page: whether the open library's lexical index snapshot is saved (`library/index-keeper.ts`). */
export async function indexSnapshotSaved(): Promise<boolean> {
  const id = sessionStorage.getItem('docqa.library');
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const request = indexedDB.open(id && id !== 'default' ? `docqa-library-${id}` : 'docqa');
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  try {
    return await new Promise<boolean>((resolve) => {
      const request = db.transaction('snapshots').objectStore('snapshots').get('lexical');
      request.onsuccess = () => resolve(request.result !== undefined);
      request.onerror = () => resolve(false);
    });
  } finally {
    db.close();
  }
}

async function timed(run: () => Promise<unknown>, until: () => Promise<void>): Promise<number> {
  const t0 = performance.now();
  await run();
  await until();
  return performance.now() - t0;
}

export async function benchLibrary(ctx: BenchContext): Promise<void> {
  await build({ root: REPO_ROOT, logLevel: 'error' });
  const dir = await mkdtemp(join(tmpdir(), 'docqa-bench-library-'));
  const served = await serveApp();
  const session = await openSession();
  try {
    const files = new Map<number, { path: string; mb: number }>();
    for (const size of SIZES) {
      progress(`library: writing a library file of ${size} documents (Node)`);
      const path = await libraryFile(dir, size);
      files.set(size, { path, mb: (await stat(path)).size / MB });
    }
    const page = await session.newPage();
    await page.goto(served.url);
    await page.getByLabel('Add a folder').setInputFiles(await folderOf(dir, 'small', SMALL));
    await waitForQueueEmpty(page);
    await shown(page, 'My library', SMALL);
    const pid = browserPid(session.profileDir);
    const dialog = page.getByRole('dialog', { name: 'Libraries' });
    const section = dialog.getByRole('region', { name: 'Library file' });
    const statusText = () => section.getByRole('status').textContent().then((t) => t ?? '', () => '');
    const openDialog = async () => {
      if (!(await dialog.isVisible())) await page.getByRole('button', { name: 'Libraries' }).click();
    };
    const open = (name: string) => async () => {
      await openDialog();
      await dialog.getByRole('list', { name: 'Libraries' }).getByRole('button', { name: `Open ${name}`, exact: true }).click();
    };
    const figures: Record<string, number> = {};

    // Import: each file FILE_ROUNDS times (each a new library: "bench 1000", "bench 1000 (2)"...).
    for (const size of SIZES) {
      const { path, mb } = files.get(size)!;
      const ms: number[] = [];
      const peaks: number[] = [];
      for (let r = 0; r < FILE_ROUNDS; r++) {
        await openDialog();
        const before = await statusText();
        const { value, peak } = await peakAbove(
          () => treeRss(pid),
          () =>
            timed(
              () => section.getByLabel('Import a library').setInputFiles(path),
              async () => {
                await page.waitForFunction((b) => {
                  const t = document.querySelector('section[aria-label="Library file"] [role="status"]')?.textContent ?? '';
                  return t !== b && /^(Imported "|This file was not imported)/.test(t);
                }, before, { timeout: 600_000, polling: 10 });
              },
            ),
          SAMPLE_MS,
        );
        const said = await statusText();
        if (!said.startsWith('Imported "')) throw new Error(`the import of ${size} documents failed: ${said}`);
        ms.push(value);
        peaks.push(peak / MB);
        progress(`library: import of ${size} documents (${round(mb, 1)} MB), round ${r + 1}: ${Math.round(value)} ms, peak +${Math.round(peak / MB)} MB`);
      }
      figures[`library_file_chromium_${size}_docs_mb`] = round(mb, 2);
      Object.assign(figures, stats(`library_file_chromium_import_${size}_ms`, ms));
      Object.assign(figures, stats(`library_file_chromium_import_${size}_mb_per_s`, ms.map((t) => mb / (t / 1000)), 1));
      Object.assign(figures, stats(`library_file_chromium_import_${size}_peak_mb`, peaks, 1));
      // The first open of an imported library: its index is built from its passages.
      figures[`library_first_open_${size}_ms`] = round(await timed(open(`bench ${size}`), () => shown(page, `bench ${size}`, size)), 0);
      progress(`library: first open of ${size} documents: ${figures[`library_first_open_${size}_ms`]} ms`);
      // As a person who stays a moment: the index built at the first open is saved before the switches.
      for (const until = Date.now() + 600_000; !(await page.evaluate(indexSnapshotSaved)); ) {
        if (Date.now() > until) throw new Error(`the index of ${size} documents was not saved within 10 minutes`);
        await new Promise((r) => setTimeout(r, 500));
      }
      await open('My library')();
      await shown(page, 'My library', SMALL);
    }

    // Switch: from the small library to each imported one, against a reload of that one, and back.
    const toSize = new Map<number, number[]>(SIZES.map((s) => [s, []]));
    const reloadSize = new Map<number, number[]>(SIZES.map((s) => [s, []]));
    const ratios = new Map<number, number[]>(SIZES.map((s) => [s, []]));
    const toSmall: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      for (const size of SIZES) {
        const name = `bench ${size}`;
        const to = () => timed(open(name), () => shown(page, name, size));
        const reload = () => timed(() => page.reload(), () => shown(page, name, size));
        let switched: number;
        let reloaded: number;
        if (r % 2 === 0) {
          switched = await to();
          reloaded = await reload();
        } else {
          // A reload first needs the library open.
          await to();
          reloaded = await reload();
          await open('My library')();
          await shown(page, 'My library', SMALL);
          switched = await to();
        }
        toSize.get(size)!.push(switched);
        reloadSize.get(size)!.push(reloaded);
        ratios.get(size)!.push(switched / reloaded);
        toSmall.push(await timed(open('My library'), () => shown(page, 'My library', SMALL)));
        progress(`library: round ${r + 1}, ${size} documents: switch ${Math.round(switched)} ms, reload ${Math.round(reloaded)} ms`);
      }
      progress(`library: switch round ${r + 1} of ${ROUNDS}`);
    }
    figures.library_switch_small_docs = SMALL;
    for (const size of SIZES) {
      Object.assign(figures, stats(`library_switch_to_${size}_docs_ms`, toSize.get(size)!));
      Object.assign(figures, stats(`library_reload_${size}_docs_ms`, reloadSize.get(size)!));
      Object.assign(figures, stats(`library_switch_vs_reload_${size}`, ratios.get(size)!, 2));
    }
    Object.assign(figures, stats(`library_switch_to_${SMALL}_docs_ms`, toSmall));

    // Export: each imported library, opened, FILE_ROUNDS times by each route, alternating which goes
    // first: into a file chosen in the save dialog (Chromium's route; answered here with a file in the
    // origin's private file system), and as a download of a Blob (the route of browsers without one).
    const routes = ['picker', 'download'] as const;
    const exportRound = async (route: (typeof routes)[number]): Promise<{ ms: number; mb: number }> => {
      await page.evaluate((r) => {
        Object.defineProperty(window, 'showSaveFilePicker', {
          configurable: true,
          value:
            r === 'picker'
              ? async ({ suggestedName }: { suggestedName: string }) => (await navigator.storage.getDirectory()).getFileHandle(suggestedName, { create: true })
              : undefined,
        });
      }, route);
      // Two rounds may end on the same words: the end is the first "Saved" after the page said "Exporting".
      await page.evaluate(() => ((window as unknown as { benchBusy: boolean }).benchBusy = false));
      const t0 = performance.now();
      const download = route === 'download' ? page.waitForEvent('download', { timeout: 600_000 }) : undefined;
      await section.getByRole('button', { name: 'Export this library' }).click();
      await page.waitForFunction(() => {
        const w = window as unknown as { benchBusy: boolean };
        const t = document.querySelector('section[aria-label="Library file"] [role="status"]')?.textContent ?? '';
        if (t.startsWith('Exporting')) w.benchBusy = true;
        return w.benchBusy && /^(Saved |Export failed)/.test(t);
      }, undefined, { timeout: 600_000, polling: 10 });
      const said = await statusText();
      if (!said.startsWith('Saved ')) throw new Error(`export failed: ${said}`);
      const took = performance.now() - t0;
      const mb = download ? (await readFile((await (await download).path())!)).length / MB : (await page.evaluate(async (name) => (await (await (await navigator.storage.getDirectory()).getFileHandle(name)).getFile()).size, /^Saved (.+?) \(/.exec(said)![1]!)) / MB;
      return { ms: took, mb };
    };
    for (const size of SIZES) {
      await open(`bench ${size}`)();
      await shown(page, `bench ${size}`, size);
      await openDialog();
      const ms = { picker: [] as number[], download: [] as number[] };
      const peaks = { picker: [] as number[], download: [] as number[] };
      // Which process the memory is in: the renderer runs the page and the library worker; the storage
      // service holds IndexedDB; the browser process writes files.
      const kindPeaks = { picker: {} as Record<string, number[]>, download: {} as Record<string, number[]> };
      const ratios: number[] = [];
      let fileMb = files.get(size)!.mb;
      for (let r = 0; r < FILE_ROUNDS; r++) {
        const order = r % 2 ? [...routes].reverse() : routes;
        for (const route of order) {
          const { value: byKind, peak } = await peakAbove(() => treeRss(pid), () => peaksByKind(pid, () => exportRound(route), SAMPLE_MS), SAMPLE_MS);
          const value = byKind.value;
          ms[route].push(value.ms);
          peaks[route].push(peak / MB);
          for (const [kind, bytes] of Object.entries(byKind.peaks)) (kindPeaks[route][kind] ??= []).push(bytes / MB);
          fileMb = value.mb;
          const kinds = Object.entries(byKind.peaks).map(([kind, bytes]) => `${kind} +${Math.round(bytes / MB)}`).join(', ');
          progress(`library: export of ${size} documents (${round(fileMb, 1)} MB) by ${route}, round ${r + 1}: ${Math.round(value.ms)} ms, peak +${Math.round(peak / MB)} MB (by process: ${kinds} MB)`);
        }
        ratios.push(ms.picker[r]! / ms.download[r]!);
      }
      for (const route of routes) {
        const key = route === 'picker' ? `library_file_chromium_export_${size}` : `library_file_chromium_export_download_${size}`;
        Object.assign(figures, stats(`${key}_ms`, ms[route]));
        Object.assign(figures, stats(`${key}_mb_per_s`, ms[route].map((t) => fileMb / (t / 1000)), 1));
        Object.assign(figures, stats(`${key}_peak_mb`, peaks[route], 1));
        for (const [kind, values] of Object.entries(kindPeaks[route])) figures[`${key}_peak_mb_${kind.replace(/\W+/g, '_')}`] = round(median(values), 1);
      }
      Object.assign(figures, stats(`library_file_chromium_export_picker_vs_download_${size}`, ratios, 2));
      await page.keyboard.press('Escape');
    }
    ctx.record(figures);
  } finally {
    await session.close();
    await served.close();
    await removeProfile(session.profileDir);
    await rm(dir, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) {
  const { runOne } = await import('./report.ts');
  await runOne('library', benchLibrary);
}
