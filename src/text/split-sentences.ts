/**
 * The one sentence splitter, used by chunking (long paragraphs are cut at sentences), by the extractive
 * answer (the sentence quoted and cited) and by highlights (the sentences marked): all three see the same
 * sentences, as character ranges into the text.
 *
 * It lives in `ingest/` next to `clean` and `chunk` because it is text processing of the ingest stage, and
 * its regexes run over document text, which `tests/unit/regex-safety.test.ts` checks in the stage
 * folders; `generate/`, a later stage, imports it (the tokenizer shared by index and generate lives in
 * `text/tokenize`).
 *
 * Based on `Intl.Segmenter` (granularity `sentence`: Unicode UAX #29, ICU, the same in Node 20 and
 * Chromium). Measured in Node 20.20 (ICU 78.2); the `-u-ss-standard` abbreviation suppressions are not
 * applied by V8, and `en`, `de` segment alike. Right as it is, so not touched:
 * - decimals, prices, versions, section numbers: "€8.65", "2.5 mg", "9.0", "TLS 1.3", "v2.10.1",
 *   "see 4.6.1 for details" (a dot followed by a digit never ends a sentence), "Section 3.2. The …" ends;
 * - "e.g. apples", "i.e. red", "Fig. 2 shows", "No. 5 is", "vs. dogs", "et al. found", "et al. (2019)",
 *   "et al. [12]", "p. ex. des pommes", "z.B. 3,5 %" (no break when the next letter is lower case);
 * - "He said "Stop." Then", "(Aside.) Next", "[see 3.1.] Next", „Halt.“ (closing quotes and brackets stay
 *   with their sentence); "paused... then" (no break), "paused... Then" (break); 東京は大きい。大阪も。;
 * - host names and e-mail addresses without "?" or "!": "example.com.", "jane.doe@example.co.uk".
 * Wrong, and corrected here by the rules below:
 * 1. A dot after an abbreviation followed by a capital or a digit ends a sentence: "Dr. ", "Mr. ",
 *    "e.g. Paris", "i.e. The", "vs. B", "Fig. A", "Nr. 6. Ja" (and "Nr. 5" before a capital further on),
 *    "z. B.", "M. Dupont", "Mme. Curie", "Voir p. 12. Oui", "ca. 12 Euro", "Prof. Dr. Müller",
 *    "St. Louis", initials "J. R. R. Tolkien", German dates "am 3. Oktober", "im 19. Jahrhundert".
 *    Rule: no break after a listed abbreviation (some only before a digit), after a lower-case letter
 *    followed by another short abbreviation ("z. B.", "d. h."), after an initial next to another initial,
 *    nor after a day or century number before a German month name or "Jahrhundert".
 *    "Smith et al. Found …" still breaks: with a capital after it, "et al." ends sentences as often.
 * 2. "?" and "!" end a sentence even inside a word: "https://x.org/a?b=1", "#!/home". Rule: no break
 *    after ".", "?" or "!" not followed by a space.
 * 3. A closing quote set off by a space goes with the next sentence: "« Stop ! » Puis" → "» Puis"; an
 *    opening bracket right after "！" or "?" goes with the sentence before: "大きい！「はい。」". Rule: a
 *    closing quote or bracket followed by a space moves to the sentence before, an opening one right
 *    before the break to the sentence after.
 * 4. "?" or "!" followed by lower case ends a sentence: "« Stop ! » puis il partit", ""Why?" she asked".
 *    Rule: no break there.
 * 5. "…" never ends a sentence ("He paused… Then he spoke." is one). Rule: break after "…" followed by a
 *    space and a capital, as ICU does after "...".
 * 6. 「はい。」と言った。 breaks after 」. Rule: no break between 」 or 』 and hiragana (a particle).
 * 7. Cost: V8 walks the whole string for every segment (160k newlines: 22 s; 160k characters of "A. ":
 *    7.5 s), and a call costs ~5 µs. The segmenter is given whole lines, at most {@link PIECE} characters
 *    at a time, cut where ICU breaks anyway (after a newline, or at ". " before a capital; a longer
 *    stretch with neither is cut after a space without making a sentence end there), and only pieces
 *    where it could break inside a line. Linear time.
 * 8. A sentence that starts with a lower-case word ends no sentence before it (SB8), which in scientific
 *    text cuts nothing before gene and product names: "as well. p38 MAPK, a mediator …", "mTOR",
 *    "iPSCs". Rule: break after ". " before a lower-case word with a capital or digit in it.
 * Not handled: "etc." or "Inc." before a capital (they end sentences as often as not), "U.S. Army".
 */

