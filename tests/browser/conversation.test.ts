// A conversation in Chromium: a follow-up rewritten into a standalone question ("Searched
// for: …", by the scripted generator's JSON, or by the rule without a model), the searched question edited
// and searched again, earlier turns shown compact, and the history after a reload: reopen, rename, delete.
import { describe, expect, it } from 'vitest';
import { askQuestion, waitForIndexed } from '../support/app-page.ts';
import { useApp, type Page } from '../support/browser.ts';
import { writeTree } from '../support/fixture-folder.ts';
import { nextAnswer, useScriptedGenerator } from '../support/scripted-answer.ts';

const LEASE = '# Lease\n\n## Payment\n\nThe tenant pays the rent of 950 euros on the first day of each month.\n\n## Deposit\n\nThe deposit is two months of rent. The deposit is returned within thirty days after the lease ends.\n';
const REPLIES = [
  'The tenant pays the rent on the first day of each month [1].',
  'The deposit is returned within thirty days after the lease ends [1].',
  'The deposit is two months of rent [1].',
];

const region = (page: Page) => page.getByRole('region', { name: 'Answer' });
const earlier = (page: Page) => page.getByRole('region', { name: 'Earlier in this conversation' }).getByRole('listitem');
const history = (page: Page) => page.getByRole('navigation', { name: 'Conversations' });
const searchedFor = (page: Page) => page.locator('.searched');

describe('a conversation with a model (scripted generator)', () => {
  const app = useApp();

  it('rewrites a follow-up, shows what was searched, and searches again with the person\'s edit', async () => {
    const { page } = app;
    await page.getByLabel('Add a folder').setInputFiles(await writeTree({ 'lease.md': LEASE }));
    await waitForIndexed(page, 1);
    await useScriptedGenerator(page, { replies: REPLIES, json: ['{"question": "When is the deposit returned?"}'] });
    await waitForIndexed(page, 1);

    expect(await askQuestion(page, 'When is the rent paid?')).toContain('first day of each month');
    // The first question is not rewritten.
    expect(await searchedFor(page).count()).toBe(0);

    const text = await askQuestion(page, 'And the deposit?');
    expect(text).toContain('returned within thirty days');
    expect(await searchedFor(page).textContent()).toContain('Searched for: When is the deposit returned?');
    expect(await earlier(page).allTextContents()).toEqual([expect.stringMatching(/^When is the rent paid\?.*first day of each month/su)]);
    await page.screenshot({ path: '/tmp/conv-follow-up.png', fullPage: true });

    // Edit the searched question: Escape cancels, Enter searches again; the answer replaces the last one.
    await page.getByRole('button', { name: 'Edit the searched question' }).click();
    const field = page.getByLabel('Searched question', { exact: true });
    expect(await field.inputValue()).toBe('When is the deposit returned?');
    await field.press('Escape');
    await expect.poll(() => field.count()).toBe(0);
    // The keyboard is back on Edit.
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Edit the searched question');
    await page.getByRole('button', { name: 'Edit the searched question' }).click();
    const before = await region(page).getAttribute('data-seq');
    await field.fill('How large is the deposit?');
    await field.press('Enter');
    await nextAnswer(page, before);
    expect(await region(page).textContent()).toContain('two months of rent');
    expect(await searchedFor(page).textContent()).toContain('Searched for: How large is the deposit?');
    expect(await earlier(page).count()).toBe(1);
  });

  it('keeps the conversation after a reload: listed, reopened with both turns, renamed, deleted', async () => {
    const { page } = app;
    await page.reload();
    const item = history(page).getByRole('listitem');
    await expect.poll(() => item.count()).toBe(1);
    expect(await item.textContent()).toMatch(/When is the rent paid\?.*2 questions/su);
    // After a reload the Answer area is empty until a conversation is reopened.
    expect(await earlier(page).count()).toBe(0);

    const before = await region(page).getAttribute('data-seq');
    await history(page).getByRole('button', { name: 'When is the rent paid?', exact: true }).click();
    await nextAnswer(page, before);
    expect(await earlier(page).allTextContents()).toEqual([expect.stringMatching(/^When is the rent paid\?.*first day of each month/su)]);
    expect(await region(page).textContent()).toContain('two months of rent');
    expect(await searchedFor(page).textContent()).toContain('Searched for: How large is the deposit?');
    await page.screenshot({ path: '/tmp/conv-history.png', fullPage: true });

    // Rename: Escape keeps the old title, Enter saves the new one.
    await history(page).getByRole('button', { name: 'Rename conversation When is the rent paid?' }).click();
    const title = page.getByLabel('Conversation title', { exact: true });
    await title.fill('Something else');
    await title.press('Escape');
    await expect.poll(() => title.count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Rename conversation When is the rent paid?');
    expect(await history(page).getByRole('button', { name: 'When is the rent paid?', exact: true }).count()).toBe(1);
    await history(page).getByRole('button', { name: 'Rename conversation When is the rent paid?' }).click();
    await title.fill('Lease questions');
    await title.press('Enter');
    await expect.poll(() => history(page).getByRole('button', { name: 'Lease questions', exact: true }).count()).toBe(1);

    // The next question continues the reopened conversation.
    await askQuestion(page, 'When is the rent paid?');
    await expect.poll(() => item.textContent()).toMatch(/Lease questions.*3 questions/su);
    expect(await earlier(page).count()).toBe(2);

    await page.reload();
    await expect.poll(() => history(page).getByRole('button', { name: 'Lease questions', exact: true }).count()).toBe(1);
    await history(page).getByRole('button', { name: 'Delete conversation Lease questions' }).click();
    await expect.poll(() => item.count()).toBe(0);
    await page.reload();
    await expect.poll(() => history(page).textContent()).toContain('Questions you ask are kept here');
    expect(await item.count()).toBe(0);
  });
});

describe('a conversation without a model (extractive answers)', () => {
  const app = useApp();

  it('rewrites a follow-up by the rule, and New conversation starts afresh', async () => {
    const { page } = app;
    await page.getByLabel('Add a folder').setInputFiles(await writeTree({ 'lease.md': LEASE }));
    await waitForIndexed(page, 1);
    await askQuestion(page, 'When does the tenant pay the rent?');
    const text = await askQuestion(page, 'How much is it?');
    expect(await searchedFor(page).textContent()).toContain('Searched for: How much is it? (tenant pay rent)');
    expect(text).toContain('950 euros');
    expect(await earlier(page).count()).toBe(1);

    await page.getByRole('button', { name: 'New conversation' }).click();
    expect(await earlier(page).count()).toBe(0);
    expect(await region(page).textContent()).toBe('');
    // Not a follow-up any more: searched as typed.
    await askQuestion(page, 'How much is it?');
    expect(await searchedFor(page).count()).toBe(0);
    await expect.poll(() => history(page).getByRole('listitem').count()).toBe(2);

    // Another tab's history follows: a question asked here is listed there without a reload.
    const other = await page.context().newPage();
    await other.goto(page.url());
    await expect.poll(() => history(other).getByRole('listitem').count()).toBe(2);
    await askQuestion(page, 'Who pays the deposit?');
    await expect.poll(() => history(other).getByRole('listitem').first().textContent()).toMatch(/^How much is it\?.*2 questions/su);
    await other.close();
  });
});
