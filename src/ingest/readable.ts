/**
 * Whether extracted text is words a person can read, or the symbol garbage a PDF gives when its fonts do
 * not map glyphs to characters (a font-encoding problem): private-use code points, replacement
 * characters, control characters, runs of punctuation, Latin-1 mojibake. Pure and linear: one pass
 * over the code points, with a per-code-point class cache.
 *
 * The rule, over the non-whitespace code points of the text (n of them):
 * - **bad** code points: private use (U+E000–U+F8FF and planes 15–16), U+FFFD, U+FFFE/U+FFFF, lone
 *   surrogates, C0 controls other than whitespace, DEL and C1 controls (U+007F–U+009F);
 * - **alphanumeric**: letters, marks and numbers (`\p{L}`, `\p{M}`, `\p{N}`); everything else is
 *   punctuation or a symbol;
 * - a token (a run without whitespace) is **odd** when it holds a bad code point, a UTF-8-as-Latin-1
 *   pair (U+00C2–U+00F4 followed by U+0080–U+00BF: "Ã©"), two letters or more all from Latin-1's
 *   U+00C0–U+00FF ("ÿþ"), a run of 5 punctuation or symbol code points of which 4 differ
 *   (`!"#$%&'()*+`; not `))))`, `-----` or `});`), or letters of two scripts that do not mix in a
 *   word (Latin with Greek does, for formulas; Han, Kana and Hangul mix with anything);
 * - **word characters**: the alphanumeric code points of tokens that are not odd.
 *
 * Text is unreadable when bad code points are ≥ 30 % of n; or, with n ≥ 10, when word characters are
 * under 30 % of n; or, with n < 10, when it has alphanumerics but no word characters. Prose in any
 * script, code (`if (!(x && y)) { return; }`: 45 %), formulas (`∀ε>0 ∃δ>0: |x−a|<δ`: ~40 %), tables of
 * numbers and short pages ("Page 3") pass. What it cannot see: a font whose codes come out as plausible
 * letters ("Uif rvjdl" for "The quick"); telling those from words would need a language model.
 */

/** Share of bad code points from which text is unreadable. */
const MAX_BAD_SHARE = 0.3;
/** Share of word characters under which text of at least {@link MIN_JUDGED} code points is unreadable. */
const MIN_WORD_SHARE = 0.3;
/** Shorter text is judged by bad code points and odd tokens only: "— 3 —" is a page number. */
const MIN_JUDGED = 10;
/**
 * A run of this many punctuation or symbol code points, at least {@link SYMBOL_RUN_DISTINCT} of them
 * different, makes its token odd: `!"#$%&'()*+` is garbage, `))))`, `-----`, `});` and `-->` are not.
 */
const SYMBOL_RUN = 5;
const SYMBOL_RUN_DISTINCT = 4;

const WHITESPACE = 1;
const BAD = 2;
const ALNUM = 3;
const OTHER = 4;

const ALNUM_RE = /[\p{L}\p{M}\p{N}]/u;
const LETTER_RE = /\p{L}/u;
const SPACE_RE = /\s/u;
/** Class of each BMP code point, filled on first sight (0: not yet). */
const classes = new Uint8Array(0x10000);
/** Whether each BMP code point is a letter (1), filled along with `classes`. */
const letters = new Uint8Array(0x10000);

function classify(cp: number): number {
  if (cp < 0x10000 && classes[cp]) return classes[cp]!;
  let c: number;
  let letter = 0;
  if ((cp >= 0xe000 && cp <= 0xf8ff) || cp >= 0xf0000 || cp === 0xfffd || cp === 0xfffe || cp === 0xffff || (cp >= 0xd800 && cp <= 0xdfff)) c = BAD;
  else if (cp <= 0x20 || cp === 0x85 || cp === 0xa0) c = cp === 0x20 || (cp >= 0x09 && cp <= 0x0d) || cp === 0x85 || cp === 0xa0 ? WHITESPACE : BAD;
  else if (cp >= 0x7f && cp <= 0x9f) c = BAD;
  else {
    const ch = String.fromCodePoint(cp);
    if (SPACE_RE.test(ch)) c = WHITESPACE;
    else if (ALNUM_RE.test(ch)) {
      c = ALNUM;
      letter = LETTER_RE.test(ch) ? 1 : 0;
    } else c = OTHER;
  }
  if (cp < 0x10000) {
    classes[cp] = c;
    letters[cp] = letter;
  }
  return c;
}

