import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CDPSession, Page } from 'playwright-core';
import { openSession, removeProfile, serveApp, type Served, type Session } from '../support/browser.ts';
import { askQuestion, libraryStatus, sourcePaths, tryAgainAll, waitForQueueEmpty } from '../support/app-page.ts';
import { writeTree } from '../support/fixture-folder.ts';
import { longText } from '../support/fixtures.ts';
import { codeWord, seedFrom, seededRandom } from '../support/random.ts';

const MB = 2 ** 20;
const QUOTA = 40 * MB;
const LARGE = 6;
const SMALL = 12;
const SEED = seedFrom('QUOTA_SEED', 7);
const FULL = 'storage full: delete documents or free disk space';

interface Fact {
  name: string;
  question: string;
  answer: string;
}

/** Six 6 MB text files (their fact near the end) and twelve small ones, in a seeded random order. */
function dropFiles(random: () => number): { files: Record<string, string>; facts: Fact[]; order: string[] } {
  const files: Record<string, string> = {};
  const facts: Fact[] = [];
  for (let k = 0; k < LARGE; k++) {
    const name = `archive-${k}.txt`;
    const answer = `crate number ${k * 13 + 6}`;
    files[name] = longText(6, `The museum keeps the bronze falcon of the ${codeWord(500 + k)} gallery in ${answer}.`);
    facts.push({ name, question: `bronze falcon ${codeWord(500 + k)} gallery`, answer });
  }
  for (let i = 0; i < SMALL; i++) {
    const name = `note-${i}.${i % 2 ? 'md' : 'txt'}`;
    const answer = `platform ${i * 3 + 2}`;
    files[name] = `${i % 2 ? '# ' : ''}Note ${i}\n\nThe night train to ${codeWord(i)} leaves from ${answer}.\n`;
    facts.push({ name, question: `night train to ${codeWord(i)}`, answer });
  }
  const order = facts.map((f) => f.name).sort(() => random() - 0.5);
  return { files, facts, order };
}

/**
 * Chromium's per-origin quota, set through CDP. What makes it work (measured on Chromium here):
 * - the override lives as long as the CDP session that set it: a detached session resets it;
 * - lowering it only binds once IndexedDB asks the quota manager again: each origin caches the space it
 *   was granted for ~30 s, so the override must be set before the origin's first write (before the page
 *   loads, here), not mid-run; raising it takes effect at once (a write beyond the cache asks again);
 * - `navigator.storage.estimate().quota` does not show it (it still says ~10 GB);
 * - `quotaSize` is in bytes, and the origin may be given as the page URL (it is reduced to its origin).
 */
async function setQuota(cdp: CDPSession, origin: string, bytes: number): Promise<void> {
  await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: bytes });
}

async function statuses(page: Page): Promise<Record<string, string>> {
  return Object.fromEntries((await libraryStatus(page)).map((r) => [r.name, r.status]));
}

/** True when the answer has the fact and cites the fact's file first. */
async function findsFact(page: Page, fact: Fact): Promise<boolean> {
  const answer = await askQuestion(page, fact.question);
  const sources = await sourcePaths(page);
  return answer.includes(fact.answer) && !!sources[0]?.endsWith(fact.name);
}

