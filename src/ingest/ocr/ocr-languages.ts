/**
 * The languages scanned pages can be read in. English ships with the app (precached, read offline from the
 * first visit). The others are offered in a setting and fetched only when the person chooses one, from the
 * app's own origin (`<base>ocr/lang/`, emitted by the build from the `@tesseract.js-data/<code>` packages and
 * never precached), or imported from a Tesseract language file the person has (any of Tesseract's 100+
 * languages: `<code>.traineddata`, gzipped or not).
 *
 * Order matters to Tesseract: the first language reads every word; the others are tried on words the first
 * reads poorly. Measured on real French, German and Spanish man-page text and English SciFact abstracts
 * (decision 0032): with English first, German text kept only 13 of 27 umlauts (CER 1.2 %), while with the
 * added languages first and English last every text read at CER ≤ 0.63 % and English lost nothing (0.03 %
 * → 0.04 %). So the engine reads in the added languages, in the order they were added, then English.
 * Pure: shared by the parse worker, the page and Node tools.
 */
import { concatBytes } from '../../core/bytes.ts';
import { DocQaError } from '../../core/errors.ts';

/** A language offered in the setting: Tesseract's code, its name, and the download's size. */
export interface OfferedOcrLanguage {
  code: string;
  name: string;
  /** Size of `<code>.traineddata.gz` (4.0.0_best_int), as the setting shows it before download. */
  bytes: number;
}

/** The language that ships with the app. */
export const BUILT_IN_OCR_LANGUAGE: OfferedOcrLanguage = { code: 'eng', name: 'English', bytes: 2_952_873 };

/**
 * Offered for download from the app's origin: the languages of the `@tesseract.js-data` packages the app
 * depends on (`tools/ocr-assets.ts` emits them). Others are imported from a file.
 */
export const OFFERED_OCR_LANGUAGES: readonly OfferedOcrLanguage[] = [
  { code: 'fra', name: 'French', bytes: 707_406 },
  { code: 'deu', name: 'German', bytes: 1_333_102 },
  { code: 'spa', name: 'Spanish', bytes: 2_100_190 },
  { code: 'ita', name: 'Italian', bytes: 1_660_998 },
  { code: 'por', name: 'Portuguese', bytes: 1_392_239 },
  { code: 'nld', name: 'Dutch', bytes: 3_005_696 },
];

/** A language the engine reads in: its code, and its model's bytes where they come from the store. */
export interface OcrLanguage {
  code: string;
  /** `<code>.traineddata`, gzipped or not. Absent: the engine's `langPath` folder has it. */
  data?: Uint8Array;
}

/** The name a person sees for a language code (the code itself for an imported language not offered). */
export function ocrLanguageName(code: string): string {
  return [BUILT_IN_OCR_LANGUAGE, ...OFFERED_OCR_LANGUAGES].find((l) => l.code === code)?.name ?? code;
}

/**
 * The engine's languages, in Tesseract's order: the added ones as given (the order they were added),
 * then English. English is never left out: it ships with the app, and costs nothing on pages it does not read.
 */
export function engineLanguages(added: readonly OcrLanguage[]): OcrLanguage[] {
  return [...added.filter((l) => l.code !== BUILT_IN_OCR_LANGUAGE.code), { code: BUILT_IN_OCR_LANGUAGE.code }];
}

/** Tesseract's language codes: `fra`, `chi_sim`, `deu_latf`, `script/Latin` is not one (scripts are not offered). */
const CODE = /^[a-z]{3}(?:_[a-z]{2,8})?$/;
/** An imported file's name: `<code>.traineddata` or `<code>.traineddata.gz`. */
const FILE_NAME = /^([a-z]{3}(?:_[a-z]{2,8})?)\.traineddata(\.gz)?$/i;

/** Largest language model accepted, unpacked (Tesseract's biggest, `chi_tra` with its legacy model, is ~60 MB). */
export const MAX_LANGUAGE_BYTES = 96 * 1024 * 1024;

/** Tesseract's component holding the LSTM recogniser (`TESSDATA_LSTM`), the one the app's engine runs. */
const LSTM_COMPONENT = 17;

const refuse = (name: string, why: string) => new DocQaError('ocr-language-refused', `${name}: ${why}`);

/** True for a valid language code. */
export function isOcrLanguageCode(code: string): boolean {
  return CODE.test(code);
}

/**
 * The language code a chosen file is for, checked before it is kept: its name (`<code>.traineddata[.gz]`),
 * that it unpacks within {@link MAX_LANGUAGE_BYTES}, that its table of components is whole, and that it
 * holds the LSTM recogniser (Tesseract 4+ "best" or "fast" data; legacy-only files cannot be read by the
 * app's engine). Refusals say what is wrong.
 */
export async function checkOcrLanguageFile(name: string, bytes: Uint8Array): Promise<string> {
  const match = FILE_NAME.exec(name);
  if (!match) throw refuse(name, 'not a Tesseract language file: its name should be the language code and .traineddata, like fra.traineddata');
  const code = match[1]!.toLowerCase();
  if (code === 'osd' || code === 'equ') throw refuse(name, 'this file detects orientation or equations; it is not a language');
  const data = isGzip(bytes) ? await gunzipWithin(bytes, MAX_LANGUAGE_BYTES, name) : bytes;
  if (data.byteLength > MAX_LANGUAGE_BYTES) throw refuse(name, `larger than ${MAX_LANGUAGE_BYTES / 1024 / 1024} MB: not a language file this app can read`);
  const components = traineddataComponents(data);
  if (!components) throw refuse(name, 'not a Tesseract language file (its table of contents is not whole): the file may be damaged or of another kind');
  if (!components.includes(LSTM_COMPONENT)) throw refuse(name, 'this language file has only the old (legacy) recogniser; use a Tesseract 4 or later file from tessdata_best or tessdata_fast');
  return code;
}

/** gzip's magic bytes. */
export function isGzip(bytes: Uint8Array): boolean {
  return bytes.length > 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

/** Unpacks a gzip stream, refusing it as soon as it passes `limit` bytes (a compression bomb is never held whole). */
async function gunzipWithin(bytes: Uint8Array, limit: number, name: string): Promise<Uint8Array> {
  const reader = new Blob([bytes as BlobPart]).stream().pipeThrough(new DecompressionStream('gzip')).getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > limit) {
        await reader.cancel();
        throw refuse(name, `unpacks to more than ${limit / 1024 / 1024} MB: not a language file this app can read`);
      }
      parts.push(value);
    }
  } catch (err) {
    if (err instanceof DocQaError) throw err;
    throw refuse(name, 'the file is not whole (its compressed data ends early or is damaged)');
  }
  return concatBytes(parts);
}

/**
 * The components present in a traineddata file (Tesseract's `TessdataManager` layout: an int32 count, then
 * that many int64 offsets, -1 for an absent component, each present one inside the file and in order), or
 * undefined when the table is not whole.
 */
export function traineddataComponents(data: Uint8Array): number[] | undefined {
  if (data.byteLength < 12) return undefined;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const count = view.getInt32(0, true);
  if (count < 1 || count > 64) return undefined;
  const tableEnd = 4 + 8 * count;
  if (tableEnd > data.byteLength) return undefined;
  const present: number[] = [];
  let last = tableEnd;
  for (let i = 0; i < count; i++) {
    const offset = Number(view.getBigInt64(4 + 8 * i, true));
    if (offset === -1) continue;
    if (offset < last || offset >= data.byteLength) return undefined;
    last = offset;
    present.push(i);
  }
  return present.length ? present : undefined;
}
