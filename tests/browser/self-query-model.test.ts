// Self-query in the page beyond the rules: with a model (the scripted generator), the filter
// only the model reads ("the landlord's contract" → lease.md) shows as a removable chip once its step
// arrives, before the answer, and restricts the sources; removing it asks again unrestricted. Without a
// model, a date phrase ("from 2023") gives a date chip on the documents' own dates.
import { PDFDocument } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { sourcePaths, waitForIndexed } from '../support/app-page.ts';
import { useApp } from '../support/browser.ts';
import { makePdf } from '../support/fixtures.ts';
import { writeTree } from '../support/fixture-folder.ts';
import { nextAnswer, useScriptedGenerator } from '../support/scripted-answer.ts';

/** A one-page PDF whose own date (ModDate) is `date`. */
async function datedPdf(line: string, date: Date): Promise<Uint8Array> {
  const pdf = await PDFDocument.load(await makePdf([{ lines: [line] }]));
  pdf.setCreationDate(date);
  pdf.setModificationDate(date);
  return pdf.save();
}

const QUESTION = "What does the landlord's contract say about pets?";

describe('filters the model reads from the question', () => {
  const app = useApp();

  it('shows the chip the model read before the answer, searches only that document, and asks again without it when removed', async () => {
    const { page } = app;
    await page.getByLabel('Add a folder').setInputFiles(
      await writeTree({
        'lease.md': "# Lease\n\n## Pets\n\nThe tenant may keep one cat; other pets need the landlord's written consent.\n",
        'guide.md': '# Renting guide\n\n## Pets\n\nMost landlords allow small pets when the tenant pays a pet deposit.\n',
      }),
    );
    await waitForIndexed(page, 2);
    // The model says it found nothing: the sources are then every passage searched.
    await useScriptedGenerator(page, { replies: ['Not found in your documents.'], filters: ['{"documents": ["lease.md"], "folders": [], "types": [], "tags": [], "from": null, "to": null}'], delayMs: 300 });
    await waitForIndexed(page, 2);

    const chips = page.getByRole('list', { name: 'Filters from your question' });
    const region = page.getByRole('region', { name: 'Answer' });
    await page.getByLabel('Ask a question').fill(QUESTION);
    // No rule reads "the landlord's contract" as lease.md.
    expect(await chips.count()).toBe(0);
    const seq = await region.getAttribute('data-seq');
    await page.getByRole('button', { name: 'Ask' }).click();
    await expect.poll(() => chips.textContent(), { timeout: 30_000 }).toContain('Only in docs/lease.md');
    // The model is still writing (5 words, 300 ms apart): the chip came before the answer.
    expect(await page.getByRole('button', { name: 'Stop' }).count()).toBe(1);
    await nextAnswer(page, seq);
    expect(new Set(await sourcePaths(page))).toEqual(new Set(['docs/lease.md']));
    expect(await chips.textContent()).toContain('Only in docs/lease.md');

    // Removing it asks again, unrestricted (the model does not read the question again: it would say lease.md).
    const before = await region.getAttribute('data-seq');
    await page.getByRole('button', { name: 'Remove filter docs/lease.md' }).click();
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Ask a question');
    await nextAnswer(page, before);
    expect((await sourcePaths(page)).sort()).toEqual(['docs/guide.md', 'docs/lease.md']);
    expect(await chips.count()).toBe(0);
  });
});

describe('date filters read by the rules (no model)', () => {
  const app = useApp();

  it('reads "from 2023" as the documents\' own dates, as a chip, and searches only the 2023 report', async () => {
    const { page } = app;
    await page.getByLabel('Add a folder').setInputFiles(
      await writeTree({
        'report-a.pdf': await datedPdf('The budget for roads was five million euros.', new Date(2019, 4, 1)),
        'report-b.pdf': await datedPdf('The budget for schools was three million euros.', new Date(2023, 4, 1)),
      }),
    );
    await waitForIndexed(page, 2);
    await page.getByLabel('Ask a question').fill('What was the budget in the reports from 2023?');
    const chips = page.getByRole('list', { name: 'Filters from your question' });
    await expect.poll(() => chips.textContent()).toContain('Only dated 2023');
    expect(await page.getByRole('button', { name: 'Remove filter dated 2023' }).count()).toBe(1);
    const seq = await page.getByRole('region', { name: 'Answer' }).getAttribute('data-seq');
    await page.getByRole('button', { name: 'Ask' }).click();
    await nextAnswer(page, seq);
    expect(new Set(await sourcePaths(page))).toEqual(new Set(['docs/report-b.pdf']));
    // A date no document has offers no chip (it would empty the library).
    await page.getByLabel('Ask a question').fill('What was the budget in the reports from 2015?');
    expect(await chips.count()).toBe(0);
  });
});
