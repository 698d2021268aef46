// Questions submitted with Enter in quick succession, in Chromium: each one is either answered, in turn,
// or shown as waiting to be asked until it is (a queue: the person typed every one of them and gets an
// answer to each, in the order asked, each follow-up read with the turns before it).
import { describe, expect, it } from 'vitest';
import { waitForIndexed } from '../support/app-page.ts';
import { useApp, type Page } from '../support/browser.ts';
import { writeTree } from '../support/fixture-folder.ts';
import { useScriptedGenerator } from '../support/scripted-answer.ts';

const LEASE = '# Lease\n\n## Payment\n\nThe tenant pays the rent of 950 euros on the first day of each month.\n\n## Deposit\n\nThe deposit is two months of rent.\n';

/** Every question the page shows: the conversation's turns, the one on show, the one being asked, those waiting. */
function shownQuestions(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('.earlier-question, .current-question, .asking-question, .waiting-question')].map((e) => e.textContent?.trim() ?? ''),
  );
}

/** The questions answered: the conversation's earlier turns and the one on show, once nothing is being asked or waiting. */
function answeredQuestions(page: Page): Promise<string[] | undefined> {
  return page.evaluate(() => {
    if (document.querySelector('section[aria-label="Answer"]')?.getAttribute('aria-busy') === 'true') return undefined;
    if (document.querySelector('.asking-question, .waiting-question')) return undefined;
    return [...document.querySelectorAll('.earlier-question, .current-question')].map((e) => e.textContent?.trim() ?? '');
  });
}

/** Types each question and presses Enter at once after it, never waiting for an answer; checks each shows at once. */
async function submitQuickly(page: Page, questions: readonly string[]): Promise<string[]> {
  const box = page.getByLabel('Ask a question');
  const missing: string[] = [];
  for (const q of questions) {
    await box.fill(q);
    await box.press('Enter');
    if (!(await shownQuestions(page)).includes(q)) missing.push(q);
  }
  return missing;
}

describe('questions asked in quick succession', () => {
  const app = useApp();
  const questions = (n: number, topic: string) => Array.from({ length: n }, (_, i) => `Question ${i + 1}: when is the ${topic} paid?`);

  it('answers each of 50 questions (quoted answers, no model), in the order asked', async () => {
    const { page } = app;
    await page.getByLabel('Add a folder').setInputFiles(await writeTree({ 'lease.md': LEASE }));
    await waitForIndexed(page, 1);
    const asked = questions(50, 'rent');
    const notShown = await submitQuickly(page, asked);
    await expect.poll(() => answeredQuestions(page), { timeout: 90_000 }).toEqual(asked);
    expect(notShown).toEqual([]);
  });

  it('shows questions asked while a model writes as waiting, then answers each in turn', async () => {
    const { page } = app;
    await useScriptedGenerator(page, { replies: ['The tenant pays the rent on the first day of each month [1].'], delayMs: 30 });
    // The reload leaves the Answer area empty: these questions start a conversation of their own.
    await waitForIndexed(page, 1);
    const asked = questions(8, 'deposit');
    const notShown = await submitQuickly(page, asked);
    // A waiting question can be dropped before its turn (each answer streams for a while: the last is still waiting).
    const last = asked.at(-1)!;
    await page.getByRole('list', { name: 'Waiting questions' }).getByRole('button', { name: `Do not ask ${last}` }).click();
    await expect.poll(() => answeredQuestions(page), { timeout: 90_000 }).toEqual(asked.slice(0, -1));
    expect(notShown).toEqual([]);
    expect(await page.getByRole('region', { name: 'Answer' }).textContent()).toContain('first day of each month');
  });

  it('says to type a question when Ask is pressed with none (spaces alone are none), and asks nothing', async () => {
    const { page } = app;
    await waitForIndexed(page, 1);
    const box = page.getByLabel('Ask a question');
    const before = await shownQuestions(page);
    for (const typed of ['', '   ']) {
      await box.fill(typed);
      await page.getByRole('button', { name: 'Ask', exact: true }).click();
      await expect.poll(() => page.getByRole('status').filter({ hasText: 'Type a question first' }).count()).toBe(1);
      expect(await box.getAttribute('aria-invalid')).toBe('true');
      expect(await box.evaluate((e) => e === document.activeElement)).toBe(true);
      expect(await shownQuestions(page)).toEqual(before);
    }
    // Typing clears it, and the question is asked as usual.
    await box.fill('When is the rent paid?');
    expect(await page.getByText('Type a question first').count()).toBe(0);
    await box.press('Enter');
    await expect.poll(() => answeredQuestions(page), { timeout: 30_000 }).toContain('When is the rent paid?');
  });
});
