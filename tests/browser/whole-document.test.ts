// Whole-document questions in Chromium, with the scripted generator: "Summarise lease.md" is
// recognised (the page says which document it will read), the library reads every section of it in parts
// (the page shows "read 1 of 3 parts" while it does), and the answer cites passages from several sections.
// The "Whole document" toggle reads one chosen document for any question.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForIndexed } from '../support/app-page.ts';
import { openSession, removeProfile, serveApp, type Page, type Served } from '../support/browser.ts';
import { writeTree } from '../support/fixture-folder.ts';
import { useScriptedGenerator } from '../support/scripted-answer.ts';

const FILLER = 'This clause is part of the lease between the landlord and the tenant and is binding on both of them. '.repeat(4);
const section = (heading: string, first: string) => `## ${heading}\n\n${first} ${FILLER}\n\n`;
const LEASE = `# Lease\n\n${section('Rent', 'The rent is 950 euros per month.')}${section('Deposit', 'The deposit is 1900 euros.')}${section('Term', 'The lease ends on 31 March 2027.')}`;

// A 640-token window holds one of these sections per request (a map prompt is ~290 tokens, a section ~125),
// so the lease is read in 3 parts: three notes, then the answer combining them.
const REPLIES = [
  'The rent is 950 euros per month [1].',
  'The deposit is 1900 euros [2].',
  'The lease ends on 31 March 2027 [3].',
  'The rent is 950 euros per month [1]. The deposit is 1900 euros [2]. The lease ends on 31 March 2027 [3].',
];

describe('questions about a whole document (scripted generator)', () => {
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
        'lease.md': LEASE,
        'notes.md': '# Notes\n\nThe boiler was serviced in May. The landlord lives next door.\n',
      }),
    );
    await waitForIndexed(page, 2);
    await useScriptedGenerator(page, { replies: REPLIES, delayMs: 120, contextTokens: 640 });
    await waitForIndexed(page, 2);
  });
  afterAll(async () => {
    await session?.close();
    await served?.close().catch(() => undefined);
    await removeProfile(session.profileDir);
  });

  const region = () => page.getByRole('region', { name: 'Answer' });
  const toggle = () => page.getByRole('checkbox', { name: 'Answer over the whole document' });

  it('"Summarise lease.md" reads every part of the lease, shows its progress, and cites several sections', async () => {
    await page.getByLabel('Ask a question').fill('What is the rent?');
    // Two documents and none named: nothing to read whole.
    expect(await toggle().isDisabled()).toBe(true);
    expect(await page.getByText('Reading all of').count()).toBe(0);

    await page.getByLabel('Ask a question').fill('Summarise lease.md');
    await page.getByText('Reading all of docs/lease.md').waitFor();
    expect(await toggle().isDisabled()).toBe(false);
    await page.getByRole('button', { name: 'Ask' }).click();

    await page.getByRole('status').filter({ hasText: /read 1 of 3 parts/ }).waitFor({ timeout: 15_000 });
    await page.locator('.generated').waitFor({ timeout: 30_000 });
    const text = (await region().textContent()) ?? '';
    expect(text).toContain('The rent is 950 euros per month');
    expect(text).toContain('The lease ends on 31 March 2027');
    expect(text).not.toMatch(/citations? removed/);
    const sources = await page.locator('ol[aria-label="Sources"] .source-label').allTextContents();
    expect(sources).toEqual(['Lease › Rent', 'Lease › Deposit', 'Lease › Term']);
    expect(new Set(await page.locator('ol[aria-label="Sources"] .source-path').allTextContents())).toEqual(new Set(['docs/lease.md']));
  });

  it('the toggle reads the document chosen in the filter whole, for any question', async () => {
    await page.getByLabel('Only in document').selectOption({ label: 'docs/lease.md' });
    await page.getByLabel('Ask a question').fill('What does it cost?');
    expect(await page.getByText('Reading all of').count()).toBe(0);
    await toggle().check();
    await page.getByText('Reading all of docs/lease.md').waitFor();
    await page.getByRole('button', { name: 'Ask' }).click();
    await page.getByRole('status').filter({ hasText: /read \d of 3 parts/ }).waitFor({ timeout: 15_000 });
    await page.locator('.generated').waitFor({ timeout: 30_000 });
    expect(await page.locator('ol[aria-label="Sources"] .source-label').allTextContents()).toEqual(['Lease › Rent', 'Lease › Deposit', 'Lease › Term']);
  });
});
