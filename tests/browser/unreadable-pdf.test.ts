import { describe, expect, it } from 'vitest';
import { useApp } from '../support/browser.ts';
import { askQuestion, dropFile, statusWhenDone } from '../support/app-page.ts';
import { makeGarbledPdf } from '../support/fixtures.ts';

const PROSE = ['The tenant pays the rent on the first day of each month.', 'The deposit is returned within fourteen days.'];

/** PDFs whose fonts on some pages do not map to characters: their text extracts as symbol garbage. */
describe('a PDF with unreadable pages', () => {
  const app = useApp();

  it('reads pages that show text their fonts do not map from the image, says which pages are not searchable, and keeps their garbage out of answers', async () => {
    const { page } = app;
    // Pages 2–4 extract as private-use code points but show the sentences (OCR reads them); page 6 shows symbols.
    const pages = [{ lines: PROSE }, ...Array.from({ length: 3 }, () => ({ lines: PROSE, garbled: 'private-use' as const })), { lines: ['Repairs are the landlord duty.'] }, { lines: PROSE, garbled: 'symbols' as const }];
    await dropFile(page, 'lease.pdf', makeGarbledPdf(pages));
    expect(await statusWhenDone(page, 'lease.pdf')).toBe('Indexed: page 6 unreadable (font encoding), not searchable; pages 2–4 recognised from images (OCR)');
    const answer = await askQuestion(page, 'when is the deposit returned');
    expect(answer).toContain('The deposit is returned within fourteen days.');
    expect(answer).not.toMatch(/[\uE000-\uF8FF]|[!"#$%&]{3}/u);
    const sources = (await page.getByRole('list', { name: 'Sources' }).textContent()) ?? '';
    expect(sources).toMatch(/lease\.pdf, page [1-4](?!\d)/);
    expect(sources).not.toMatch(/page 6(?!\d)/);
  });

  it('fails a PDF with no readable text with what to do, and keeps a readable one "Indexed"', async () => {
    const { page } = app;
    await dropFile(page, 'garbled.pdf', makeGarbledPdf([{ lines: PROSE, garbled: 'symbols' }]));
    expect(await statusWhenDone(page, 'garbled.pdf')).toMatch(/^garbled\.pdf: no readable text: the PDF's fonts do not map to characters.*Add the original document \(Word, HTML or text\) or a PDF made by another program$/);
    await dropFile(page, 'clean.pdf', makeGarbledPdf([{ lines: ['Pets are allowed with written consent.'] }]));
    expect(await statusWhenDone(page, 'clean.pdf')).toBe('Indexed');
  });
});
