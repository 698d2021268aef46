// The scan languages: checking a language file before it is kept (names, damaged and legacy-only files,
// compression bombs), the store (order, replace, remove, read), the setting served to the page (download
// only from the app's site, refusals in words), the engine's order, and the engine pool starting a new
// engine when the languages change.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { closeKeptOcrEngines, leaseOcrEngine } from '../../src/ingest/ocr/engine-pool.ts';
import { dropOcrLanguage, keepOcrLanguage, listOcrLanguages, readOcrLanguages, cachedOcrLanguages } from '../../src/ingest/ocr/language-store.ts';
import { checkOcrLanguageFile, engineLanguages, traineddataComponents } from '../../src/ingest/ocr/ocr-languages.ts';
import type { OcrEngine } from '../../src/ingest/ocr/tesseract-engine.ts';
import { ocrLanguageSettings } from '../../src/library/ocr-language-settings.ts';
import { FakeCache } from '../support/fake-cache.ts';

const require = createRequire(import.meta.url);
/** A language's real model as its package ships it (gzipped, 4.0.0_best_int). */
const packaged = (code: string) => new Uint8Array(readFileSync(require.resolve(`@tesseract.js-data/${code}/4.0.0_best_int/${code}.traineddata.gz`)));

describe('a language file is checked before it is kept', () => {
  it('takes a real Tesseract model, gzipped or not, and names its language from the file name', async () => {
    expect(await checkOcrLanguageFile('fra.traineddata.gz', packaged('fra'))).toBe('fra');
    expect(await checkOcrLanguageFile('DEU.traineddata', gunzipSync(packaged('deu')))).toBe('deu');
    expect(traineddataComponents(gunzipSync(packaged('fra')))).toContain(17);
  });

  it('refuses other files with the reason', async () => {
    const fra = gunzipSync(packaged('fra'));
    await expect(checkOcrLanguageFile('french.pdf', fra)).rejects.toThrow(/french\.pdf: not a Tesseract language file: its name should be the language code/);
    await expect(checkOcrLanguageFile('osd.traineddata.gz', packaged('osd'))).rejects.toThrow(/detects orientation.*not a language/);
    // The orientation model under a language's name: only the legacy recogniser.
    await expect(checkOcrLanguageFile('xyz.traineddata.gz', packaged('osd'))).rejects.toThrow(/only the old \(legacy\) recogniser/);
    // Cut short: the table of contents points past the end.
    await expect(checkOcrLanguageFile('fra.traineddata', fra.subarray(0, 100_000))).rejects.toThrow(/table of contents is not whole/);
    await expect(checkOcrLanguageFile('fra.traineddata.gz', packaged('fra').subarray(0, 50_000))).rejects.toThrow(/not whole \(its compressed data ends early/);
    await expect(checkOcrLanguageFile('fra.traineddata', new TextEncoder().encode('<html>Not found</html>'))).rejects.toThrow(/not a Tesseract language file/);
  });

  it('refuses a compression bomb as soon as it unpacks past the limit, without holding it whole', async () => {
    const bomb = gzipSync(new Uint8Array(200 * 1024 * 1024)); // 200 MB of zeros in ~200 KB
    expect(bomb.byteLength).toBeLessThan(300_000);
    await expect(checkOcrLanguageFile('fra.traineddata.gz', bomb)).rejects.toThrow(/unpacks to more than 96 MB/);
  });
});

describe('the language store', () => {
  it('keeps languages in the order they were added; a language added again keeps its place; remove frees its bytes', async () => {
    const cache = new FakeCache();
    await keepOcrLanguage(cache, 'deu.traineddata.gz', packaged('deu'), 'origin', 1_000);
    await keepOcrLanguage(cache, 'fra.traineddata.gz', packaged('fra'), 'origin', 2_000);
    await keepOcrLanguage(cache, 'deu.traineddata', gunzipSync(packaged('deu')), 'deu.traineddata', 3_000);
    const listed = await listOcrLanguages(cache);
    expect(listed.map((l) => [l.code, l.addedAt, l.from])).toEqual([
      ['deu', 1_000, 'deu.traineddata'],
      ['fra', 2_000, 'origin'],
    ]);
    expect(listed[0]!.bytes).toBe(gunzipSync(packaged('deu')).byteLength);
    const read = await readOcrLanguages(cache);
    expect(read.map((l) => [l.code, l.data!.byteLength])).toEqual([
      ['deu', listed[0]!.bytes],
      ['fra', packaged('fra').byteLength],
    ]);
    expect(await dropOcrLanguage(cache, 'deu')).toBe(listed[0]!.bytes);
    expect(await dropOcrLanguage(cache, 'deu')).toBe(0);
    expect((await listOcrLanguages(cache)).map((l) => l.code)).toEqual(['fra']);
  });

  it('says the disk is full when the browser refuses to keep a language', async () => {
    const cache = new FakeCache();
    cache.failPutsAfter(0);
    await expect(keepOcrLanguage(cache, 'fra.traineddata.gz', packaged('fra'), 'origin')).rejects.toThrow(/the fra language could not be kept: storage full/);
    expect(await listOcrLanguages(cache)).toEqual([]);
  });

  it('gives the engine the added languages first and English last, whatever was added', () => {
    expect(engineLanguages([]).map((l) => l.code)).toEqual(['eng']);
    expect(engineLanguages([{ code: 'deu' }, { code: 'eng' }, { code: 'fra' }]).map((l) => l.code)).toEqual(['deu', 'fra', 'eng']);
  });
});

describe('the scan languages setting', () => {
  const site = 'https://app.example/ocr/lang/';
  const served = (urls: string[]) =>
    (async (url: string | URL | Request) => {
      urls.push(String(url));
      const code = /\/(\w+)\.traineddata\.gz$/.exec(String(url))?.[1];
      return code === 'fra' ? new Response(packaged('fra')) : new Response('missing', { status: 404 });
    }) as typeof fetch;

  it('downloads an offered language from the app site only when added, lists it, and removes it', async () => {
    const cache = new FakeCache();
    const urls: string[] = [];
    const settings = ocrLanguageSettings({ open: async () => cache, langPath: site, fetch: served(urls) });
    const before = await settings.list();
    expect(urls).toEqual([]);
    expect(before.readIn).toEqual(['English']);
    expect(before.languages.find((l) => l.code === 'fra')).toMatchObject({ name: 'French', source: 'offered', added: false, downloadBytes: packaged('fra').byteLength });
    expect(await settings.add('fra')).toMatchObject({ code: 'fra', name: 'French', added: true, keptBytes: packaged('fra').byteLength });
    expect(urls).toEqual([`${site}fra.traineddata.gz`]);
    await settings.importFile(new File([gunzipSync(packaged('deu'))], 'deu.traineddata'));
    const after = await settings.list();
    expect(after.readIn).toEqual(['French', 'German', 'English']);
    expect(after.languages.find((l) => l.code === 'deu')).toMatchObject({ source: 'offered', added: true, from: 'deu.traineddata' });
    expect(await settings.remove('fra')).toBe(packaged('fra').byteLength);
    expect((await settings.list()).readIn).toEqual(['German', 'English']);
  });

  it('lists a language imported from a file that is not offered under its code, and says why a download failed', async () => {
    const cache = new FakeCache();
    const settings = ocrLanguageSettings({ open: async () => cache, langPath: site, fetch: served([]) });
    await settings.importFile(new File([packaged('fra')], 'bre.traineddata.gz'));
    expect((await settings.list()).languages.at(-1)).toMatchObject({ code: 'bre', name: 'bre', source: 'imported', from: 'bre.traineddata.gz' });
    await expect(settings.add('deu')).rejects.toThrow(/German could not be downloaded \(the app's site answered 404\)/);
    await expect(settings.add('pol')).rejects.toThrow(/pol: not a language this app offers for download; import its Tesseract file instead/);
    const offline = ocrLanguageSettings({ open: async () => cache, langPath: site, fetch: (async () => Promise.reject(new TypeError('Failed to fetch'))) as typeof fetch });
    await expect(offline.add('fra')).rejects.toThrow(/French could not be downloaded: this device seems to be offline/);
    await expect(settings.importFile(new File([new Uint8Array(10)], 'notes.txt'))).rejects.toThrow(/notes\.txt: not a Tesseract language file/);
    expect((await settings.list()).readIn).toEqual(['bre', 'English']);
  });
});

describe('OCR engines and the languages', () => {
  afterEach(() => closeKeptOcrEngines());

  it('keeps an engine for the same languages, and starts one with the new languages when they change', async () => {
    const started: string[][] = [];
    let closed = 0;
    const start = async (languages: Array<{ code: string }>): Promise<OcrEngine> => {
      started.push(languages.map((l) => l.code));
      return { recognise: async () => ({ paragraphs: [], confidence: 0, width: 1, height: 1 }), close: async () => void closed++ };
    };
    const cache = new FakeCache();
    const source = cachedOcrLanguages(async () => cache);
    await (await leaseOcrEngine(start, source)).close();
    await (await leaseOcrEngine(start, source)).close();
    expect(started).toEqual([[]]);
    await keepOcrLanguage(cache, 'fra.traineddata.gz', packaged('fra'), 'origin');
    await (await leaseOcrEngine(start, source)).close();
    expect(started).toEqual([[], ['fra']]);
    // The engine for English alone is closed: it will not be used again.
    expect(closed).toBe(1);
    await (await leaseOcrEngine(start, source)).close();
    expect(started).toHaveLength(2);
    await dropOcrLanguage(cache, 'fra');
    await (await leaseOcrEngine(start, source)).close();
    expect(started).toEqual([[], ['fra'], []]);
    expect(closed).toBe(2);
  });
});
