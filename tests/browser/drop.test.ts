import { describe, expect, it } from 'vitest';
import { useApp } from '../support/browser.ts';
import { askQuestion, libraryStatus, waitForIndexed } from '../support/app-page.ts';

describe('drag and drop, and the keyboard', () => {
  const app = useApp();

  it('indexes files dropped on the drop zone', async () => {
    const transfer = await app.page.evaluateHandle(() => {
      const dt = new DataTransfer();
      dt.items.add(new File(['# Boat\n\n## Engine\n\nChange the engine oil every hundred hours.\n'], 'boat.md', { type: 'text/markdown' }));
      dt.items.add(new File(['<h1>Sails</h1><p>Rinse the sails with fresh water after sailing.</p>'], 'sails.html', { type: 'text/html' }));
      return dt;
    });
    await app.page.dispatchEvent('[aria-label="Drop documents here"]', 'drop', { dataTransfer: transfer });
    await waitForIndexed(app.page, 2);
    expect((await libraryStatus(app.page)).map((r) => r.name).sort()).toEqual(['boat.md', 'sails.html']);
  });

  it('works from the keyboard: ask, follow a citation, close the source', async () => {
    await app.page.getByLabel('Ask a question').focus();
    await app.page.keyboard.type('How often to change the engine oil?');
    await app.page.keyboard.press('Enter');
    await app.page.getByRole('region', { name: 'Answer' }).getByRole('link', { name: '[1]' }).waitFor();
    // Tab from the question box reaches the first citation link.
    await app.page.getByLabel('Ask a question').focus();
    let focused = '';
    for (let i = 0; i < 10 && focused !== '[1]'; i++) {
      await app.page.keyboard.press('Tab');
      focused = await app.page.evaluate(() => document.activeElement?.textContent ?? '');
    }
    expect(focused).toBe('[1]');
    await app.page.keyboard.press('Enter');
    const dialog = app.page.getByRole('dialog', { name: 'Source' });
    await dialog.waitFor();
    await expect(dialog.locator('mark').textContent()).resolves.toContain('Change the engine oil every hundred hours.');
    await expect(dialog.textContent()).resolves.toContain('Boat › Engine');
    await app.page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect(await askQuestion(app.page, 'rinse sails')).toContain('fresh water');
  });

  it('shows a visible focus ring on keyboard focus', async () => {
    await app.page.getByLabel('Ask a question').focus();
    await app.page.keyboard.press('Tab');
    const outline = await app.page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
    expect(outline).not.toBe('none');
  });

  it('has enough contrast for every piece of text (WCAG AA 4.5:1)', async () => {
    const low = await app.page.evaluate(() => {
      const parse = (c: string) => (c.match(/[\d.]+/g) ?? []).map(Number);
      const lum = ([r, g, b]: number[]) => {
        const f = (v: number) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
        return 0.2126 * f(r!) + 0.7152 * f(g!) + 0.0722 * f(b!);
      };
      const background = (el: Element | null): number[] => {
        for (; el; el = el.parentElement) {
          const c = parse(getComputedStyle(el).backgroundColor);
          if (c.length === 3 || (c.length === 4 && c[3]! > 0.5)) return c.slice(0, 3);
        }
        return [255, 255, 255];
      };
      const out: string[] = [];
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const el = node.parentElement;
        if (!el || !node.textContent?.trim() || !el.checkVisibility()) continue;
        const fg = parse(getComputedStyle(el).color).slice(0, 3);
        const [a, b] = [lum(fg), lum(background(el))].sort((x, y) => y - x);
        const ratio = (a! + 0.05) / (b! + 0.05);
        if (ratio < 4.5) out.push(`${ratio.toFixed(2)} ${el.tagName} "${node.textContent.trim().slice(0, 30)}"`);
      }
      return out;
    });
    expect(low).toEqual([]);
  });
});
