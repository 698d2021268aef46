/**
 * Whole-document questions: "summarise the lease", "give an overview of report.pdf", "list
 * every deadline in contract.docx", "find all the dates in the lease". Such a question is not answered by
 * the top passages (a summary needs every section; a list of every deadline needs every page), so the
 * library reads the whole document, part by part (`generate/map-reduce.ts`).
 *
 * A rule-based pass, narrow on purpose: a question is about a whole document when it asks for a summary or
 * an overview, or asks to list / find / show / extract all, every or each of something, and names exactly
 * one document (as self-query reads names: `self-query.ts`; or by its name without extension anywhere) or is restricted to exactly one by the filter
 * (a chip or the "Only in document" choice), or the library holds only one document. "What is the rent?"
 * is not; "Is every tenant liable?" is not (no verb that asks for a list). Words only: no regular
 * expression is built from the question or from library names.
 */
import { docFacets, docNames } from './doc-names.ts';
import type { DocId } from '../core/ids.ts';
import type { SearchFilter } from '../core/types.ts';
import { passesDates } from '../core/query-filters.ts';
import { readFilters, type QueryableDoc } from './self-query.ts';

/** What the question asks for: a summary of the document, every instance of something, or (toggle) an answer. */
export type WholeDocumentKind = 'summary' | 'list' | 'question';

export interface WholeDocumentQuery {
  docId: DocId;
  /** The document's path as the Library list shows it ("contracts/lease.md"). */
  docPath: string;
  kind: WholeDocumentKind;
  /**
   * The question without the words that asked for the whole document and without the document's name:
   * what to look for in each section ("deadline" for "list every deadline in lease.md"); '' for a plain
   * summary.
   */
  topic: string;
}

/** Words that ask for a summary anywhere in the question. */
const SUMMARY_WORDS = new Set(['summarise', 'summarize', 'summarising', 'summarizing', 'summary', 'summaries', 'overview', 'tldr', 'gist', 'recap', 'synopsis', 'résumé', 'résume', 'résumer', 'zusammenfassung', 'zusammenfassen']);
/** Two-word phrases that ask for a summary ("key points", "main points"). */
const SUMMARY_PAIRS = new Set(['key points', 'main points', 'key takeaways', 'main ideas', 'key terms']);
/** Verbs that ask for a list when "all", "every" or "each" follows within {@link LIST_REACH} words. */
const LIST_VERBS = new Set(['list', 'find', 'show', 'extract', 'enumerate', 'give', 'name', 'identify', 'collect', 'gather']);
/** Question words that ask for a list only as "what are all …", "which are all …" ("what do I pay every month" does not). */
const LIST_QUESTIONS = new Set(['what', 'which']);
const ALL_WORDS = new Set(['all', 'every', 'each']);
/** How many words after a list verb "all"/"every" may come ("list me all", "give me a list of every"). */
const LIST_REACH = 5;
/** Words that only frame the request: left out of the topic. */
const FRAME_WORDS = new Set([
  ...SUMMARY_WORDS, ...LIST_VERBS, ...LIST_QUESTIONS, ...ALL_WORDS,
  'a', 'an', 'the', 'of', 'in', 'from', 'within', 'according', 'to', 'me', 'please', 'this', 'that', 'document', 'doc', 'file', 'report', 'whole', 'entire', 'are', 'is', 'there', 'us', 'can', 'you', 'could', 'key', 'main', 'points', 'mentioned', 'listed', 'stated', 'named', 'single', 'one', 'and', 'its', 'it', 'do', 'does', 'brief', 'short', 'quick', 'overall', 'for', 'about', 'on',
]);
/** Verbs that ask for a list on their own ("enumerate the obligations"). */
const ENUMERATE_ALONE = new Set(['enumerate', 'itemise', 'itemize']);
/** A letter or a digit: what a word is made of. */
const WORD_CHAR = /[\p{L}\p{M}\p{N}]/u;

