import { signal } from '@preact/signals';

/** Light or dark as the system asks (`prefers-color-scheme`), or as the person chose in Settings. */
export type Theme = 'system' | 'light' | 'dark';

export const THEME_LABELS: Record<Theme, string> = { system: 'As the system', light: 'Light', dark: 'Dark' };

const THEME_KEY = 'docqa.theme';

function storedTheme(): Theme {
  const stored = globalThis.localStorage?.getItem(THEME_KEY);
  return stored === 'light' || stored === 'dark' ? stored : 'system';
}

/** The theme chosen in this browser (default: as the system). */
export const theme = signal<Theme>(storedTheme());

/**
 * Puts the theme on `<html data-theme>`, which styles.css reads (`color-scheme`: every colour there is a
 * light-dark() pair); "system" removes it, so the browser follows `prefers-color-scheme`. Called before the
 * first render, so the page never shows in the other theme first.
 */
export function applyTheme(t: Theme = theme.value): void {
  if (t === 'system') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = t;
}

/** Chooses the theme, remembered in this browser. */
export function setTheme(t: Theme): void {
  theme.value = t;
  if (t === 'system') globalThis.localStorage?.removeItem(THEME_KEY);
  else globalThis.localStorage?.setItem(THEME_KEY, t);
  applyTheme(t);
}
