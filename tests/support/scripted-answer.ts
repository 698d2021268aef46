// The answer-writing model of a browser test: the scripted generator (src/models/setup/answer-setup.ts),
// chosen through the settings store as the answer-model chooser would, then the page reloaded so the
// library worker applies it.
import type { Page } from './browser.ts';

/** The scripted setting: replies in turn, JSON replies, the pace, the window, a gullible model … */
export interface ScriptedSetting {
  replies: string[];
  json?: string[];
  filters?: string[];
  delayMs?: number;
  contextTokens?: number;
  gullible?: boolean;
}

/**
 * Sets the answer-writing model to the scripted generator (settings key 'answer'), reloads the page, and
 * waits until the page says the model writes the answers: a question asked before that is answered by
 * quoting (no phrasings, hops or filters read by the model), as it would be for a person.
 */
export async function useScriptedGenerator(page: Page, setting: ScriptedSetting): Promise<void> {
  await page.evaluate(
    (generator) =>
      new Promise<void>((resolve, reject) => {
        const open = indexedDB.open('docqa');
        open.onsuccess = () => {
          const tx = open.result.transaction('settings', 'readwrite');
          tx.objectStore('settings').put({ generator }, 'answer');
          tx.oncomplete = () => (open.result.close(), resolve());
          tx.onerror = () => reject(tx.error);
        };
        open.onerror = () => reject(open.error);
      }),
    { kind: 'scripted', ...setting },
  );
  await page.reload();
  await page.waitForFunction(() => document.querySelector('.answer-notice > span')?.textContent?.startsWith('Answers are written by'), undefined, { timeout: 60_000 });
}

/** Waits for the Answer region to show an answer after the one numbered `seq` (its `data-seq`). */
export async function nextAnswer(page: Page, seq: string | null): Promise<void> {
  await page.waitForFunction((s) => document.querySelector('section[aria-label="Answer"]')?.getAttribute('data-seq') !== s, seq, { timeout: 30_000 });
}
