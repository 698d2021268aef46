/**
 * Several libraries in Chromium (decision 0033): the time to open another library (the page loads again
 * with that library's worker) until its list is shown, from a library of {@link BIG} documents to one of
 * {@link SMALL} and back, against a reload of the same library measured in the same rounds (the baseline:
 * a switch should cost what a reload costs). The app as built, a real profile, real IndexedDB; the rounds
 * alternate which side goes first; a figure is the median of the rounds, with min and max.
 * Standalone: `npx tsx bench/library.ts`; in the suite: `npm run bench -- library`.
 * Then export and import of the big library through the Libraries dialog (from the click to the file
 * saved; from the file chosen to the library listed), in MB/s of the file; memory: `bench/library-file.ts`.
 */
import { mkdtemp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'vite';
import type { Page } from 'playwright-core';
import { waitForQueueEmpty } from '../tests/support/app-page.ts';
import { openSession, removeProfile, serveApp } from '../tests/support/browser.ts';
import type { BenchContext } from './context.ts';
import { isMain, median, progress, REPO_ROOT, round } from './util.ts';

const BIG = 1000;
const SMALL = 10;
const ROUNDS = 5;
const FILE_ROUNDS = 3;

/** `count` short Markdown notes in a folder `name`. */
async function folderOf(name: string, count: number): Promise<string> {
  const root = join(await mkdtemp(join(tmpdir(), 'docqa-bench-')), name);
  await mkdir(root, { recursive: true });
  for (let i = 0; i < count; i++) {
    await writeFile(join(root, `note-${i}.md`), `# Note ${i} of ${name}\n\nThe inspection of unit ${i} found the ${['roof', 'boiler', 'fence', 'drain'][i % 4]} in order on day ${i % 28}.\n`);
  }
  return root;
}

/** Waits until the page shows library `name` with `docs` documents listed. */
async function shown(page: Page, name: string, docs: number): Promise<void> {
  await page.waitForFunction(
    ([n, d]) => document.querySelector('.current-library strong')?.textContent === n && document.querySelector('main[aria-busy="false"] .count')?.textContent === `(${d.toLocaleString('en')} document${d === 1 ? '' : 's'})`,
    [name, docs] as const,
    { timeout: 120_000, polling: 10 },
  );
}

async function timed(run: () => Promise<unknown>, until: () => Promise<void>): Promise<number> {
  const t0 = performance.now();
  await run();
  await until();
  return performance.now() - t0;
}

export async function benchLibrary(ctx: BenchContext): Promise<void> {
  await build({ root: REPO_ROOT, logLevel: 'error' });
  const served = await serveApp();
  const session = await openSession();
  try {
    const page = await session.newPage();
    await page.goto(served.url);
    progress(`library: indexing ${BIG} notes in "My library"`);
    await page.getByLabel('Add a folder').setInputFiles(await folderOf('big', BIG));
    await waitForQueueEmpty(page, 900_000);
    await shown(page, 'My library', BIG);
    await page.getByRole('button', { name: 'Libraries' }).click();
    await page.getByLabel('New library name').fill('Small');
    await page.getByRole('button', { name: 'Create and open' }).click();
    await shown(page, 'Small', 0);
    await page.getByLabel('Add a folder').setInputFiles(await folderOf('small', SMALL));
    await waitForQueueEmpty(page);
    await shown(page, 'Small', SMALL);

    const open = (name: string) => async () => {
      await page.getByRole('button', { name: 'Libraries' }).click();
      await page.getByRole('button', { name: `Open ${name}` }).click();
    };
    const times: Record<'reload_big' | 'to_big' | 'to_small', number[]> = { reload_big: [], to_big: [], to_small: [] };
    const ratios: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      // The page is on "Small": to the big one, a reload of it, back to the small one (the order rotates).
      const steps: Array<[keyof typeof times, () => Promise<number>]> = [
        ['to_big', () => timed(open('My library'), () => shown(page, 'My library', BIG))],
        ['reload_big', () => timed(() => page.reload(), () => shown(page, 'My library', BIG))],
      ];
      if (r % 2) steps.reverse();
      // A reload first needs the big library open.
      if (steps[0]![0] === 'reload_big') await timed(open('My library'), () => shown(page, 'My library', BIG));
      const got: Partial<Record<keyof typeof times, number>> = {};
      for (const [key, run] of steps) times[key].push((got[key] = await run()));
      times.to_small.push(await timed(open('Small'), () => shown(page, 'Small', SMALL)));
      ratios.push(got.to_big! / got.reload_big!);
      progress(`library: round ${r + 1} of ${ROUNDS}`);
    }
    // Export and import of the big library through the Libraries dialog, as a person does it: from the
    // click to the file saved, and from the file chosen to the new library listed.
    await open('My library')();
    await shown(page, 'My library', BIG);
    await page.getByRole('button', { name: 'Libraries' }).click();
    const section = page.getByRole('region', { name: 'Library file' });
    const exportMs: number[] = [];
    const importMs: number[] = [];
    let file: Buffer | undefined;
    for (let r = 0; r < FILE_ROUNDS; r++) {
      const t0 = performance.now();
      const download = page.waitForEvent('download', { timeout: 300_000 });
      await section.getByRole('button', { name: 'Export this library' }).click();
      file = await readFile((await (await download).path())!);
      exportMs.push(performance.now() - t0);
      const t1 = performance.now();
      await section.getByLabel('Import a library').setInputFiles({ name: 'big.docqa.zip', mimeType: 'application/zip', buffer: file });
      await page.waitForFunction(() => /^Imported "/.test(document.querySelector('section[aria-label="Library file"] [role="status"]')?.textContent ?? ''), undefined, { timeout: 300_000, polling: 10 });
      importMs.push(performance.now() - t1);
      progress(`library: export ${Math.round(exportMs[r]!)} ms, import ${Math.round(importMs[r]!)} ms (${file.length} bytes)`);
    }
    const fileMb = (file?.length ?? 0) / 1e6;
    const rate = (key: string, values: number[]) => {
      const mbps = values.map((ms) => fileMb / (ms / 1000));
      return { [`${key}_mb_per_s`]: round(median(mbps), 1), [`${key}_mb_per_s_min`]: round(Math.min(...mbps), 1), [`${key}_mb_per_s_max`]: round(Math.max(...mbps), 1) };
    };
    const stats = (key: string, values: number[]) => ({ [`${key}_ms`]: round(median(values), 0), [`${key}_ms_min`]: round(Math.min(...values), 0), [`${key}_ms_max`]: round(Math.max(...values), 0) });
    ctx.record({
      library_switch_big_docs: BIG,
      library_switch_small_docs: SMALL,
      ...stats(`library_switch_to_${BIG}_docs`, times.to_big),
      ...stats(`library_reload_${BIG}_docs`, times.reload_big),
      ...stats(`library_switch_to_${SMALL}_docs`, times.to_small),
      library_switch_vs_reload: round(median(ratios), 2),
      library_switch_vs_reload_min: round(Math.min(...ratios), 2),
      library_switch_vs_reload_max: round(Math.max(...ratios), 2),
      [`library_file_chromium_${BIG}_docs_mb`]: round(fileMb, 2),
      ...stats(`library_file_chromium_export_${BIG}_docs`, exportMs),
      ...rate(`library_file_chromium_export_${BIG}_docs`, exportMs),
      ...stats(`library_file_chromium_import_${BIG}_docs`, importMs),
      ...rate(`library_file_chromium_import_${BIG}_docs`, importMs),
    });
  } finally {
    await session.close();
    await served.close();
    await removeProfile(session.profileDir);
  }
}

if (isMain(import.meta.url)) {
  const { runOne } = await import('./report.ts');
  await runOne('library', benchLibrary);
}