/** Start and end offsets (end exclusive) of a sentence in the text; never starts or ends with a space. */
export interface SentenceRange {
  start: number;
  end: number;
}

/** Longest text handed to `Intl.Segmenter` at once (see rule 7). */
const PIECE = 1024;

/** Characters after which ICU may break other than "\n": sentence terminators (STerm, ATerm), CR, NEL, LS, PS. */
const TERMINATOR = /[\p{Sentence_Terminal}\u2024\uFE52\uFF0E]/u;
const BREAKS_INSIDE = /[\p{Sentence_Terminal}\u2024\uFE52\uFF0E\r\u0085\u2028\u2029]/u;

/** Abbreviations whose dot never ends a sentence (as written before the dot, case-sensitive). */
const ABBREVIATIONS = new Set([
  // English
  ...'Mr Mrs Ms Messrs Dr Drs Prof Profs St Jr Sr Gen Col Lt Capt Sgt Rev Hon Mt Gov Sen Rep Dept vs v'.split(' '),
  ...'e.g E.g i.e I.e cf Cf Fig Figs fig figs Eq Eqs eq eqs Ref Refs approx Approx ca Ca'.split(' '),
  // German
  ...'z.B d.h u.a z.T u.U s.o s.u o.ä bzw Bzw vgl Vgl ggf Hr Hrn Dipl Ing evtl inkl zzgl Str sog geb'.split(' '),
  ...['z. B', 'Z. B', 'd. h', 'D. h', 'u. a', 'z. T', 'u. U', 's. o', 's. u', 'o. ä'],
  // French ("M." is not taken for "0.5 M." — see isAbbreviationDot)
  ...'M MM Mme Mmes Mlle Mlles Me Mgr Pr p.ex env av bd Ste chap éd'.split(' '),
  ...['p. ex', 'P. ex'],
]);

/** Abbreviations whose dot ends no sentence when a number follows ("No. 5", "p. 12", "S. 3"). */
const BEFORE_NUMBER = new Set('No Nos Nr Nrn Vol Vols vol pp p S Sec Sect Ch Kap Tab Art art Abs Bd Tel Ziff'.split(' '));

/** Words after a day or century number that make its dot an ordinal, not a sentence end (German). */
const AFTER_ORDINAL = new Set(
  'Januar Jänner Februar März April Mai Juni Juli August September Oktober November Dezember Jahrhundert Jahrhunderts'.split(' '),
);

/** Opening quotes and brackets that ICU leaves at the end of the sentence before: ！「 (rule 3). */
const OPENERS = new Set(['「', '『', '（', '《', '〈', '【', '“', '„', '‘', '«', '‹', '(', '[']);

/** Closing quotes and brackets that go with the sentence before when a space follows them (rule 3). */
const CLOSERS = new Set(['»', '”', '’', '"', "'", ')', ']', '」', '』', '）', '〉', '》', '】', '›']);

const SPACE = /\s/u;
const UPPER = /\p{Lu}/u;
const LOWER = /\p{Ll}/u;
const DIGIT = /\p{Nd}/u;
const WORD_CHAR = /[\p{L}\p{N}]/u;
const LETTER = /^\p{L}/u;
const HIRAGANA = /\p{sc=Hiragana}/u;

const isSpace = (ch: string | undefined) => ch !== undefined && SPACE.test(ch);
const isUpper = (ch: string | undefined) => ch !== undefined && UPPER.test(ch);

let segmenter: Intl.Segmenter | undefined;

/**
 * Where a line longer than PIECE, starting at `a`, may be cut for the segmenter: where ICU breaks anyway
 * (`boundary`: ". " before a capital), else after a space in the second half of the piece, else at its
 * end (never inside a surrogate pair).
 */
