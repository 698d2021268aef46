import { describe, expect, it } from 'vitest';
import { useApp } from '../support/browser.ts';
import { askQuestion, dropFile, statusWhenDone } from '../support/app-page.ts';
import { makeGarbledPdf } from '../support/fixtures.ts';

const PROSE = ['The tenant pays the rent on the first day of each month.', 'The deposit is returned within fourteen days.'];

/** PDFs whose fonts on some pages do not map to characters: their text extracts as symbol garbage. */
describe('a PDF with unreadable pages', () => {
  const app = useApp();

  it('says which pages are not searchable, and keeps their garbage out of answers', async () => {
    const { page } = app;
    const pages = [{ lines: PROSE }, ...Array.from({ length: 3 }, () => ({ lines: PROSE, garbled: 'private-use' as const })), { lines: ['Repairs are the landlord duty.'] }, { lines: PROSE, garbled: 'symbols' as const }];
    await dropFile(page, 'lease.pdf', makeGarbledPdf(pages));
    expect(await statusWhenDone(page, 'lease.pdf')).toBe('Indexed: pages 2–4, 6 unreadable (font encoding), not searchable');
    const answer = await askQuestion(page, 'when is the deposit returned');
    expect(answer).toContain('The deposit is returned within fourteen days.');
    expect(answer).not.toMatch(/[\uE000-\uF8FF]|[!"#$%&]{3}/u);
    const sources = (await page.getByRole('list', { name: 'Sources' }).textContent()) ?? '';
    expect(sources).toContain('lease.pdf, page 1');
    expect(sources).not.toMatch(/page [2-46]\b/);
  });

  it('fails a PDF with no readable text with what to do, and keeps a readable one "Indexed"', async () => {
    const { page } = app;
    await dropFile(page, 'garbled.pdf', makeGarbledPdf([{ lines: PROSE, garbled: 'private-use' }]));
    expect(await statusWhenDone(page, 'garbled.pdf')).toMatch(/^garbled\.pdf: no readable text: the PDF's fonts do not map to characters.*Add the original document \(Word, HTML or text\) or a PDF made by another program$/);
    await dropFile(page, 'clean.pdf', makeGarbledPdf([{ lines: ['Pets are allowed with written consent.'] }]));
    expect(await statusWhenDone(page, 'clean.pdf')).toBe('Indexed');
  });
});
