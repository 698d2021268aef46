// Semantic search in the app, end to end in Chromium: the model manager downloads a model from a
// self-hosted mirror (a test hub serving a generated random-weight model shaped like bge-small: 384
// dimensions, laid out as Xenova/bge-small-en-v1.5 on the hub), the library is embedded in the
// background with progress, answers show "Why this passage" with both ranks, a reload reuses the stored
// vectors and the cached model (no download, no embedding), it works offline, and Delete removes the
// model's files and vectors.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askQuestion, waitForIndexed } from '../support/app-page.ts';
import { openSession, removeProfile, serveApp, type Page, type Served } from '../support/browser.ts';
import { writeTree } from '../support/fixture-folder.ts';
import { startHubServer, type HubServer } from '../support/hub-server.ts';
import { generateTinyModel, TINY_SPEC, writeTinyModels } from '../../tools/models/tiny-models.ts';

const REPO = 'Xenova/bge-small-en-v1.5';
const LABEL = 'BGE small (English)';
const RERANK_REPO = 'Xenova/ms-marco-MiniLM-L-6-v2';
const RERANKER = 'MS MARCO MiniLM-L6 reranker (English)';

/** The tiny cross-encoder, laid out as the catalogue's reranker downloads it (q8 file name). */
function rerankerModel(): Map<string, Uint8Array> {
  const files = generateTinyModel('tiny-cross-encoder');
  const weights = files.get('onnx/model.onnx')!;
  return new Map([...files].filter(([p]) => p !== 'onnx/model.onnx').concat([['onnx/model_quantized.onnx', weights]]));
}

/** The tiny encoder at bge-small's width (384), one layer: the files the catalogue entry downloads. */
function bgeShapedModel(): Map<string, Uint8Array> {
  const files = generateTinyModel('tiny-encoder', { ...TINY_SPEC, hidden: 384, layers: 1, heads: 4, intermediate: 64 });
  const weights = files.get('onnx/model.onnx')!;
  return new Map([...files].filter(([p]) => p !== 'onnx/model.onnx').concat([['onnx/model_quantized.onnx', weights]]));
}

