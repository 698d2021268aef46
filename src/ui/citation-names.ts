import type { Citation, SourceRequest, TextRange } from '../core/types.ts';

/** Pure helpers that name and open citations (no DOM: unit-tested in Node). */

/**
 * What the Source dialog opens for a citation: its quoted sentences (or, for a closest passage, its
 * marked best match, else the chunk the index hit), turned from window offsets into block offsets, with
 * the chunk as context.
 */
export function sourceRequestOf(c: Citation): SourceRequest {
  const p = c.passage;
  const ranges: TextRange[] = c.quotes.length ? c.quotes : c.marks.length ? c.marks : [{ start: p.hitStart, end: p.hitEnd }];
  return {
    docId: p.docId,
    block: p.block,
    marks: ranges.map((r) => ({ start: p.windowStart + r.start, end: p.windowStart + r.end, text: p.window.slice(r.start, r.end) })),
    context: { start: p.windowStart + p.hitStart, end: p.windowStart + p.hitEnd },
  };
}

/** The text a citation is best known by: its first quote, else its first mark, else the chunk it hit. */
function citedText(c: Citation): string {
  const p = c.passage;
  const r = c.quotes[0] ?? c.marks[0] ?? { start: p.hitStart, end: p.hitEnd };
  return p.window.slice(r.start, r.end);
}

const MIN_WORDS = 4;
const MAX_WORDS = 12;

/** The first `n` words of a text, with an ellipsis when there are more. */
function firstWords(words: readonly string[], n: number): string {
  return words.length > n ? `${words.slice(0, n).join(' ')}…` : words.join(' ');
}

/**
 * For each citation, what tells it apart from another citation of the same document and location (two
 * passages of one page or section): the first words of what it cites, as many as make them differ (4 to
 * 12). Undefined for a citation whose document and location no other citation shares.
 *
 * @example
 * distinguishCitations([depositOnPage2, keysOnPage2, rentOnPage1])
 * // → ['“The landlord returns the…”', '“Keys are handed over…”', undefined]
 */
export function distinguishCitations(citations: readonly Citation[]): Array<string | undefined> {
  const groups = new Map<string, number[]>();
  citations.forEach((c, i) => {
    const key = `${c.passage.docId}\u0000${c.passage.label}`;
    groups.set(key, [...(groups.get(key) ?? []), i]);
  });
  const out: Array<string | undefined> = citations.map(() => undefined);
  for (const members of groups.values()) {
    if (members.length < 2) continue;
    const words = members.map((i) => citedText(citations[i]!).split(/\s+/).filter(Boolean));
    let n = MIN_WORDS;
    while (n < MAX_WORDS && new Set(words.map((w) => firstWords(w, n))).size < members.length) n++;
    members.forEach((i, k) => (out[i] = `“${firstWords(words[k]!, n)}”`));
  }
  return out;
}
