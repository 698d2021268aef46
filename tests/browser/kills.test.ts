/**
 * Whole-browser crashes at seeded random moments during a large drop, then the same profile reopened.
 * Checked after every reopen: the list holds each dropped file exactly once; every large file listed
 * Indexed answers the sentence near its end (a partly indexed one would not), and so do two small
 * ones picked at random. At the end every file is indexed (Try again on any file whose read two kills
 * cut short), all large files and six random small ones answer. What the kills hit is printed.
 *
 * Sensitivity, measured: a snapshot forced mid-insertion with `reconcile`'s chunk-count comparison
 * removed fails at the first reopen; with the comparison kept it passes (reconcile repairs the document).
 * The brief's mutation alone (the `inserting` guard of `saveSnapshot` removed, no count comparison)
 * passed all 10 runs tried (seeds 1-5 and the default): a snapshot timer seldom falls inside a large
 * file's ~0.7 s of insertion here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { openSession, removeProfile, serveApp, type Served, type Session } from '../support/browser.ts';
import { askQuestion, libraryStatus, sourcePaths, tryAgainAll, waitForIndexed, waitForQueueEmpty } from '../support/app-page.ts';
import { writeTree } from '../support/fixture-folder.ts';
import { longText } from '../support/fixtures.ts';
import { codeWord, seedFrom, seededRandom } from '../support/random.ts';

const SMALL = 120;
/** Large text files (MB) at these queue positions: 5 to 6 MB is 3,900-4,700 chunks, two or three index slices. */
const LARGE: ReadonlyArray<{ at: number; mb: number }> = [
  { at: 10, mb: 6 },
  { at: 45, mb: 5 },
  { at: 80, mb: 5 },
];
const ROUNDS = 5;
const SEED = seedFrom('KILLS_SEED', 20261130);

interface Fact {
  name: string;
  question: string;
  answer: string;
  large: boolean;
}

/** ~120 small text and Markdown files, each with one fact; large files whose fact sits near the end. */
function dropFiles(): { files: Record<string, string>; facts: Fact[] } {
  const files: Record<string, string> = {};
  const facts: Fact[] = [];
  for (let i = 0; i < SMALL; i++) {
    const name = `memo-${String(i).padStart(3, '0')}.${i % 3 === 0 ? 'md' : 'txt'}`;
    const filler = Array.from({ length: 12 }, (_, j) => `Routine paragraph ${j} of memo ${i} repeats ordinary office matters without news.`).join('\n\n');
    files[name] = `${i % 3 === 0 ? '# ' : ''}Memo ${i}\n\nThe vault code for the ${codeWord(i)} archive room is harbour-${i * 7 + 3}.\n\n${filler}\n`;
    facts.push({ name, question: `vault code ${codeWord(i)} archive room`, answer: `harbour-${i * 7 + 3}`, large: false });
  }
  LARGE.forEach(({ mb }, k) => {
    const name = `ledger-${k}.txt`;
    const answer = `blue stone number ${k * 11 + 4}`;
    files[name] = longText(mb, `The lighthouse keeper of ${codeWord(900 + k)} island hides the spare key under the ${answer}.`);
    facts.push({ name, question: `lighthouse keeper ${codeWord(900 + k)} island spare key`, answer, large: true });
  });
  return { files, facts };
}

/** Drop order: the small files with the large ones at their positions (setInputFiles keeps the order given). */
function dropOrder(facts: readonly Fact[]): string[] {
  const small = facts.filter((f) => !f.large).map((f) => f.name);
  LARGE.forEach((_, k) => small.splice(LARGE[k]!.at, 0, `ledger-${k}.txt`));
  return small;
}

/**
 * Crashes the whole browser (CDP `Browser.crash`): renderer, workers and the browser process that runs
 * IndexedDB die at once, mid-transaction, with no unload and no clean shutdown, as a power cut or an
 * OOM kill would. (`Page.crash` only kills the renderer: the browser process lives on and aborts its
 * transactions tidily, which is the easier case.)
 */
async function crashBrowser(session: Session): Promise<void> {
  const closed = new Promise((resolve) => session.context.once('close', resolve));
  const cdp = await session.context.browser()!.newBrowserCDPSession();
  void cdp.send('Browser.crash').catch(() => undefined);
  await closed;
}