function cutPoint(text: string, a: number, to: number): { at: number; boundary: boolean } {
  const hi = Math.min(to - 1, a + PIECE);
  const lo = a + PIECE / 2;
  for (let j = hi; j > lo; j--) {
    if (!isSpace(text[j - 1]) || !isUpper(text[j])) continue;
    let k = j - 1;
    while (k > lo && isSpace(text[k])) k--;
    if (text[k] === '.' || text[k] === '!' || text[k] === '?') return { at: j, boundary: true };
  }
  for (let j = hi; j > lo; j--) if (text[j - 1] === ' ') return { at: j, boundary: false };
  const code = text.charCodeAt(hi);
  return { at: code >= 0xdc00 && code <= 0xdfff ? hi - 1 : hi, boundary: false };
}

/**
 * Starts of ICU's sentences in text[from, to) (after `from`). The segmenter sees whole lines, at most
 * PIECE characters at a time (rule 7); a piece with no sentence terminator and no line separator other
 * than "\n" breaks only after each "\n", which is found without it.
 */
function icuBoundaries(text: string, from: number, to: number): number[] {
  segmenter ??= new Intl.Segmenter('en', { granularity: 'sentence' });
  const out: number[] = [];
  for (let a = from; a < to; ) {
    let cut = { at: to, boundary: false };
    if (to - a > PIECE) {
      const newline = text.slice(a, a + PIECE).lastIndexOf('\n');
      cut = newline >= 0 ? { at: a + newline + 1, boundary: true } : cutPoint(text, a, to);
    }
    const piece = text.slice(a, cut.at);
    if (BREAKS_INSIDE.test(piece)) {
      for (const s of segmenter.segment(piece)) if (s.index > 0) out.push(a + s.index);
    } else {
      for (let i = piece.indexOf('\n'); i >= 0 && i < piece.length - 1; i = piece.indexOf('\n', i + 1)) out.push(a + i + 1);
    }
    if (cut.boundary) out.push(cut.at);
    a = cut.at;
  }
  return out;
}

/** Starts of sentences after "…", a space and a capital (rule 5), in order. */
function ellipsisBoundaries(text: string, from: number, to: number): number[] {
  const out: number[] = [];
  for (let i = text.indexOf('…', from); i >= 0 && i < to; i = text.indexOf('…', i + 1)) {
    let j = i + 1;
    while (j < to && CLOSERS.has(text[j]!)) j++;
    if (!isSpace(text[j])) continue;
    while (j < to && isSpace(text[j])) j++;
    if (j < to && isUpper(text[j])) out.push(j);
  }
  return out;
}

/** The run of letters, digits and dots that ends just before `end` (at most 12 characters), and where it starts. */
function wordBefore(text: string, end: number, floor: number): { word: string; start: number } {
  let s = end;
  while (s > floor && end - s < 12 && (WORD_CHAR.test(text[s - 1]!) || text[s - 1] === '.')) s--;
  if (s > floor && WORD_CHAR.test(text[s - 1]!)) return { word: '', start: end };
  return { word: text.slice(s, end), start: s };
}

/** The letters starting at `start` (at most 14). */
function wordAt(text: string, start: number, to: number): string {
  let e = start;
  while (e < to && e - start < 14 && WORD_CHAR.test(text[e]!)) e++;
  return text.slice(start, e);
}

/**
 * Whether the dot at `dot`, which ICU took for a sentence end before `next`, belongs to an abbreviation
 * or ordinal (rule 1). Reads nothing outside text[floor, to).
 */
function isAbbreviationDot(text: string, dot: number, next: number, floor: number, to: number): boolean {
  const { word, start } = wordBefore(text, dot, floor);
  if (!word || word.startsWith('.')) return false;
  const spaceBefore = start - 2 >= floor && text[start - 1] === ' ';
  // "0.5 M. The …": a unit after a number, not "M. Dupont" or an initial.
  if (word.length === 1 && isUpper(word) && spaceBefore && DIGIT.test(text[start - 2]!)) return false;
  if (ABBREVIATIONS.has(word)) return true;
  if (spaceBefore && text[start - 2] === '.') {
    const before = wordBefore(text, start - 2, floor).word;
    if (ABBREVIATIONS.has(`${before}. ${word}`)) return true;
    if (before.length === 1 && word.length === 1 && isUpper(word) && isUpper(before)) return true; // "J. R."
  }
  if (BEFORE_NUMBER.has(word) && (DIGIT.test(text[next] ?? '') || text[next] === '+')) return true;
  const following = wordAt(text, next, to);
  const dotAfter = next + following.length < to && text[next + following.length] === '.';
  if (word.length === 1 && LOWER.test(word) && LETTER.test(following) && following.length <= 3 && dotAfter) return true; // "z. B."
  if (word.length === 1 && isUpper(word) && following.length === 1 && isUpper(following) && dotAfter) return true; // "J. R. R."
  return word.length <= 2 && [...word].every((c) => DIGIT.test(c)) && AFTER_ORDINAL.has(following);
}

