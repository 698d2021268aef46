/**
 * Reads a ZIP file's central directory (the table at its end) without decompressing anything, so the
 * size a DOCX will expand to is known before mammoth inflates it. Handles ZIP64 sizes.
 */

export interface ZipEntryInfo {
  name: string;
  compressedSize: number;
  uncompressedSize: number;
}

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL_ENTRY = 0x02014b50;
/** The end record is 22 bytes plus a comment of at most 65,535. */
const EOCD_SEARCH = 22 + 0xffff;
/** The last bytes of a ZIP that hold its end record and, in ZIP64, the record and locator before it. */
export const ZIP_TAIL_BYTES = EOCD_SEARCH + 56 + 20;

function u64(view: DataView, at: number): number {
  return view.getUint32(at, true) + view.getUint32(at + 4, true) * 2 ** 32;
}

function findEndRecord(view: DataView): number {
  const stop = Math.max(0, view.byteLength - EOCD_SEARCH);
  for (let at = view.byteLength - 22; at >= stop; at--) {
    if (view.getUint32(at, true) === EOCD) return at;
  }
  return -1;
}

/** Where the central directory starts and how many entries it has (ZIP64 when the 32-bit fields overflow). */
function directoryBounds(view: DataView, eocd: number): { offset: number; count: number } {
  let count = view.getUint16(eocd + 10, true);
  let offset = view.getUint32(eocd + 16, true);
  const locator = eocd - 20;
  if ((count === 0xffff || offset === 0xffffffff) && locator >= 0 && view.getUint32(locator, true) === ZIP64_LOCATOR) {
    const record = u64(view, locator + 8);
    if (record + 56 <= view.byteLength && view.getUint32(record, true) === ZIP64_EOCD) {
      count = u64(view, record + 32);
      offset = u64(view, record + 48);
    }
  }
  return { offset, count };
}

/** ZIP64 extra field (id 1): the 64-bit values of whichever 32-bit fields are 0xFFFFFFFF, in order. */
function zip64Sizes(view: DataView, extra: number, extraEnd: number, sizes: { uncompressed: number; compressed: number }): void {
  for (let at = extra; at + 4 <= extraEnd; ) {
    const id = view.getUint16(at, true);
    const len = view.getUint16(at + 2, true);
    if (id === 1) {
      let field = at + 4;
      if (sizes.uncompressed === 0xffffffff && field + 8 <= extraEnd) {
        sizes.uncompressed = u64(view, field);
        field += 8;
      }
      if (sizes.compressed === 0xffffffff && field + 8 <= extraEnd) sizes.compressed = u64(view, field);
      return;
    }
    at += 4 + len;
  }
}

/**
 * The entries of a ZIP archive as its central directory declares them, or undefined when the bytes are
 * not a readable ZIP (the parser then reports the file as damaged). Declared sizes can lie; this is a cap
 * before decompression, not a guarantee (the parse watchdog is the backstop).
 */
export function readZipDirectory(bytes: Uint8Array): ZipEntryInfo[] | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.byteLength < 22) return undefined;
  const eocd = findEndRecord(view);
  if (eocd < 0) return undefined;
  const { offset, count } = directoryBounds(view, eocd);
  const decoder = new TextDecoder();
  const entries: ZipEntryInfo[] = [];
  let at = offset;
  for (let i = 0; i < count; i++) {
    if (at + 46 > view.byteLength || view.getUint32(at, true) !== CENTRAL_ENTRY) return undefined;
    const sizes = { compressed: view.getUint32(at + 20, true), uncompressed: view.getUint32(at + 24, true) };
    const nameLen = view.getUint16(at + 28, true);
    const extraLen = view.getUint16(at + 30, true);
    const commentLen = view.getUint16(at + 32, true);
    const name = decoder.decode(bytes.subarray(at + 46, at + 46 + nameLen));
    zip64Sizes(view, at + 46 + nameLen, Math.min(view.byteLength, at + 46 + nameLen + extraLen), sizes);
    entries.push({ name, compressedSize: sizes.compressed, uncompressedSize: sizes.uncompressed });
    at += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

/**
 * How many entries a ZIP declares, read from its last bytes only (`tail`, which starts at `tailStart` in
 * the file): enough to refuse an archive of a million entries before its directory is read. Undefined
 * when the tail holds no end record (not a ZIP, or cut short).
 */
export function zipEntryCount(tail: Uint8Array, tailStart: number): number | undefined {
  const view = new DataView(tail.buffer, tail.byteOffset, tail.byteLength);
  if (view.byteLength < 22) return undefined;
  const eocd = findEndRecord(view);
  if (eocd < 0) return undefined;
  const count = view.getUint16(eocd + 10, true);
  const locator = eocd - 20;
  if (count !== 0xffff || locator < 0 || view.getUint32(locator, true) !== ZIP64_LOCATOR) return count;
  const record = u64(view, locator + 8) - tailStart;
  if (record < 0 || record + 56 > view.byteLength || view.getUint32(record, true) !== ZIP64_EOCD) return undefined;
  return u64(view, record + 32);
}