describe('semantic search with a downloaded model', () => {
  let hub: HubServer;
  let served: Served;
  let session: Awaited<ReturnType<typeof openSession>>;
  let page: Page;
  const statusLines: string[] = [];

  beforeAll(async () => {
    hub = await startHubServer(new Map([
      [REPO, bgeShapedModel()],
      [RERANK_REPO, rerankerModel()],
    ]));
    served = await serveApp(0, { mirror: hub.url });
    session = await openSession();
    page = await session.newPage();
    await page.goto(served.url);
  });
  afterAll(async () => {
    await session?.close();
    await served?.close().catch(() => undefined);
    await hub?.close();
    await removeProfile(session.profileDir);
  });

  const status = () => page.locator('.semantic-status > span').textContent();
  /** Records every text the status line shows from now on (progress lines are brief). */
  async function recordStatus(): Promise<void> {
    statusLines.length = 0;
    await page.exposeFunction('__statusLine', (text: string) => statusLines.push(text)).catch(() => undefined);
    await page.evaluate(() => {
      const line = document.querySelector('.semantic-status');
      const report = () => (window as unknown as { __statusLine(t: string): void }).__statusLine(line?.querySelector('span')?.textContent ?? '');
      report();
      new MutationObserver(report).observe(line!, { subtree: true, childList: true, characterData: true });
    });
  }

  it('works on keywords alone until a model is chosen, and downloads nothing meanwhile', async () => {
    await page.getByLabel('Add a folder').setInputFiles(
      await writeTree({
        'lease.md': '# Lease\n\n## Payment\n\nThe tenant pays the rent of 950 euros on the first day of each month.\n\n## Repairs\n\nThe landlord repairs the heating within ten days of a written notice.\n',
        'loan.md': '# Loan\n\n## Instalments\n\nThe borrower repays 12000 euros in twenty-four monthly instalments.\n',
        // Enough chunks for several embedding batches (8 chunks each), so progress shows.
        'handbook.md': `# Handbook\n\n${Array.from({ length: 40 }, (_, i) => `## Rule ${i}\n\n${`Rule ${i} of the handbook covers topic ${i} in detail for every member of staff. `.repeat(14)}`).join('\n\n')}\n`,
      }),
    );
    await waitForIndexed(page, 3);
    expect(await status()).toBe('Keyword search only: semantic search (finding passages by meaning) is not set up.');
    await askQuestion(page, 'When is the rent paid?');
    await page.getByRole('button', { name: 'Why this passage' }).first().click();
    expect(await page.locator('.why-ranks').first().textContent()).toMatch(/^ ?BM25 #1 · RRF 0\.\d{4}$/);
    expect(hub.requestCount()).toBe(0);
  });

  it('refuses a mirror on another site, with what to do instead', async () => {
    await page.getByRole('button', { name: 'Set up semantic search' }).click();
    const dialog = page.getByRole('dialog', { name: 'Semantic search models' });
    await dialog.getByLabel('Model mirror address').fill('https://models.example.org/');
    await dialog.getByRole('button', { name: 'Save address' }).click();
    await expect.poll(() => dialog.locator('.models-note').textContent()).toMatch(/only be downloaded from huggingface\.co or from this app's own site .*import the model folder instead/);
  });

  it('downloads the chosen model from the mirror, embeds the library in the background, and answers with both ranks', async () => {
    const dialog = page.getByRole('dialog', { name: 'Semantic search models' });
    await dialog.getByLabel('Model mirror address').fill(`${served.url}hub-mirror/`);
    await dialog.getByRole('button', { name: 'Save address' }).click();
    await expect.poll(() => dialog.locator('.models-note').textContent()).toContain('Models will be downloaded from');
    await recordStatus();
    await dialog.getByRole('button', { name: `Download and use ${LABEL}` }).click();
    await expect.poll(status, { timeout: 60_000 }).toMatch(/^Semantic search on \(BGE small \(English\)\): \d+ passages\. Runs on the processor.*\.$/);
    expect(hub.requestCount(REPO)).toBeGreaterThan(0);
    expect(statusLines.some((l) => l.startsWith('Loading BGE small (English)') || l.startsWith('Downloading BGE small (English)'))).toBe(true);
    // Embedding progress: passages done of all, the document in progress.
    expect(statusLines.filter((l) => /^Preparing semantic search: \d+ of \d+ passages \(now docs\/\w+\.md\)/.test(l)).length).toBeGreaterThan(0);
    // The model's row now says its files are kept, and how many passages it prepared.
    await expect.poll(() => dialog.locator('.model').first().textContent()).toMatch(/kept in this browser.*passages prepared/);
    await dialog.getByRole('button', { name: 'Close' }).click();

    await askQuestion(page, 'When is the rent paid?');
    await page.getByRole('button', { name: 'Why this passage' }).first().click();
    expect(await page.locator('.why-ranks').first().textContent()).toMatch(/BM25 #\d+ · Dense #\d+ · RRF 0\.\d{4}$/);
    // In words first; the figures behind "Scores".
    expect(await page.locator('.why-words').first().textContent()).toMatch(/^matches your words: \d+(st|nd|rd|th) · similar meaning: \d+(st|nd|rd|th)$/);
  });

  it('after a reload, uses the cached model and the stored vectors: nothing downloaded, nothing embedded again', async () => {
    hub.resetCounts();
    await page.reload();
    await waitForIndexed(page, 3);
    await recordStatus();
    await expect.poll(status, { timeout: 60_000 }).toMatch(/^Semantic search on/);
    expect(hub.requestCount()).toBe(0);
    expect(statusLines.filter((l) => l.startsWith('Preparing semantic search'))).toEqual([]);
    await askQuestion(page, 'How is the loan repaid?');
    await page.getByRole('button', { name: 'Why this passage' }).first().click();
    expect(await page.locator('.why-ranks').first().textContent()).toContain('Dense #');
  });

  it('works offline: the model loads from this browser and questions use both retrievers', async () => {
    // The app itself comes from the service worker's precache, once it controls the page.
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 30_000 });
    await hub.stop();
    await session.context.setOffline(true);
    await page.reload();
    await waitForIndexed(page, 3);
    await expect.poll(status, { timeout: 60_000 }).toMatch(/^Semantic search on/);
    await askQuestion(page, 'When does the landlord repair the heating?');
    await page.getByRole('button', { name: 'Why this passage' }).first().click();
    expect(await page.locator('.why-ranks').first().textContent()).toContain('Dense #');
    await session.context.setOffline(false);
    await hub.start();
  });

  it('reranks with a chosen cross-encoder ("Rerank #n" in "Why this passage"), and stops', async () => {
    await page.getByRole('button', { name: 'Semantic search models' }).click();
    const dialog = page.getByRole('dialog', { name: 'Semantic search models' });
    await dialog.getByRole('button', { name: `Download and use ${RERANKER}` }).click();
    await expect.poll(status, { timeout: 60_000 }).toMatch(new RegExp(`^Semantic search on .* Reranked by ${RERANKER.replace(/[()]/g, '\\$&')}\\.$`));
    expect(hub.requestCount(RERANK_REPO)).toBeGreaterThan(0);
    await dialog.getByRole('button', { name: 'Close' }).click();
    await askQuestion(page, 'When is the rent paid?');
    await page.getByRole('button', { name: 'Why this passage' }).first().click();
    expect(await page.locator('.why-ranks').first().textContent()).toMatch(/BM25 (#\d+|–) · Dense #\d+ · RRF 0\.\d{4} · Rerank #\d+ \(-?\d+\.\d\d\)$/);

    await page.getByRole('button', { name: 'Semantic search models' }).click();
    await dialog.getByRole('button', { name: `Stop using ${RERANKER}` }).click();
    await expect.poll(status).not.toContain('Reranked by');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await askQuestion(page, 'When is the rent paid?');
    await page.getByRole('button', { name: 'Why this passage' }).first().click();
    expect(await page.locator('.why-ranks').first().textContent()).not.toContain('Rerank');
  });

  it('Delete removes the model files and vectors; search goes back to keywords only', async () => {
    await page.getByRole('button', { name: 'Semantic search models' }).click();
    const dialog = page.getByRole('dialog', { name: 'Semantic search models' });
    await dialog.getByRole('button', { name: `Delete ${LABEL}` }).click();
    await expect.poll(() => dialog.locator('.models-note').textContent()).toContain('its files and vectors were deleted');
    await expect.poll(() => dialog.locator('.model').first().textContent()).toMatch(/download about/);
    expect(await dialog.locator('.model').first().textContent()).not.toMatch(/passages prepared/);
    await dialog.getByRole('button', { name: 'Close' }).click();
    expect(await status()).toMatch(/^Keyword search only/);
    const vectors = await page.evaluate(
      () =>
        new Promise<number>((resolve, reject) => {
          const open = indexedDB.open('docqa');
          open.onsuccess = () => {
            const count = open.result.transaction('vectors').objectStore('vectors').count();
            count.onsuccess = () => resolve(count.result);
            count.onerror = () => reject(count.error);
          };
        }),
    );
    expect(vectors).toBe(0);
  });

  it('imports a model folder the person picks and uses it with no network at all', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'picked-model-'));
    await writeTinyModels(dir);
    hub.resetCounts();
    await hub.stop();
    try {
      await page.getByRole('button', { name: 'Set up semantic search' }).click();
      const dialog = page.getByRole('dialog', { name: 'Semantic search models' });
      await dialog.getByLabel('Import a model folder').setInputFiles(join(dir, 'tiny-encoder'));
      await expect.poll(() => dialog.locator('.models-note').textContent()).toBe('Imported imported:tiny-encoder: choose Use to turn it on');
      await dialog.getByRole('button', { name: 'Use tiny-encoder (imported)' }).click();
      await expect.poll(status, { timeout: 60_000 }).toMatch(/^Semantic search on \(tiny-encoder \(imported\)\): \d+ passages\./);
      await dialog.getByRole('button', { name: 'Close' }).click();
      await askQuestion(page, 'When is the rent paid?');
      await page.getByRole('button', { name: 'Why this passage' }).first().click();
      expect(await page.locator('.why-ranks').first().textContent()).toContain('Dense #');
      expect(hub.requestCount()).toBe(0);
    } finally {
      await hub.start();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