function isLetter(cp: number): boolean {
  return cp < 0x10000 ? letters[cp] === 1 : LETTER_RE.test(String.fromCodePoint(cp));
}

const NEUTRAL = 0;
const LATIN = 1;
const GREEK = 2;
const CJK = 3;

/**
 * A coarse script of a letter: Latin, Greek, CJK (Han, Kana, Hangul, Yi, full-width forms), neutral
 * (modifier letters, letterlike and mathematical symbols), or a number standing for another script
 * (Cyrillic, Armenian, Hebrew, Arabic, each Indic script's block…).
 */
function scriptOf(cp: number): number {
  if (cp < 0x250 || (cp >= 0x1e00 && cp <= 0x1eff) || (cp >= 0x2c60 && cp <= 0x2c7f) || (cp >= 0xa720 && cp <= 0xa7ff)) return LATIN;
  if ((cp >= 0x370 && cp <= 0x3ff) || (cp >= 0x1f00 && cp <= 0x1fff)) return GREEK;
  if ((cp >= 0x250 && cp <= 0x36f) || (cp >= 0x1d00 && cp <= 0x1dbf) || (cp >= 0x2070 && cp <= 0x214f) || (cp >= 0x1d400 && cp <= 0x1d7ff)) return NEUTRAL;
  if ((cp >= 0x1100 && cp <= 0x11ff) || (cp >= 0x2e80 && cp <= 0xa4cf) || (cp >= 0xac00 && cp <= 0xd7af) || (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0xff00 && cp <= 0xffef) || cp >= 0x20000) return CJK;
  if (cp >= 0x400 && cp <= 0x52f) return 10;
  if (cp >= 0x530 && cp <= 0x58f) return 11;
  if ((cp >= 0x590 && cp <= 0x5ff) || (cp >= 0xfb1d && cp <= 0xfb4f)) return 12;
  if ((cp >= 0x600 && cp <= 0x8ff) || (cp >= 0xfb50 && cp <= 0xfdff) || (cp >= 0xfe70 && cp <= 0xfeff)) return 13;
  // Each Indic and South-East Asian script has a 128-code-point block; others are told apart by 256.
  return cp < 0x2000 ? 100 + (cp >> 7) : 1000 + (cp >> 8);
}

/** What {@link measureReadability} counts. */
export interface Readability {
  /** Non-whitespace code points. */
  chars: number;
  /** Private-use, replacement and control code points. */
  bad: number;
  /** Letters, marks and numbers. */
  alnum: number;
  /** Letters, marks and numbers in tokens that are not odd (see the module comment). */
  words: number;
}

/** Counts of one token while it is scanned. */
class TokenState {
  alnum = 0;
  letters = 0;
  latin1Letters = 0;
  odd = false;
  script = NEUTRAL;
  prev = -1;
  /** The current run of punctuation and symbols: its length and its first distinct code points. */
  runLength = 0;
  readonly runDistinct: number[] = [];

  reset(): void {
    this.alnum = this.letters = this.latin1Letters = 0;
    this.odd = false;
    this.script = NEUTRAL;
    this.prev = -1;
    this.endRun();
  }

  endRun(): void {
    // Called for every letter: truncating the array each time cost more than the rest of the scan.
    if (this.runLength === 0) return; // runDistinct is empty too: only addSymbol fills it
    this.runLength = 0;
    this.runDistinct.length = 0;
  }