describe('storage full at random writes', () => {
  let served: Served;
  let session: Session & { profileDir: string };

  beforeAll(async () => {
    served = await serveApp();
    session = await openSession();
  });
  afterAll(async () => {
    await session?.close();
    await served?.close();
    if (session) await removeProfile(session.profileDir);
  });

  it('every file ends indexed or "storage full", nothing partial is searchable, and Try again indexes them once there is room', { timeout: 180_000 }, async () => {
    const random = seededRandom(SEED);
    const { files, facts, order } = dropFiles(random);
    const byName = new Map(facts.map((f) => [f.name, f]));
    const folder = await writeTree(files, 'quota-drop');
    const page = await session.newPage();
    const origin = new URL(served.url).origin;
    // Kept attached to the end: detaching the session would lift the override.
    const cdp = await session.context.newCDPSession(page);
    await setQuota(cdp, origin, QUOTA);
    await page.goto(served.url);

    // Two drops, so that the first can fill some of the space with indexed documents (a big file's
    // commit needs about twice its size free while its queued copy still holds the first). A file that
    // finds storage already over its quota, so full that even its failure cannot be recorded, gets no
    // row: the Activity list says "<name>: storage full: …".
    const t0 = Date.now();
    const half = Math.ceil(order.length / 2);
    const refused: string[] = [];
    for (const part of [order.slice(0, half), order.slice(half)]) {
      await page.getByLabel('Add documents').setInputFiles(part.map((n) => `${folder}/${n}`));
      // Every file of the drop is listed, or reported refused.
      await page.waitForFunction(
        ({ names, full }) => {
          const rows = new Set([...document.querySelectorAll('ul[aria-label="Library"] .name')].map((e) => e.textContent));
          const notes = [...document.querySelectorAll('ul[aria-label="Activity"] li')].map((li) => li.textContent ?? '');
          return names.every((n) => rows.has(n) || notes.includes(`${n}: ${full}`));
        },
        { names: part, full: FULL },
      );
      const rows = new Set((await libraryStatus(page)).map((r) => r.name));
      refused.push(...part.filter((n) => !rows.has(n)));
      // The queue finishes: no row is left Queued or Indexing.
      await waitForQueueEmpty(page, 120_000);
    }
    const after = await statuses(page);
    console.info(`quota ${QUOTA / MB} MB, seed ${SEED}, drops ${order.slice(0, half).join(' ')} | ${order.slice(half).join(' ')}: queue finished in ${Date.now() - t0} ms; refused: ${refused.join(' ') || 'none'}\n${JSON.stringify(after, null, 1)}`);
    // Every file dropped is listed, or was reported refused.
    expect(Object.keys(after).sort()).toEqual([...byName.keys()].filter((n) => !refused.includes(n)).sort());
    for (const [name, status] of Object.entries(after)) {
      expect(status === 'Indexed' || status === `${name}: ${FULL}`, `${name}: ${status}`).toBe(true);
    }
    const failed = Object.keys(after).filter((n) => after[n] !== 'Indexed');
    const indexed = Object.keys(after).filter((n) => after[n] === 'Indexed');
    expect(failed.length + refused.length, 'the drops must overflow the quota').toBeGreaterThan(0);
    expect(indexed.length, 'some files must fit').toBeGreaterThan(0);

    // Nothing of a failed file is searchable; every indexed one is; the page keeps answering.
    for (const name of [...failed, ...refused]) expect(await findsFact(page, byName.get(name)!), `${name} failed yet its fact is found`).toBe(false);
    for (const name of indexed) expect(await findsFact(page, byName.get(name)!), `${name} is Indexed but its fact is not found`).toBe(true);
    await expect(page.getByRole('alert').count()).resolves.toBe(0);

    // Free space: delete an indexed document, and raise the quota (the same call).
    const deleted = indexed[0]!;
    await page.getByRole('list', { name: 'Library' }).getByRole('listitem').filter({ has: page.locator('.name', { hasText: new RegExp(`^${deleted.replace('.', '\\.')}$`) }) }).getByRole('button', { name: 'Delete' }).click();
    await page.waitForFunction((n) => ![...document.querySelectorAll('ul[aria-label="Library"] .name')].some((e) => e.textContent === n), deleted);
    await setQuota(cdp, origin, 1024 * MB);
    const retried = await tryAgainAll(page);
    await waitForQueueEmpty(page, 120_000);
    const retriedAt = await statuses(page);
    // Files refused at enqueue kept no contents (there was no room for them): no Try again; they, and the
    // files that got no row, are added again by hand.
    const notKept = failed.filter((n) => !retried.includes(n));
    console.info(`Try again on ${retried.length} (${retried.join(' ')}); not kept: ${notKept.join(' ') || 'none'}; ${Date.now() - t0} ms`);
    for (const name of retried) expect(retriedAt[name], name).toBe('Indexed');
    for (const name of notKept) expect(retriedAt[name]).toBe(`${name}: ${FULL}`);
    if (notKept.length) {
      await page.getByRole('button', { name: /^Clear \d+ failed files?$/ }).click();
      // The failed rows are gone before the files are added again (else the old rows would be counted).
      await page.waitForFunction((names) => ![...document.querySelectorAll('ul[aria-label="Library"] .name')].some((e) => names.includes(e.textContent ?? '')), notKept);
    }
    const again = [...notKept, ...refused];
    if (again.length) {
      await page.getByLabel('Add documents').setInputFiles(again.map((n) => `${folder}/${n}`));
      await page.waitForFunction((n) => document.querySelectorAll('ul[aria-label="Library"] > li').length === n, facts.length - 1);
      await waitForQueueEmpty(page, 120_000);
    }
    // Nothing is lost: every file but the one deleted is indexed and answers its fact.
    const final = await statuses(page);
    expect(Object.keys(final).sort()).toEqual([...byName.keys()].filter((n) => n !== deleted).sort());
    for (const [name, status] of Object.entries(final)) {
      expect(status, name).toBe('Indexed');
      expect(await findsFact(page, byName.get(name)!), name).toBe(true);
    }
    expect(await findsFact(page, byName.get(deleted)!), `${deleted} was deleted`).toBe(false);
    console.info(`all indexed after freeing space; ${Date.now() - t0} ms`);
  });
});
