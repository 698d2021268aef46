/**
 * The scan languages setting, served to the page: the languages OCR reads in besides English, kept in the
 * language store (`ingest/ocr/language-store.ts`), which the parse worker reads at each file. A language is
 * downloaded only when the person adds it, and only from the app's own site; a file the person imports is
 * checked before anything is kept. Shared by every library and tab (one store per browser profile).
 */
import type { OcrLanguageEntry, OcrLanguagesApi, OcrLanguagesView } from '../core/library-api.ts';
import { DocQaError } from '../core/errors.ts';
import type { CacheLike } from '../models/model-cache.ts';
import { dropOcrLanguage, keepOcrLanguage, listOcrLanguages, type StoredOcrLanguage } from '../ingest/ocr/language-store.ts';
import { BUILT_IN_OCR_LANGUAGE, engineLanguages, ocrLanguageName, OFFERED_OCR_LANGUAGES } from '../ingest/ocr/ocr-languages.ts';

export interface OcrLanguageSettingsOptions {
  /** The language store (the browser's `caches.open(OCR_LANGUAGE_CACHE_NAME)`). */
  open: () => Promise<CacheLike>;
  /** Folder URL of the offered languages' files on the app's site (`locateOcrAssets().langPath`). */
  langPath: string;
  fetch?: typeof fetch;
}

const entryOf = (kept: StoredOcrLanguage): OcrLanguageEntry => {
  const offered = OFFERED_OCR_LANGUAGES.find((o) => o.code === kept.code);
  return {
    code: kept.code,
    name: ocrLanguageName(kept.code),
    source: offered ? 'offered' : 'imported',
    added: true,
    keptBytes: kept.bytes,
    ...(offered && { downloadBytes: offered.bytes }),
    ...(kept.from !== 'origin' && { from: kept.from }),
  };
};

export function ocrLanguageSettings({ open, langPath, fetch: get = fetch }: OcrLanguageSettingsOptions): OcrLanguagesApi {
  return {
    async list(): Promise<OcrLanguagesView> {
      const kept = await listOcrLanguages(await open());
      const byCode = new Map(kept.map((k) => [k.code, k]));
      const languages: OcrLanguageEntry[] = [
        { code: BUILT_IN_OCR_LANGUAGE.code, name: BUILT_IN_OCR_LANGUAGE.name, source: 'built-in', added: true, keptBytes: 0 },
        ...OFFERED_OCR_LANGUAGES.map((o): OcrLanguageEntry => {
          const k = byCode.get(o.code);
          return k ? entryOf(k) : { code: o.code, name: o.name, source: 'offered', added: false, keptBytes: 0, downloadBytes: o.bytes };
        }),
        ...kept.filter((k) => !OFFERED_OCR_LANGUAGES.some((o) => o.code === k.code)).map(entryOf),
      ];
      return { languages, readIn: engineLanguages(kept).map((l) => ocrLanguageName(l.code)) };
    },

    async add(code) {
      const offered = OFFERED_OCR_LANGUAGES.find((o) => o.code === code);
      if (!offered) throw new DocQaError('ocr-language-refused', `${code}: not a language this app offers for download; import its Tesseract file instead`);
      const url = `${langPath}${code}.traineddata.gz`;
      let response: Response;
      try {
        response = await get(url, { cache: 'no-store' });
      } catch {
        throw new DocQaError('model-download-failed', `${offered.name} could not be downloaded: this device seems to be offline; try again once it is connected`);
      }
      if (!response.ok) throw new DocQaError('model-download-failed', `${offered.name} could not be downloaded (the app's site answered ${response.status}); try again later`);
      const bytes = new Uint8Array(await response.arrayBuffer());
      return entryOf(await keepOcrLanguage(await open(), `${code}.traineddata.gz`, bytes, 'origin'));
    },

    async importFile(file) {
      return entryOf(await keepOcrLanguage(await open(), file.name, new Uint8Array(await file.arrayBuffer()), file.name));
    },

    async remove(code) {
      return dropOcrLanguage(await open(), code);
    },
  };
}
