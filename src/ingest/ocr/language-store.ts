/**
 * The OCR languages the person added, kept for offline use in a cache of their own
 * ({@link OCR_LANGUAGE_CACHE_NAME}), one entry per language, keyed by its code under a reserved domain.
 * The page writes it (download on consent, or import); the parse worker reads it when it starts an OCR
 * engine, so a language added or removed applies to the next file read. An entry is written only whole and
 * checked ({@link checkOcrLanguageFile}). Pure: the cache is passed in (the browser's `Cache`, or a
 * Map-backed fake in unit tests).
 */
import { DocQaError, isQuotaError, STORAGE_FULL_MESSAGE } from '../../core/errors.ts';
import type { CacheLike } from '../../models/model-cache.ts';
import { checkOcrLanguageFile, type OcrLanguage } from './ocr-languages.ts';

/** `caches.open(OCR_LANGUAGE_CACHE_NAME)`; the suffix is the key scheme's version. */
export const OCR_LANGUAGE_CACHE_NAME = 'docqa-ocr-languages-v1';

const KEY_ORIGIN = 'https://ocr-languages.invalid/';
const BYTES_HEADER = 'x-docqa-bytes';
const ADDED_HEADER = 'x-docqa-added';
const FROM_HEADER = 'x-docqa-from';

/** A language in the store. */
export interface StoredOcrLanguage {
  code: string;
  bytes: number;
  /** When it was added (ms since the epoch): the engine's order. */
  addedAt: number;
  /** `origin` (downloaded from the app's site) or the imported file's name. */
  from: string;
}

const keyOf = (code: string) => `${KEY_ORIGIN}${code}.traineddata`;
const codeOf = (url: string) => (url.startsWith(KEY_ORIGIN) && url.endsWith('.traineddata') ? url.slice(KEY_ORIGIN.length, -'.traineddata'.length) : undefined);

/** The languages kept, in the order they were added. */
export async function listOcrLanguages(cache: CacheLike): Promise<StoredOcrLanguage[]> {
  const found: StoredOcrLanguage[] = [];
  for (const request of await cache.keys()) {
    const code = codeOf(request.url);
    const response = code && (await cache.match(request.url));
    if (!code || !response) continue;
    const h = response.headers;
    found.push({ code, bytes: Number(h.get(BYTES_HEADER) ?? 0), addedAt: Number(h.get(ADDED_HEADER) ?? 0), from: h.get(FROM_HEADER) ?? 'origin' });
  }
  return found.sort((a, b) => a.addedAt - b.addedAt || a.code.localeCompare(b.code));
}

/**
 * Checks a language file and keeps it (replacing an earlier copy of the same language, which keeps its place
 * in the order). `name` is the file's name (`fra.traineddata.gz`); returns the language kept.
 */
export async function keepOcrLanguage(cache: CacheLike, name: string, bytes: Uint8Array, from: string, now = Date.now()): Promise<StoredOcrLanguage> {
  const code = await checkOcrLanguageFile(name, bytes);
  const earlier = (await listOcrLanguages(cache)).find((l) => l.code === code);
  const stored: StoredOcrLanguage = { code, bytes: bytes.byteLength, addedAt: earlier?.addedAt ?? now, from };
  const headers = new Headers({ [BYTES_HEADER]: String(stored.bytes), [ADDED_HEADER]: String(stored.addedAt), [FROM_HEADER]: from, 'content-type': 'application/octet-stream' });
  try {
    await cache.put(keyOf(code), new Response(bytes as BodyInit, { status: 200, headers }));
  } catch (err) {
    if (isQuotaError(err)) throw new DocQaError('storage-full', `the ${code} language could not be kept: ${STORAGE_FULL_MESSAGE}`);
    throw err;
  }
  return stored;
}

/** Removes a language; returns the bytes freed (0 when it was not kept). */
export async function dropOcrLanguage(cache: CacheLike, code: string): Promise<number> {
  const kept = (await listOcrLanguages(cache)).find((l) => l.code === code);
  return kept && (await cache.delete(keyOf(code))) ? kept.bytes : 0;
}

/** The kept languages with their bytes, in the order they were added: what the engine is started with. */
export async function readOcrLanguages(cache: CacheLike): Promise<OcrLanguage[]> {
  const languages: OcrLanguage[] = [];
  for (const { code } of await listOcrLanguages(cache)) {
    const response = await cache.match(keyOf(code));
    if (response) languages.push({ code, data: new Uint8Array(await response.arrayBuffer()) });
  }
  return languages;
}

/** Which languages OCR reads in now; the engine pool asks at each file. */
export interface OcrLanguageSource {
  /** Names the current set, without reading any model's bytes (engines are kept per key). */
  key(): Promise<string>;
  /** The set's languages with their bytes, in order. */
  read(): Promise<OcrLanguage[]>;
}

/** A fixed set (Node tools and tests; `[]`: English alone). */
export function fixedOcrLanguages(languages: readonly OcrLanguage[]): OcrLanguageSource {
  return { key: async () => languages.map((l) => l.code).join('+'), read: async () => [...languages] };
}

/** The languages kept in `open()`'s cache. */
export function cachedOcrLanguages(open: () => Promise<CacheLike>): OcrLanguageSource {
  return {
    key: async () => (await listOcrLanguages(await open())).map((l) => `${l.code}:${l.bytes}:${l.addedAt}`).join('+'),
    read: async () => readOcrLanguages(await open()),
  };
}

/** The codes of the languages the person added in this browser, in the order added; none in Node (no Cache API). */
export async function addedOcrLanguageCodes(): Promise<string[]> {
  if (typeof caches === 'undefined') return [];
  return (await listOcrLanguages(await caches.open(OCR_LANGUAGE_CACHE_NAME))).map((l) => l.code);
}

/** The languages the person added in this browser; in Node (no Cache API), English alone. */
export function installedOcrLanguages(): OcrLanguageSource {
  return typeof caches === 'undefined' ? fixedOcrLanguages([]) : cachedOcrLanguages(() => caches.open(OCR_LANGUAGE_CACHE_NAME));
}
