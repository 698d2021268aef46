import { describe, expect, it } from 'vitest';
import { useApp } from '../support/browser.ts';
import { askQuestion, libraryStatus, waitForIndexed, waitForQueueEmpty } from '../support/app-page.ts';
import { writeTree } from '../support/fixture-folder.ts';
import { nestedDocx, nestedHtml, quoteBombMarkdown } from '../support/hostile-fixtures.ts';

/** A file either reads, or fails saying it is nested too deeply: never "unexpected error", never a dead tab. */
const INDEXED_OR_TOO_DEEP = (name: string) => new RegExp(`^(Indexed|${name.replace('.', '\\.')}: too deeply nested to read here)`);

describe('structure bombs: files nested thousands deep cost little, never the tab', () => {
  const app = useApp();

  it('reads a 3,000-level blockquote bomb and 100k nested HTML elements, refuses tables nested 3,000 deep by name, and indexes the ordinary file beside them', async () => {
    const page = app.page;
    const dir = await writeTree({
      // 4.5 MB; marked took 2.7 GB of memory on 2,000 such lines, and the tab died.
      'quote-bomb.md': quoteBombMarkdown(3000, { 2500: 'The kingfisher nests two thousand five hundred quotes deep.' }),
      'nest.html': nestedHtml('div', 100_000, 'The badger sleeps below a hundred thousand boxes.'),
      'tables.docx': await nestedDocx('tables', 3000),
      'ordinary.md': '# Otters\n\nThe otter sleeps in the reeds by the old mill.\n',
    });
    await page.getByLabel('Add documents').setInputFiles(['quote-bomb.md', 'nest.html', 'tables.docx', 'ordinary.md'].map((n) => `${dir}/${n}`));
    await page.waitForFunction(() => document.querySelectorAll('ul[aria-label="Library"] > li').length === 4);
    await waitForQueueEmpty(page, 110_000);

    const rows = Object.fromEntries((await libraryStatus(page)).map((r) => [r.name, r.status]));
    expect(rows).toMatchObject({
      'quote-bomb.md': expect.stringMatching(INDEXED_OR_TOO_DEEP('quote-bomb.md')),
      'nest.html': expect.stringMatching(INDEXED_OR_TOO_DEEP('nest.html')),
      'tables.docx': expect.stringMatching(/^tables\.docx: too deeply nested to read here \(tables nested 3,000 deep/),
      'ordinary.md': 'Indexed',
    });
    // The page is alive and answers; a bomb that was read has its deepest text searchable.
    expect(await askQuestion(page, 'where does the otter sleep')).toContain('The otter sleeps in the reeds');
    if (rows['quote-bomb.md'] === 'Indexed') expect(await askQuestion(page, 'where does the kingfisher nest')).toContain('kingfisher nests two thousand five hundred quotes deep');
    if (rows['nest.html'] === 'Indexed') expect(await askQuestion(page, 'where does the badger sleep')).toContain('The badger sleeps below a hundred thousand boxes');
    await waitForIndexed(page, Object.values(rows).filter((s) => s === 'Indexed').length);
  });
});
