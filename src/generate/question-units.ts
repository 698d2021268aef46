/**
 * What a question is matched on in the answer's sentences: its content terms (its words less those that
 * ask) with their weights, except that a name written as one word of several parts ("max_wal_size") is
 * one unit, held only where it is written whole.
 */
import { CELL_SEPARATOR } from '../core/table-cells.ts';
import { termsOf } from '../text/tokenize.ts';

/**
 * Names written as one word of several parts in the question ("max_wal_size", "json.dumps", "gc.auto",
 * "/etc/hostname"), lower-cased: the index cuts them into their parts, but a sentence naming
 * "max_slot_wal_keep_size" or "the size of the WAL" does not name "max_wal_size". Only names with a
 * letter (not "3.14"), and a slash only in a path from the root: "ischaemia/reperfusion" means either.
 * Each starts where a word does, so a long word is tried once, not from each of its letters.
 */
const IDENTIFIER = /(?<![\p{L}\p{N}])[\p{L}\p{N}]+(?:(?:_+|\.|::)[\p{L}\p{N}]+)+|(?<![\p{L}\p{N}/])\/[\p{L}\p{N}]+(?:\/[\p{L}\p{N}._-]+)+/gu;

export function identifiersOf(text: string): string[] {
  return [...new Set((text.match(IDENTIFIER) ?? []).filter((t) => /\p{L}/u.test(t)).map((t) => t.toLowerCase()))];
}

/**
 * Functions the question names by a call ("open()", "zip()"), lower-cased with their parentheses: "Which
 * encoding does open() use?" asks about that function, which a text names as "open(" ("open()",
 * "open(file, mode='r')"), not about "lzma.open(" nor every sentence saying "opened".
 */
const CALL = /(?<![\p{L}\p{N}_.])[\p{L}_][\p{L}\p{N}_]*\(\)/gu;

export function callsOf(text: string): string[] {
  return [...new Set((text.match(CALL) ?? []).map((t) => t.toLowerCase()))];
}

/** Whether `text` (lower-cased) calls `call` ("open()"): "open(" not inside a longer or dotted name. */
function writesCall(text: string, call: string): boolean {
  const open = call.slice(0, -1);
  for (let at = text.indexOf(open); at >= 0; at = text.indexOf(open, at + 1)) {
    if (!/[\p{L}\p{N}_.]/u.test(text[at - 1] ?? ' ')) return true;
  }
  return false;
}

/** Quotes and brackets round a symbol in a question ("the `?` pattern", "“*”"). */
const ENCLOSING = new Set('`\'"‘’“”«»()[]{}');

/** `word` without the quotes and brackets round it (by hand: a regular expression for both ends backtracks on a long run of them). */
function unenclosed(word: string): string {
  let start = 0;
  let end = word.length;
  while (start < end && ENCLOSING.has(word[start]!)) start++;
  while (end > start && ENCLOSING.has(word[end - 1]!)) end--;
  return word.slice(start, end);
}

/** What alone is prose's punctuation, not a symbol asked about ("X - or Y?", "…"). */
const PROSE_PUNCTUATION = /^[-–—,;:.…!]+$/u;

/**
 * Symbols the question asks about, standing alone between spaces ("What does the ? glob pattern match?",
 * "What does the := operator do?", "What does $? hold?"): a run without a letter or digit, not the
 * question's closing mark nor prose punctuation. The index keeps no symbols, so without them a table of
 * glob patterns answered with whichever of its rows read closest to the question.
 */
