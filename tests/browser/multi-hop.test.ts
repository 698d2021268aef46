// Phrasings and multi-hop in Chromium with the scripted generator: the two options show only
// when a model writes answers and are remembered; a two-hop question shows each hop's query and passages
// in the Answer area while the answer is written and after, and the answer cites a passage only the second
// hop found; query expansion shows the phrasings it searched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForIndexed } from '../support/app-page.ts';
import { openSession, removeProfile, serveApp, type Page, type Served } from '../support/browser.ts';
import { writeTree } from '../support/fixture-folder.ts';
import { useScriptedGenerator } from '../support/scripted-answer.ts';

const QUESTION = 'Who looks after the heating for the tenant paying 950 euros rent?';
// JSON replies in order: the two judgements of the two-hop question, then the phrasings of the second question.
const JSON_REPLIES = [
  JSON.stringify({ sufficient: false, missing: 'who carries out the maintenance schedule', next_query: 'maintenance schedule' }),
  JSON.stringify({ sufficient: true, missing: '', next_query: '' }),
  JSON.stringify({ queries: ['boiler servicing plumber', 'heating maintenance'] }),
];
// Passage 1 is the lease (the only passage of hop 1); passage 2 the schedule, found by hop 2.
const HOP_ANSWER = 'Marek Nowak services the boiler every October [2]. The plumber is Marek Nowak [2]. He services the boiler every October [2]. The boiler is serviced by the plumber Marek Nowak every October [2].';
const EXPANDED_ANSWER = 'Marek Nowak services the boiler every October [1][2].';

describe('phrasings and multi-hop (scripted generator)', () => {
  let served: Served;
  let session: Awaited<ReturnType<typeof openSession>>;
  let page: Page;

  beforeAll(async () => {
    served = await serveApp();
    session = await openSession();
    page = await session.newPage();
    await page.goto(served.url);
    await page.getByLabel('Add a folder').setInputFiles(
      await writeTree({
        'lease.md': '# Lease\n\n## Rent and heating\n\nThe tenant pays 950 euros rent each month. Heating is looked after according to the maintenance schedule.\n',
        'schedule.md': '# Maintenance schedule\n\n## Boiler\n\nThe plumber Marek Nowak services the boiler every October.\n',
        'rules.md': '# House rules\n\n## Garden\n\nThe garden is shared by all residents and closes at ten in the evening.\n',
      }),
    );
    await waitForIndexed(page, 3);
  });
  afterAll(async () => {
    await session?.close();
    await served?.close().catch(() => undefined);
    await removeProfile(session.profileDir);
  });

  const region = () => page.getByRole('region', { name: 'Answer' });
  const expand = () => page.getByRole('checkbox', { name: 'Search several phrasings' });
  const hops = () => page.getByRole('checkbox', { name: 'Look further (multi-hop)' });

  it('offers the two options only when a model writes answers, and remembers them', async () => {
    // An answer quoted from the documents (no model): the page has read which model writes answers by then.
    await page.getByLabel('Ask a question').fill('When is the rent paid?');
    await page.getByRole('button', { name: 'Ask' }).click();
    await page.locator('ol[aria-label="Sources"]').waitFor({ timeout: 15_000 });
    expect(await expand().count()).toBe(0);
    expect(await hops().count()).toBe(0);
    await useScriptedGenerator(page, { replies: [HOP_ANSWER, EXPANDED_ANSWER], json: JSON_REPLIES, delayMs: 40 });
    await waitForIndexed(page, 3);
    await hops().check();
    expect(await expand().isChecked()).toBe(false);
    await page.reload();
    await waitForIndexed(page, 3);
    expect(await hops().isChecked()).toBe(true);
    expect(await expand().isChecked()).toBe(false);
  });

  it('shows each hop\'s query and passages while the answer is written and after; the answer cites the second hop\'s passage', async () => {
    await page.getByLabel('Ask a question').fill(QUESTION);
    await page.getByRole('button', { name: 'Ask' }).click();
    // While the model writes, both hops are already listed.
    await page.locator('.streaming').filter({ hasText: 'Marek Nowak' }).waitFor({ timeout: 15_000 });
    const during = (await region().getByRole('list', { name: 'Search steps' }).textContent()) ?? '';
    expect(during).toContain(`Hop 1: ${QUESTION} — 1 passage (docs/lease.md, Lease › Rent and heating). Missing: who carries out the maintenance schedule`);
    expect(during).toContain('Hop 2: maintenance schedule — 1 new passage (docs/schedule.md, Maintenance schedule › Boiler). Enough to answer.');

    await page.locator('.generated').waitFor({ timeout: 30_000 });
    const steps = await region().getByRole('list', { name: 'Search steps' }).getByRole('listitem').allTextContents();
    expect(steps).toHaveLength(2);
    expect(steps[1]).toContain('Hop 2: maintenance schedule — 1 new passage (docs/schedule.md');
    expect(await page.locator('.generated').textContent()).toContain('Marek Nowak services the boiler every October');
    expect(await page.locator('.generated .unsupported').count()).toBe(0);
    expect(await page.locator('ol[aria-label="Sources"] .source-path').allTextContents()).toEqual(['docs/schedule.md']);
    await page.screenshot({ path: '/tmp/hops-answer.png', fullPage: true });
  });

  it('searches several phrasings and shows them', async () => {
    await hops().uncheck();
    await expand().check();
    // A new question, not a follow-up: in the same conversation the model would first be asked to rewrite it.
    await page.getByRole('button', { name: 'New conversation' }).click();
    await page.getByLabel('Ask a question').fill('Who looks after the heating?');
    await page.getByRole('button', { name: 'Ask' }).click();
    await page.locator('.generated').waitFor({ timeout: 30_000 });
    const steps = await region().getByRole('list', { name: 'Search steps' }).getByRole('listitem').allTextContents();
    expect(steps).toEqual(['Searched 3 phrasings: “Who looks after the heating?” · “boiler servicing plumber” · “heating maintenance”']);
    expect(await page.locator('ol[aria-label="Sources"] .source-path').allTextContents()).toContain('docs/schedule.md');
    await page.getByRole('button', { name: 'Why this passage' }).first().click();
    expect(await page.locator('.why-ranks').first().textContent()).toMatch(/Phrasings \d\/3 · BM25 #\d/);
    await page.screenshot({ path: '/tmp/hops-phrasings.png', fullPage: true });
  });
});