/** Lower-case words of a text, each a run of letters and digits ("lease.md" is two words). */
function wordsOf(text: string): Array<{ word: string; at: number }> {
  const out: Array<{ word: string; at: number }> = [];
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const c = text[i] ?? ' ';
    if (WORD_CHAR.test(c)) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      out.push({ word: text.slice(start, i).toLowerCase(), at: start });
      start = -1;
    }
  }
  return out;
}

/** What the question asks for, by its words alone; undefined when it does not ask about a whole document. */
export function wholeDocumentKind(question: string): Exclude<WholeDocumentKind, 'question'> | undefined {
  const words = wordsOf(question.normalize('NFC')).map((w) => w.word);
  // "tl;dr" is two words here.
  if (words.some((w, i) => SUMMARY_WORDS.has(w) || (w === 'tl' && words[i + 1] === 'dr') || SUMMARY_PAIRS.has(`${w} ${words[i + 1] ?? ''}`))) return 'summary';
  for (const [i, w] of words.entries()) {
    if (ENUMERATE_ALONE.has(w)) return 'list';
    if (LIST_QUESTIONS.has(w) && (words[i + 1] === 'are' || words[i + 1] === 'were') && ALL_WORDS.has(words[i + 2] ?? '')) return 'list';
    if (!LIST_VERBS.has(w)) continue;
    const next = words.slice(i + 1, i + 1 + LIST_REACH);
    // "at all" is emphasis, not a list ("does it mention pets at all").
    if (next.some((n, j) => ALL_WORDS.has(n) && next[j - 1] !== 'at')) return 'list';
  }
  return undefined;
}

/** The documents a filter allows (all of them when it restricts nothing). */
function allowedBy(docs: readonly QueryableDoc[], filter: SearchFilter | undefined): QueryableDoc[] {
  const { docIds, folders, types, tags } = filter ?? {};
  return docs.filter(
    (d) =>
      (!docIds?.length || docIds.includes(d.docId))
      && (!folders?.length || folders.some((f) => d.folder === f || d.folder.startsWith(`${f}/`)))
      && (!types?.length || types.includes(d.type))
      && (!tags?.length || tags.some((t) => d.tags.includes(t)))
      && passesDates(d, filter ?? {}),
  );
}

/** Whether `needle`'s words occur, in a row, among `words`. */
function holdsPhrase(words: readonly string[], needle: readonly string[]): boolean {
  if (!needle.length) return false;
  for (let i = 0; i + needle.length <= words.length; i++) if (needle.every((w, j) => words[i + j] === w)) return true;
  return false;
}


/**
 * Documents the question names: as self-query reads them (a full file name, or a name without its
 * extension after "in", "from", "according to"), and, since the question asks about a whole document, a
 * name without its extension anywhere ("summarise the lease"), when no other document shares it, it is
 * at least 3 characters long, and no folder has it as its name: "summarise sqlite" with Debian's SQLite
 * manual in "docs/sqlite" asks about the manual, not its one page "sqlite.html" (as filters read it,
 * `self-query.ts`); the full file name still names the page.
 */
function namedDocs(question: string, docs: readonly QueryableDoc[]): Set<DocId> {
  const named = new Set(readFilters(question, docs).flatMap((c) => (c.kind === 'document' ? [c.docId] : [])));
  const words = wordsOf(question.normalize('NFC')).map((w) => w.word);
  const present = new Set(words);
  const { folderNames } = docFacets(docs);
  for (const n of docNames(docs)) {
    if (n.stemCount !== 1 || n.stem.length < 3 || folderNames.has(n.stem)) continue;
    n.stemWords ??= wordsOf(n.stem).map((w) => w.word);
    // A stem whose first word the question lacks cannot be a phrase of it.
    if (present.has(n.stemWords[0] ?? '') && holdsPhrase(words, n.stemWords)) named.add(n.doc.docId);
  }
  return named;
}

const pathOf = (d: QueryableDoc) => (d.folder ? `${d.folder}/${d.name}` : d.name);