export function symbolsOf(question: string): string[] {
  const words = question.trim().replace(/[?？!]$/u, '').split(/\s+/u);
  const symbols = words.map((word) => {
    // A comma after it belongs to the sentence ("`->`, and"); quotes round it to neither.
    let end = word.length;
    while (end > 0 && (word[end - 1] === ',' || word[end - 1] === ';')) end--;
    const w = word.slice(0, end);
    return /^[`'"‘’“”]/u.test(w) ? unenclosed(w) : w;
  }).filter((w) => w && !/[\p{L}\p{N}]/u.test(w) && !PROSE_PUNCTUATION.test(w));
  return [...new Set(symbols)];
}

/** Whether `text` writes `symbol` standing alone: between spaces, quotes, brackets or a table's cell edges, or before a comma or full stop. */
function writesSymbol(text: string, symbol: string): boolean {
  const apart = (c: string | undefined, after: boolean) => c === undefined || /[\s`'"‘’“”«»()[\]{}]/u.test(c) || (after && /[,.;:]/u.test(c));
  return text.split(CELL_SEPARATOR).some((cell) => {
    for (let at = cell.indexOf(symbol); at >= 0; at = cell.indexOf(symbol, at + 1)) {
      if (apart(cell[at - 1], false) && apart(cell[at + symbol.length], true)) return true;
    }
    return false;
  });
}

/** What a sentence is matched on: its terms, and which of the question's identifiers it writes out whole. */
export interface Matchable {
  terms: ReadonlySet<string>;
  text: string;
}

/** Whether `text` (lower-cased) writes `id` out whole, not inside a longer name ("max_wal_size" is not in "max_wal_size_mb"). */
function writesIdentifier(text: string, id: string): boolean {
  for (let at = text.indexOf(id); at >= 0; at = text.indexOf(id, at + 1)) {
    const before = text[at - 1];
    const after = text[at + id.length];
    const part = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}_]/u.test(c);
    if (!part(before) && !part(after)) return true;
  }
  return false;
}

/** One thing the question asks about, with its weight, and whether a text holds it. */
export interface Unit {
  weight: number;
  holds: (m: Matchable) => boolean;
}

/**
 * The units a sentence is scored on, with their weights: the question's content terms, except that the
 * parts of an identifier it writes ("max_wal_size") make one unit, weighing what its parts weigh
 * together, that a text holds only when it writes the identifier out. A part the question also uses as
 * a word of its own stays a term as well. A symbol standing alone ({@link symbolsOf}) is a unit too.
 */
export function unitsOf(question: string, weights: ReadonlyMap<string, number>): Unit[] {
  const partsOf = (id: string) => [...new Set(termsOf(id))].filter((t) => weights.has(t));
  const ids = identifiersOf(question).map((id) => ({ id, parts: partsOf(id), writes: writesIdentifier })).filter((x) => x.parts.length > 1);
  const calls = callsOf(question).map((id) => ({ id, parts: partsOf(id), writes: writesCall })).filter((x) => x.parts.length > 0);
  const named = [...ids, ...calls];
  const outside = new Set(termsOf(question.replace(IDENTIFIER, ' ').replace(CALL, ' ')));
  const inIds = new Set(named.flatMap((x) => x.parts));
  const units: Unit[] = [];
  for (const [t, w] of weights) if (!inIds.has(t) || outside.has(t)) units.push({ weight: w, holds: (m) => m.terms.has(t) });
  for (const { id, parts, writes } of named) units.push({ weight: parts.reduce((sum, t) => sum + weights.get(t)!, 0), holds: (m) => writes(m.text, id) });
  // A symbol weighs as the question's rarest word: what it names is as specific.
  const rarest = Math.max(1, ...weights.values());
  for (const symbol of symbolsOf(question)) units.push({ weight: rarest, holds: (m) => writesSymbol(m.text, symbol) });
  return units;
}

/**
 * Words that ask rather than say what is asked about; English function words Lucene's stop list keeps.
 * They are dropped from the question's content terms (a document rarely repeats "how" or "does"), unless
 * nothing else is left.
 */
const QUESTION_WORDS = new Set(
  termsOf(
    'what whats when where which who whom whose why how many much do does did done can could should would shall may might '
      + 'must has have had having been being am were i me my you your we our us please',
  ),
);

/**
 * Verbs that make a request of the reader when the question opens with them ("List the…", "Tell me…",
 * "Can you explain…"): then they ask, as "what" does. Elsewhere they are what is asked about: "How can I
 * list the files a package contains?" asks for the sentence that lists them.
 */
const REQUEST_VERBS = new Set(termsOf('tell show give find explain describe list'));
/** What may come before a request verb that opens a question: "please", "can you", "could you please". */
const BEFORE_REQUEST = /^\s*(?:please\s+)?(?:(?:can|could|would|will)\s+you\s+)?(?:please\s+)?/iu;

/** The request verb a question opens with ("List…", "Can you tell…"), as an index term; '' when it opens otherwise. */
function requestVerbOf(question: string): string {
  const first = question.replace(BEFORE_REQUEST, '').match(/^[\p{L}]+/u)?.[0] ?? '';
  const term = termsOf(first)[0] ?? '';
  return REQUEST_VERBS.has(term) ? term : '';
}

/** The question's content terms: its index terms without question words and an opening request verb (all of them if nothing else is left). */
export function contentTermsOf(question: string): string[] {
  const terms = [...new Set(termsOf(question))];
  const request = requestVerbOf(question);
  const content = terms.filter((t) => !QUESTION_WORDS.has(t) && t !== request);
  return content.length ? content : terms;
}
