/**
 * A TIFF's (or EXIF's) Orientation tag (274): how the stored pixels are turned and mirrored against the page
 * as it is seen. A scanner or fax program that wrote the page sideways or mirrored says so in the tag, and a
 * viewer applies it before showing the page; so do OCR (before reading) and the Source dialog (before
 * drawing the cited words' boxes), so that both see the same page. Pure: shared by the parse worker, the
 * page, Node tools and tests.
 *
 * | tag | the stored row 0 is the page's | to show it |
 * | --- | --- | --- |
 * | 1 | top | as it is |
 * | 2 | top, mirrored | mirror left to right |
 * | 3 | bottom | turn 180° |
 * | 4 | bottom, mirrored | mirror, turn 180° |
 * | 5 | left side | mirror, turn 270° clockwise (a transpose) |
 * | 6 | right side | turn 90° clockwise |
 * | 7 | right side, mirrored | mirror, turn 90° clockwise |
 * | 8 | left side, unmirrored | turn 270° clockwise |
 */

/** How stored pixels become the page as seen: mirrored left to right first (when `mirror`), then turned clockwise. */
export interface Orientation {
  mirror: boolean;
  turn: 0 | 90 | 180 | 270;
}

const ORIENTATIONS: Record<number, Orientation> = {
  1: { mirror: false, turn: 0 },
  2: { mirror: true, turn: 0 },
  3: { mirror: false, turn: 180 },
  4: { mirror: true, turn: 180 },
  5: { mirror: true, turn: 270 },
  6: { mirror: false, turn: 90 },
  7: { mirror: true, turn: 90 },
  8: { mirror: false, turn: 270 },
};

/** The Orientation tag's meaning; a missing or unknown value (0, 9, a broken file's garbage) is read as 1, as viewers do. */
export function orientationOf(tag: number | undefined): Orientation {
  return ORIENTATIONS[tag ?? 1] ?? ORIENTATIONS[1]!;
}

/** A TIFF page's orientation, from its image directory as UTIF.js reads it (tag 274 as `t274: [6]`). */
export function tiffOrientation(ifd: { readonly [tag: string]: unknown }): Orientation {
  const tag = ifd['t274'] as ArrayLike<unknown> | undefined;
  return orientationOf(typeof tag?.[0] === 'number' ? tag[0] : undefined);
}

/**
 * The stored source pixel (column, row) shown at (x, y) of the page as seen, for a stored image of
 * `width` × `height`. The one mapping {@link orientPixels} and the OCR page turner share.
 */
export function sourceOf(x: number, y: number, width: number, height: number, { mirror, turn }: Orientation): [number, number] {
  const [sx, sy] = turn === 90 ? [y, height - 1 - x] : turn === 180 ? [width - 1 - x, height - 1 - y] : turn === 270 ? [width - 1 - y, x] : [x, y];
  return mirror ? [width - 1 - sx, sy] : [sx, sy];
}

/**
 * Pixels of `channels` bytes each (1: grey, 4: RGBA), row by row, as the page is seen under `orientation`.
 * The same array when there is nothing to do.
 */
export function orientPixels(
  pixels: Uint8Array,
  width: number,
  height: number,
  channels: number,
  orientation: Orientation,
): { pixels: Uint8Array; width: number; height: number } {
  if (!orientation.mirror && orientation.turn === 0) return { pixels, width, height };
  const quarter = orientation.turn === 90 || orientation.turn === 270;
  const [ow, oh] = quarter ? [height, width] : [width, height];
  const out = new Uint8Array(ow * oh * channels);
  for (let y = 0; y < oh; y++) {
    for (let x = 0; x < ow; x++) {
      const [sx, sy] = sourceOf(x, y, width, height, orientation);
      const from = (sy * width + sx) * channels;
      const to = (y * ow + x) * channels;
      for (let c = 0; c < channels; c++) out[to + c] = pixels[from + c]!;
    }
  }
  return { pixels: out, width: ow, height: oh };
}