/** Asks for a fact; true when the answer has it and the first source cited is its file. */
async function findsFact(page: Page, fact: Fact): Promise<boolean> {
  const answer = await askQuestion(page, fact.question);
  const sources = await sourcePaths(page);
  return answer.includes(fact.answer) && !!sources[0]?.endsWith(fact.name);
}

/** The notice the app shows when the browser itself discarded the site's IndexedDB. */
const CLEARED = /The browser cleared this site's stored library \(\d+ documents?, last used [^)]+\): add the files again\./;

/**
 * Waits for the Library list to show `n` rows. A whole-browser crash now and then makes Chromium
 * discard the site's IndexedDB itself (seen once in about 110 kills): that is outside the app, and
 * what the app owes the person is to say so rather than look like a first visit. Then 'cleared' is
 * returned once the notice names the library it lost. Anything else fails with what the page shows.
 */
async function waitForRows(page: Page, n: number): Promise<'kept' | 'cleared'> {
  const shown = await page.waitForFunction((m) => document.querySelectorAll('ul[aria-label="Library"] > li').length >= m, n, { timeout: 30_000 }).then(
    () => true,
    () => false,
  );
  if (shown) return 'kept';
  const rows = await libraryStatus(page);
  const body = (await page.locator('body').textContent()) ?? '';
  if (rows.length === 0 && CLEARED.test(body)) return 'cleared';
  expect.fail(`reopened with ${rows.length} rows instead of ${n}: ${JSON.stringify(rows.slice(0, 5))}; page: ${body.slice(0, 500)}`);
}

