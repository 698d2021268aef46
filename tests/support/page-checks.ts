/**
 * What a person on a phone would notice about the page as it stands: does anything scroll sideways, is a
 * dialog cut off, is any control too small to tap (WCAG 2.2 target size, 24 × 24 CSS px), and what axe-core
 * finds. Run inside the real page by Playwright; nothing here changes the page.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

export interface LayoutReport {
  /** The page's width past the viewport, in CSS px (0 when nothing scrolls sideways). */
  overflow: number;
  /** When it does: the innermost elements reaching past the viewport's right edge ("select.many 945"). */
  overflowing: string[];
  /** Open dialogs not wholly inside the viewport, or that scroll sideways themselves. */
  dialogsOutside: string[];
  /** Controls on show smaller than 24 × 24 CSS px: "button "Delete a.md" 60×22". */
  smallTargets: string[];
}

/** The smallest side a tap target may have (WCAG 2.2 success criterion 2.5.8, in CSS px). */
export const MIN_TARGET = 24;

export async function layoutReport(page: Page): Promise<LayoutReport> {
  return page.evaluate((min) => {
    const viewport = { width: document.documentElement.clientWidth, height: window.innerHeight };
    const shown = (el: Element) => {
      if (!el.getClientRects().length) return false;
      const style = getComputedStyle(el);
      if (style.visibility === 'hidden') return false;
      // Inside a modal dialog only the dialog counts: the page under it is inert.
      const modal = document.querySelector('dialog[open]');
      return !modal || modal.contains(el);
    };
    const nameOf = (el: Element) => {
      const label = el.getAttribute('aria-label') ?? (el as HTMLInputElement).labels?.[0]?.textContent ?? el.textContent ?? '';
      return `${el.tagName.toLowerCase()}${el.getAttribute('type') ? `[${el.getAttribute('type')}]` : ''} "${label.trim().replace(/\s+/g, ' ').slice(0, 60)}"`;
    };
    const controls = [...document.querySelectorAll('a[href], button, input:not([type="hidden"]), select, textarea, summary, [tabindex]:not([tabindex="-1"])')].filter(shown);
    const smallTargets: string[] = [];
    for (const el of controls) {
      // The skip link sits off screen until it is focused; it is measured when it shows.
      if (el.classList.contains('skip') && document.activeElement !== el) continue;
      const r = el.getBoundingClientRect();
      // A file input covered by its visible label (opacity 0) is as big as the label.
      if (r.width < min - 0.5 || r.height < min - 0.5) smallTargets.push(`${nameOf(el)} ${Math.round(r.width)}×${Math.round(r.height)}`);
    }
    const dialogsOutside = [...document.querySelectorAll('dialog[open]')].flatMap((d) => {
      const r = d.getBoundingClientRect();
      const inside = r.left >= -0.5 && r.top >= -0.5 && r.right <= viewport.width + 0.5 && r.bottom <= viewport.height + 0.5;
      const sideways = d.scrollWidth > d.clientWidth + 1;
      return inside && !sideways ? [] : [`${d.getAttribute('aria-label')}: ${Math.round(r.left)},${Math.round(r.top)} ${Math.round(r.width)}×${Math.round(r.height)}${sideways ? ` scrolls sideways (${d.scrollWidth} > ${d.clientWidth})` : ''}`];
    });
    const overflow = Math.max(0, document.documentElement.scrollWidth - viewport.width);
    const past = (el: Element) => el.getBoundingClientRect().right > viewport.width + 0.5 && getComputedStyle(el).position !== 'fixed';
    const overflowing = overflow
      ? [...document.body.querySelectorAll('*')]
          .filter((el) => past(el) && ![...el.children].some(past))
          .slice(0, 5)
          .map((el) => `${el.tagName.toLowerCase()}${el.className && typeof el.className === 'string' ? `.${el.className.split(' ').join('.')}` : ''} ${Math.round(el.getBoundingClientRect().right)}`)
      : [];
    return { overflow, overflowing, dialogsOutside, smallTargets };
  }, MIN_TARGET);
}

let axeSource: string | undefined;

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * axe-core's violations of the page as it stands (every rule axe runs by default: WCAG 2.0-2.2 A and AA and
 * its best practices). axe is evaluated through the DevTools protocol, which the page's CSP does not govern.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  axeSource ??= await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: Document, options: object): Promise<{ violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[]; failureSummary?: string }> }> }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map((n) => `${n.target.join(' ')}: ${n.failureSummary ?? ''}`) }));
  });
}