/**
 * How many of the document's folders, nearest first, the question writes right before its name:
 * "summarise b/report.md" names 1 of "reports/b/report.md"'s folders, "summarise reports/b/report.md" 2.
 */
function foldersNamed(words: readonly string[], doc: QueryableDoc): number {
  const parts = doc.folder.split('/').filter(Boolean);
  let depth = 0;
  while (depth < parts.length && holdsPhrase(words, wordsOf([...parts.slice(parts.length - depth - 1), doc.name].join('/')).map((w) => w.word))) depth++;
  return depth;
}

/** Of several documents named alike ("report.md" in two folders), the one whose folders the question also writes, if exactly one. */
function narrowByFolders(question: string, named: readonly DocId[], docs: readonly QueryableDoc[]): DocId[] {
  if (named.length < 2) return [...named];
  const words = wordsOf(question.normalize('NFC')).map((w) => w.word);
  const depths = named.map((id) => foldersNamed(words, docs.find((d) => d.docId === id)!));
  const best = Math.max(...depths);
  const chosen = named.filter((_, i) => depths[i] === best);
  return best > 0 && chosen.length === 1 ? chosen : [...named];
}

/** The question's words that say what to look for: without the framing words and the document's path. */
function topicOf(question: string, doc: QueryableDoc): string {
  const name = new Set(wordsOf(pathOf(doc)).map((w) => w.word));
  return wordsOf(question)
    .map((w) => w.word)
    .filter((w) => !FRAME_WORDS.has(w) && !name.has(w))
    .join(' ');
}

/**
 * The one document a question is about when it asks about a whole document, else undefined.
 *
 * - The document: the one the question names (self-query's rules), if it also passes the filter (of two
 *   named alike in different folders, the one whose folder the question writes too: "b/report.md"); else
 *   the one document the filter allows; else the library's only document.
 * - `force` (the "Whole document" toggle): the words need not ask for a summary or a list; the kind is
 *   then 'question' unless they do.
 *
 * @example
 * readWholeDocument('Summarise the lease', docs) // → { docId: 'lease…', docPath: 'lease.md', kind: 'summary', topic: '' }
 * readWholeDocument('List every deadline in lease.md', docs) // → { …, kind: 'list', topic: 'deadline' }
 * readWholeDocument('What is the rent?', docs) // → undefined
 */
export function readWholeDocument(question: string, docs: readonly QueryableDoc[], filter?: SearchFilter, force = false): WholeDocumentQuery | undefined {
  const kind = wholeDocumentKind(question) ?? (force ? 'question' : undefined);
  if (!kind) return undefined;
  const allowed = allowedBy(docs, filter);
  const allowedIds = new Set(allowed.map((d) => d.docId));
  const named = narrowByFolders(question, [...namedDocs(question, docs)].filter((id) => allowedIds.has(id)), docs);
  const candidates = named.length ? allowed.filter((d) => named.includes(d.docId)) : allowed;
  if (candidates.length !== 1) return undefined;
  const doc = candidates[0]!;
  return { docId: doc.docId, docPath: pathOf(doc), kind, topic: kind === 'question' ? question.trim() : topicOf(question, doc) };
}

/**
 * The paths of the documents a whole-document question names when it names several that its words cannot
 * tell apart ("summarise report.md" with a report.md in two folders), so the page can ask which one
 * instead of answering from the top passages; undefined when the question is not about a whole document
 * or names at most one.
 *
 * @example
 * ambiguousWholeDocument('Summarise report.md', docs) // → ['work/a/report.md', 'work/b/report.md']
 */
export function ambiguousWholeDocument(question: string, docs: readonly QueryableDoc[], filter?: SearchFilter): string[] | undefined {
  if (!wholeDocumentKind(question)) return undefined;
  const allowed = allowedBy(docs, filter);
  const allowedIds = new Set(allowed.map((d) => d.docId));
  const named = narrowByFolders(question, [...namedDocs(question, docs)].filter((id) => allowedIds.has(id)), docs);
  return named.length > 1 ? allowed.filter((d) => named.includes(d.docId)).map(pathOf) : undefined;
}