describe('kills at random moments during a large drop', () => {
  let served: Served;
  let profileDir: string | undefined;

  beforeAll(async () => {
    served = await serveApp();
  });
  afterAll(async () => {
    await served?.close();
    if (profileDir) await removeProfile(profileDir);
  });

  it('leave every listed document fully searchable, nothing listed twice and nothing lost', { timeout: 240_000 }, async () => {
    const random = seededRandom(SEED);
    const { files, facts } = dropFiles();
    const byName = new Map(facts.map((f) => [f.name, f]));
    const folder = await writeTree(files, 'kill-drop');
    const total = facts.length;
    const log: string[] = [`seed ${SEED} (replay with KILLS_SEED=${SEED})`];
    let checked = 0;
    let transient = 0;

    /** Every listed row once; every Indexed large file and a random sample of Indexed small ones answer their fact. */
    const checkListed = async (page: Page, round: string): Promise<void> => {
      const rows = await libraryStatus(page);
      expect(rows.map((r) => r.name).sort()).toEqual([...byName.keys()].sort());
      const indexed = rows.filter((r) => r.status === 'Indexed').map((r) => byName.get(r.name)!);
      // Few small ones between kills, so the checks do not let the queue run to its end before the next kill.
      const sample = [...indexed.filter((f) => f.large), ...indexed.filter((f) => !f.large).sort(() => random() - 0.5).slice(0, 2)];
      for (const fact of sample) {
        checked++;
        if (await findsFact(page, fact)) continue;
        // A list refresh can show a large file "Indexed" in the second or so its last index slices take:
        // ask once more. A document left partial by a kill stays partial, and fails here.
        transient++;
        await page.waitForTimeout(3000);
        expect(await findsFact(page, fact), `${round}: ${fact.name} is listed Indexed but "${fact.question}" does not find "${fact.answer}" in it`).toBe(true);
      }
      const states = rows.reduce<Record<string, number>>((acc, r) => {
        const key = r.status.startsWith('Indexing') ? 'Indexing' : r.status === 'Indexed' || r.status === 'Queued' ? r.status : 'failed';
        acc[key] = (acc[key] ?? 0) + 1;
        return acc;
      }, {});
      log.push(`${round}: reopened with ${JSON.stringify(states)}; asked ${sample.length} (${sample.filter((f) => f.large).length} large)`);
    };

    const t0 = Date.now();
    for (let round = 0; round < ROUNDS; round++) {
      const session = await openSession(profileDir);
      profileDir = session.profileDir;
      const page = await session.newPage();
      await page.goto(served.url);
      const dropAll = async () => {
        await page.getByLabel('Add documents').setInputFiles(dropOrder(facts).map((n) => `${folder}/${n}`));
        await page.waitForFunction((n) => document.querySelectorAll('ul[aria-label="Library"] > li').length === n, total);
      };
      const reopened = round === 0 ? 'new' : await waitForRows(page, total);
      if (reopened === 'cleared') log.push(`kill ${round}: the browser discarded the site's IndexedDB; the app said so; dropped again`);
      if (reopened !== 'kept') await dropAll();
      const target = `ledger-${round / 2}.txt`;
      const targetLeft = (await libraryStatus(page)).some((r) => r.name === target && r.status !== 'Indexed');
      if (reopened === 'kept') await checkListed(page, `after kill ${round}`);
      // Kills 1, 3 and 5 each aim at one large file; kills 2 and 4 come after a random delay (the whole
      // drop takes ~10 s to index here, so the delays are short).
      let moment: string;
      if (round % 2 === 0 && targetLeft) {
        // Either while it is read (a high "Indexing N%": it must be read again, whole), or in the seconds
        // after it shows "Indexed": its chunks went into the index slice by slice just now, and a snapshot
        // saved meanwhile would hold half of it until the next one, at most 5 s later.
        const reading = random() < 0.4;
        const min = reading ? 60 + Math.floor(random() * 36) : 101;
        const extra = Math.floor(random() * (reading ? 1500 : 4500));
        const seen = await page
          .waitForFunction(
            ({ m, t }) => {
              const row = [...document.querySelectorAll('ul[aria-label="Library"] > li')].find((li) => li.querySelector('.name')?.textContent === t);
              const status = row?.querySelector('.status')?.textContent ?? '';
              const percent = /^Indexing (\d+)%/.exec(status)?.[1];
              return status !== 'Queued' && (percent === undefined || Number(percent) >= m) && status;
            },
            { m: min, t: target },
            { timeout: 30_000 },
          )
          .then((h) => h.jsonValue(), () => 'nothing in 30 s');
        await page.waitForTimeout(extra);
        moment = `${target} showed "${seen}" (waiting for ${reading ? `>= ${min}%` : 'Indexed'}), then ${extra} ms`;
      } else {
        const delay = Math.floor(random() * 2500);
        await page.waitForTimeout(delay);
        moment = round === 0 ? `${delay} ms after the drop was queued` : `${delay} ms after the reopened page was checked`;
      }
      const before = await libraryStatus(page);
      const busy = before.filter((r) => r.status.startsWith('Indexing')).map((r) => `${r.name} ${r.status}`);
      log.push(`kill ${round + 1}: ${moment}; ${before.filter((r) => r.status === 'Indexed').length} indexed, busy: ${busy.join(', ') || 'none'}`);
      await crashBrowser(session);
    }

    // Last reopen: the queue finishes, and every file ends indexed (Try again on any read twice cut short).
    const session = await openSession(profileDir);
    const page = await session.newPage();
    await page.goto(served.url);
    if ((await waitForRows(page, total)) === 'cleared') {
      log.push(`kill ${ROUNDS}: the browser discarded the site's IndexedDB; the app said so; dropped again`);
      await page.getByLabel('Add documents').setInputFiles(dropOrder(facts).map((n) => `${folder}/${n}`));
      await page.waitForFunction((n) => document.querySelectorAll('ul[aria-label="Library"] > li').length === n, total);
    } else await checkListed(page, 'after the last kill');
    await waitForQueueEmpty(page, 120_000);
    const interrupted = (await libraryStatus(page)).filter((r) => r.status !== 'Indexed');
    for (const row of interrupted) expect(row.status).toMatch(/the app stopped twice while reading this file/);
    if (interrupted.length) {
      log.push(`stopped twice: ${interrupted.map((r) => r.name).join(', ')}; Try again on ${(await tryAgainAll(page)).join(', ')}`);
    }
    await waitForIndexed(page, total, 120_000);
    const rows = await libraryStatus(page);
    expect(rows).toHaveLength(total);
    for (const fact of facts.filter((f) => f.large)) expect(await findsFact(page, fact), fact.name).toBe(true);
    for (const fact of facts.filter((f) => !f.large).sort(() => random() - 0.5).slice(0, 6)) expect(await findsFact(page, fact), fact.name).toBe(true);
    checked += 9;
    await session.close();
    console.info([...log, `${checked} facts asked in all (${transient} asked twice); ${((Date.now() - t0) / 1000).toFixed(0)} s`].join('\n'));
  });
});
