import { signal } from '@preact/signals';
import { registerSW } from 'virtual:pwa-register';

/**
 * A new version of the app, and the person's choice of when to start it: its service worker installs and
 * waits (`ready`) until they choose "Reload to update", never reloading the page under them while they
 * read or type. The page they have keeps running on the version it started with, whose files stay cached
 * until the new one takes over, so it works on, also offline. When another tab starts the new version, this
 * page's files are no longer the ones served (`elsewhere`): it says so and offers the reload. See
 * docs/decisions/0024-offline-and-csp.md.
 */
export type AppUpdate = 'ready' | 'elsewhere';

export const appUpdate = signal<AppUpdate | undefined>(undefined);

/** How often a page left open looks for a new version (the browser looks only when a page is opened). */
const CHECK_EVERY_MS = 60 * 60 * 1000;

/** Set once the person asked for the new version in this page: its taking over reloads the page. */
let asked = false;

/** Registers the service worker (offline use) and watches for a new version of the app. */
export function startServiceWorker(): void {
  if (!('serviceWorker' in navigator)) return;
  // The first visit's worker taking control (the page had none) is no new version.
  let controlled = navigator.serviceWorker.controller !== null;
  navigator.serviceWorker.addEventListener('controllerchange', () => {
    if (asked) location.reload();
    else if (controlled) appUpdate.value = 'elsewhere';
    controlled = true;
  });
  registerSW({
    immediate: true,
    onNeedRefresh: () => (appUpdate.value ??= 'ready'),
    // The page is reloaded here, and only when the person asked (above); the plugin's own reload is not wanted.
    onNeedReload: () => undefined,
    onRegisteredSW: (_url, registration) => {
      // Offline, the check fails; the next one tries again.
      if (registration) setInterval(() => void registration.update().catch(() => undefined), CHECK_EVERY_MS);
    },
  });
}

/**
 * "Reload to update": the waiting version takes over and the page reloads once it has (every other open
 * page is told); when nothing waits (another tab started it already), the page reloads at once.
 */
export async function applyUpdate(): Promise<void> {
  const waiting = (await navigator.serviceWorker.getRegistration())?.waiting;
  if (!waiting) {
    location.reload();
    return;
  }
  asked = true;
  waiting.postMessage({ type: 'SKIP_WAITING' });
}
