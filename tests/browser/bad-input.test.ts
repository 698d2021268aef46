import { describe, expect, it } from 'vitest';
import { useApp } from '../support/browser.ts';
import { askQuestion, libraryStatus, waitForQueueEmpty } from '../support/app-page.ts';
import { writeTree } from '../support/fixture-folder.ts';
import { junkBytes, longText, makeCorruptDocx, makePasswordPdf, makePdf, makeScannedPdf } from '../support/fixtures.ts';

describe('bad input: a clear per-file status, the rest proceeds', () => {
  const app = useApp();

  it('gives each broken file its own message and indexes the good ones, including a 50 MB text file', async () => {
    const good = '# Minutes\n\nThe committee approved the new bicycle shelter.\n';
    const dir = await writeTree({
      'empty.txt': new Uint8Array(),
      'junk.pdf': junkBytes(),
      'secret.pdf': makePasswordPdf(),
      'scan.pdf': await makeScannedPdf(),
      'broken.docx': await makeCorruptDocx(),
      'photo.png': junkBytes(512),
      '.DS_Store': junkBytes(64),
      'style.css': 'p { color: red }',
      'logo.gif': junkBytes(64),
      'latin1.txt': Uint8Array.from(Buffer.from('Le caf\xe9 du march\xe9 ouvre \xe0 sept heures.', 'latin1')),
      '📄 minutes.md': good,
      'copy of minutes.md': good,
      'תקציר.txt': 'שלום עולם. The abstract mentions the lighthouse keeper.',
      'big.txt': longText(50, 'The zeppelin hangar inventory lists exactly forty-two spare propellers.'),
      'report.pdf': await makePdf([{ lines: ['Quarterly report', '', 'Revenue grew by nine percent in the third quarter.'] }]),
    }, 'inbox');
    await app.page.getByLabel('Add a folder').setInputFiles(dir);

    // While the big file indexes, the page stays responsive and shows per-file progress.
    await app.page.waitForFunction(() => [...document.querySelectorAll('ul[aria-label="Library"] .status')].some((s) => /^Indexing \d+%$/.test(s.textContent ?? '')), undefined, { timeout: 60_000 });
    await app.page.getByLabel('Ask a question').fill('typing works while indexing');
    await expect(app.page.getByLabel('Ask a question').inputValue()).resolves.toBe('typing works while indexing');

    await waitForQueueEmpty(app.page, 170_000);
    const rows = Object.fromEntries((await libraryStatus(app.page)).map((r) => [r.name, r.status]));
    expect(rows).toMatchObject({
      'empty.txt': 'empty.txt: the file is empty',
      'junk.pdf': expect.stringContaining('junk.pdf: this PDF could not be read'),
      'secret.pdf': 'secret.pdf: password-protected: remove the password and add it again',
      'scan.pdf': 'scan.pdf: no text found: the PDF has no text layer and no text was recognised on its pages',
      'broken.docx': expect.stringContaining('broken.docx: this Word file could not be read'),
      'photo.png': 'photo.png: this image could not be read; it may be damaged, or not a PNG, JPEG, WebP or TIFF image',
      'latin1.txt': 'Indexed',
      'תקציר.txt': 'Indexed',
      'big.txt': 'Indexed',
      'report.pdf': 'Indexed',
    });
    // System files that come along with a folder are skipped, not listed as unsupported; files of types the
    // app does not read are skipped too, said in one line.
    expect(Object.keys(rows)).not.toContain('.DS_Store');
    expect(Object.keys(rows)).not.toContain('style.css');
    await expect(app.page.getByRole('list', { name: 'Activity' }).textContent()).resolves.toContain('inbox: skipped 2 files this app does not read: 1 .css, 1 .gif (it reads PDF, Word .docx, HTML, Markdown, text, and images of text: PNG, JPEG, WebP, TIFF)');
    // The same bytes twice in one drop: one document, and a message for the other.
    const minutes = ['📄 minutes.md', 'copy of minutes.md'].filter((n) => rows[n] === 'Indexed');
    expect(minutes).toHaveLength(1);
    await expect(app.page.getByRole('list', { name: 'Activity' }).textContent()).resolves.toContain('already in library');

    expect(await askQuestion(app.page, 'How many spare propellers in the zeppelin hangar?')).toContain('forty-two spare propellers');
    expect(await askQuestion(app.page, 'café march')).toContain('Le café du marché');
    expect(await askQuestion(app.page, 'bicycle shelter')).toContain('approved the new bicycle shelter');

    // One button clears the six failure messages; the indexed documents stay.
    await app.page.getByRole('button', { name: 'Clear 6 failed files' }).click();
    await app.page.waitForFunction(() => ![...document.querySelectorAll('ul[aria-label="Library"] .status')].some((s) => s.textContent !== 'Indexed'));
    expect((await libraryStatus(app.page)).map((r) => r.name).sort()).toEqual(['big.txt', 'latin1.txt', 'report.pdf', 'תקציר.txt', ...minutes].sort());
  });
  // Storage full is tested in tests/browser/storage-full.test.ts (CDP Storage.overrideQuotaForOrigin works
  // when set before the origin's first write and with its session kept attached; see there) and in
  // tests/unit/quota.test.ts.
});