  /** A run of {@link SYMBOL_RUN} punctuation or symbols, {@link SYMBOL_RUN_DISTINCT} of them different, is odd. */
  addSymbol(cp: number): void {
    this.runLength++;
    if (this.runDistinct.length < SYMBOL_RUN_DISTINCT && !this.runDistinct.includes(cp)) this.runDistinct.push(cp);
    if (this.runLength >= SYMBOL_RUN && this.runDistinct.length >= SYMBOL_RUN_DISTINCT) this.odd = true;
  }

  addLetter(cp: number): void {
    this.letters++;
    if (cp >= 0xc0 && cp <= 0xff) this.latin1Letters++;
    const s = scriptOf(cp);
    if (s === NEUTRAL || s === CJK) return;
    if (this.script === NEUTRAL) this.script = s;
    else if (s !== this.script && !(s <= GREEK && this.script <= GREEK)) this.odd = true;
  }

  /** Word characters this token contributes when it ends. */
  words(): number {
    const latin1Only = this.letters >= 2 && this.latin1Letters === this.letters;
    return this.odd || latin1Only ? 0 : this.alnum;
  }
}

/** Counts of one token kept across {@link TokenState.reset}: its code points, and how many are leader dots. */
class TokenCount {
  chars = 0;
  leaders = 0;

  /**
   * Adds what the ending token contributes to `out`. A token of leader dots only ("." ". . ." "……", an
   * index or table of contents) is layout, not text: it is left out of the count, else a real index
   * page reads as symbol garbage.
   */
  end(token: TokenState, out: Readability): void {
    out.words += token.words();
    if (this.chars > 0 && this.leaders === this.chars) out.chars -= this.chars;
    this.chars = this.leaders = 0;
  }
}

/** Counts bad, alphanumeric and word code points of `text` (see the module comment). Linear. */
export function measureReadability(text: string): Readability {
  const out: Readability = { chars: 0, bad: 0, alnum: 0, words: 0 };
  const token = new TokenState();
  const count = new TokenCount();
  for (let i = 0; i < text.length; i++) {
    let cp = text.charCodeAt(i);
    if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < text.length) {
      const lo = text.charCodeAt(i + 1);
      if (lo >= 0xdc00 && lo <= 0xdfff) {
        cp = (cp - 0xd800) * 0x400 + (lo - 0xdc00) + 0x10000;
        i++;
      }
    }
    const c = classify(cp);
    if (c === WHITESPACE) {
      count.end(token, out);
      token.reset();
      continue;
    }
    out.chars++;
    count.chars++;
    if (cp === 0x2e || cp === 0x2026 || cp === 0xb7) count.leaders++;
    if (c === OTHER) token.addSymbol(cp);
    else token.endRun();
    if (c === BAD) {
      out.bad++;
      token.odd = true;
    } else if (c === ALNUM) {
      out.alnum++;
      token.alnum++;
      if (isLetter(cp)) token.addLetter(cp);
    }
    // UTF-8 read as Latin-1: a lead byte's letter followed by a continuation byte's symbol ("Ã©").
    if (cp >= 0x80 && cp <= 0xbf && token.prev >= 0xc2 && token.prev <= 0xf4) token.odd = true;
    token.prev = cp;
  }
  count.end(token, out);
  return out;
}

/** Whether counts from {@link measureReadability} describe readable text (empty text is). */
export function isReadableMeasure(m: Readability): boolean {
  if (m.chars === 0) return true;
  if (m.bad >= MAX_BAD_SHARE * m.chars) return false;
  if (m.chars < MIN_JUDGED) return m.alnum === 0 || m.words > 0;
  return m.words >= MIN_WORD_SHARE * m.chars;
}

/**
 * Whether `text` is words a person can read rather than symbol garbage (see the module comment).
 *
 * @example isReadable('Page 3') // → true
 * @example isReadable('\uE000\uE001\uE002') // → false
 */
export function isReadable(text: string): boolean {
  return isReadableMeasure(measureReadability(text));
}
