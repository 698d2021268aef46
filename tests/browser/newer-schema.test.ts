import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSession, removeProfile, serveApp, type Served } from '../support/browser.ts';

describe('a library saved by a newer version of the app', () => {
  let served: Served;
  let session: Awaited<ReturnType<typeof openSession>>;

  beforeAll(async () => {
    served = await serveApp();
    session = await openSession();
  });
  afterAll(async () => {
    await session?.close();
    await served?.close();
    await removeProfile(session.profileDir);
  });

  it('is refused with a message that says what to do, and is left untouched', async () => {
    const page = await session.newPage();
    // Same origin, before the app runs: create the database at a schema version this app does not know.
    await page.goto(new URL('/icon.svg', served.url).href);
    await page.evaluate(
      () =>
        new Promise<void>((resolve, reject) => {
          const req = indexedDB.open('docqa', 7);
          req.onupgradeneeded = () => req.result.createObjectStore('future');
          req.onsuccess = () => (req.result.close(), resolve());
          req.onerror = () => reject(req.error);
        }),
    );
    await page.goto(served.url);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    await expect(alert.textContent()).resolves.toContain('saved by a newer version of this app');
    const version = await page.evaluate(async () => (await indexedDB.databases()).find((d) => d.name === 'docqa')?.version);
    expect(version).toBe(7);
  });
});