/**
 * Whether ICU's break at `b` is wrong and the sentence goes on (rules 1, 2, 4, 6); `start` is where the
 * next sentence would start once closers are moved (rule 3).
 */
function continuesAcross(text: string, segStart: number, b: number, start: number, to: number): boolean {
  let last = b - 1;
  while (last >= segStart && isSpace(text[last])) last--;
  if (last < segStart) return false;
  const end = text[last]!;
  const next = text[b]!;
  if (last === b - 1) {
    if ((end === '.' || end === '?' || end === '!') && !isSpace(next)) return true;
    if ((end === '」' || end === '』') && HIRAGANA.test(next)) return true;
  }
  let term = last;
  while (term > segStart && CLOSERS.has(text[term]!)) term--;
  if ((text[term] === '?' || text[term] === '!') && LOWER.test(text[start] ?? '')) return true;
  return end === '.' && isAbbreviationDot(text, last, b, segStart, to);
}

/**
 * Moves a sentence start past closing quotes and brackets that are followed by a space (rule 3), when the
 * sentence before ends with a terminator on the same line.
 */
function pastClosers(text: string, segStart: number, b: number, to: number): number {
  let last = b - 1;
  while (last >= segStart && text[last] !== '\n' && isSpace(text[last])) last--;
  if (last < segStart || !TERMINATOR.test(text[last]!)) return b;
  while (b < to && CLOSERS.has(text[b]!) && (b + 1 === to || isSpace(text[b + 1]))) {
    b++;
    while (b < to && isSpace(text[b])) b++;
  }
  return b;
}

/**
 * Starts of sentences after ". " and a word that begins in lower case but has a capital or a digit in it
 * (rule 8: "as well. p38 MAPK is …", "mTOR", "iPSCs"), in order. Abbreviations are taken out later.
 */
function mixedCaseBoundaries(text: string, from: number, to: number): number[] {
  const out: number[] = [];
  for (let i = text.indexOf('.', from); i >= 0 && i < to; i = text.indexOf('.', i + 1)) {
    let j = i + 1;
    if (!isSpace(text[j]) || text[j] === '\n') continue;
    while (j < to && isSpace(text[j]) && text[j] !== '\n') j++;
    if (j >= to || !LOWER.test(text[j]!)) continue;
    const word = wordAt(text, j, to);
    if (word.length > 1 && word.length < 14 && [...word].some((c) => isUpper(c) || DIGIT.test(c))) out.push(j);
  }
  return out;
}

function mergeSorted(a: number[], b: number[]): number[] {
  if (b.length === 0) return a;
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i]! <= b[j]!)) out.push(a[i++]!);
    else out.push(b[j++]!);
  }
  return out;
}

/**
 * Sentences of `text[from, to)` as ranges into `text`, in order, without overlap, trimmed of spaces, and
 * together covering every character that is not a space. Newlines always end a sentence. Linear time.
 *
 * @example
 * splitSentences('She earned €8.65 an hour, e.g. Fig. 2 shows. Then she left.')
 * // → [{ start: 0, end: 44 }, { start: 45, end: 59 }]
 */
export function splitSentences(text: string, from = 0, to = text.length): SentenceRange[] {
  const starts: number[] = [from];
  const extra = mergeSorted(ellipsisBoundaries(text, from, to), mixedCaseBoundaries(text, from, to));
  for (let b of mergeSorted(icuBoundaries(text, from, to), extra)) {
    const segStart = starts.at(-1)!;
    if (b <= segStart || b >= to) continue;
    while (b - 1 > segStart && OPENERS.has(text[b - 1]!)) b--;
    const start = pastClosers(text, segStart, b, to);
    if (start < to && !continuesAcross(text, segStart, b, start, to)) starts.push(start);
  }
  const out: SentenceRange[] = [];
  starts.forEach((s, i) => {
    let start = s;
    let end = starts[i + 1] ?? to;
    while (start < end && isSpace(text[start])) start++;
    while (end > start && isSpace(text[end - 1])) end--;
    if (end > start) out.push({ start, end });
  });
  return out;
}
