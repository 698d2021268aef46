/**
 * Binary grey-scale PGM ("P5", 8 bits): the page image format of the OCR steps (`toPgm` writes it from RGBA;
 * Leptonica reads it without decoding). One reader and one writer for the steps that work on its pixels.
 */

/** A PGM's size and where its pixels start. */
export interface PgmHeader {
  width: number;
  height: number;
  /** Byte offset of the first pixel. */
  offset: number;
}

/** The header of `pgm`, or undefined when it is not a binary 8-bit PGM. */
export function readPgmHeader(pgm: Uint8Array): PgmHeader | undefined {
  const m = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(new TextDecoder('latin1').decode(pgm.subarray(0, 32)));
  return m ? { width: Number(m[1]), height: Number(m[2]), offset: m[0].length } : undefined;
}

/** The header of `pgm`; throws when it is not a binary 8-bit PGM. */
export function pgmHeader(pgm: Uint8Array): PgmHeader {
  const header = readPgmHeader(pgm);
  if (!header) throw new RangeError('not a binary 8-bit PGM image');
  return header;
}

/** A PGM of `width` × `height` with room for its pixels (zero until set), and the offset they start at. */
export function newPgm(width: number, height: number): { pgm: Uint8Array; offset: number } {
  const header = new TextEncoder().encode(`P5\n${width} ${height}\n255\n`);
  const pgm = new Uint8Array(header.length + width * height);
  pgm.set(header);
  return { pgm, offset: header.length };
}
