/**
 * Self-query, the rule-based pass: filters read from the question itself, matched against
 * the library's real metadata, so "when is the rent due in lease.pdf?" searches lease.pdf only. Used when
 * no model is loaded (and as the model's fallback). Rules are narrow on purpose, because a wrong filter
 * hides the answer: a document by its full file name ("lease.pdf"), or by its name without the extension
 * after "in", "from" or "according to" ("in the lease"); a folder after "in (the) folder" or before
 * "folder"; a type only in plural or "… files" form ("PDFs", "Word documents", "Markdown files"), which
 * asks about the kind of file rather than mentioning it; a tag after "tagged" or "with (the) tag", or
 * written "#tax"; a date range from a date phrase (`date-phrases.ts`: "from 2023", "added last week"),
 * about when documents were added or about their own dates (whichever the words say, else their own
 * dates when some document's is in the range), offered only when some document is in it and some is not.
 * The page shows each as a removable chip before the search runs.
 */
import { docFacets, docNames } from './doc-names.ts';
import { fieldFor, rangeChip, type QueryableDoc, type QueryChip } from '../core/query-filters.ts';
import type { DocType } from '../core/types.ts';
import { readDatePhrase } from './date-phrases.ts';

export type { QueryableDoc, QueryChip } from '../core/query-filters.ts';

const TYPE_WORDS: Array<{ type: DocType; label: string; re: RegExp }> = [
  { type: 'pdf', label: 'PDF', re: /\b(pdfs|pdf (?:files|documents))\b/iu },
  { type: 'docx', label: 'Word', re: /\b(word (?:files|documents|docs)|docx files|docx)\b/iu },
  { type: 'markdown', label: 'Markdown', re: /\b(markdown (?:files|notes|documents)|md files)\b/iu },
  { type: 'html', label: 'HTML', re: /\b(html (?:files|pages|documents)|web pages)\b/iu },
  { type: 'text', label: 'Text', re: /\b((?:plain )?text files|txt files)\b/iu },
  { type: 'image', label: 'Image', re: /\b(image files|(?:png|jpe?g|webp|tiff?) files|scanned (?:images|pages|files))\b/iu },
];

/** A letter, digit or underscore: what must not touch a name for it to be a whole word. */
const WORD_CHAR = /[\p{L}\p{N}_]/u;
/** What may come right before a document named without its extension. */
const DOC_LEAD = /(?:^|[^\p{L}\p{N}_])(?:in|from|within|according to)\s+(?:the\s+)?$/u;
/** What may come right before a folder's name ("in the folder contracts"). */
const FOLDER_LEAD = /(?:^|[^\p{L}\p{N}_])(?:in|under|from)\s+(?:the\s+|my\s+)?folder\s+$/u;
/** What may come before a folder's name followed by "folder" ("in the contracts folder"). */
const FOLDER_LEAD_SHORT = /(?:^|[^\p{L}\p{N}_])(?:in|under|from)\s+(?:the\s+|my\s+)?$/u;
const FOLDER_TAIL = /^\s+folder(?![\p{L}\p{N}_])/u;
/** What may come right before a tag ("tagged tax", "with the tag “tax”"). */
const TAG_LEAD = /(?:^|[^\p{L}\p{N}_])(?:tagged|with\s+(?:the\s+)?tag)\s+["“]?$/u;


/**
 * Where `needle` occurs in `haystack` as a whole word or phrase (case-insensitive: both are lower case).
 * Plain string search: no regular expression is built from library names.
 */
function occurrences(haystack: string, needle: string): number[] {
  const found: number[] = [];
  if (!needle) return found;
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + 1)) {
    const before = at > 0 ? haystack[at - 1]! : '';
    const after = haystack[at + needle.length] ?? '';
    if (!(before && WORD_CHAR.test(before)) && !(after && WORD_CHAR.test(after))) found.push(at);
  }
  return found;
}

/**
 * The date chip of a question's date phrase (read against `now`), when the range would restrict the
 * library without emptying it: some document is in it, and some is not.
 */
export function dateChip(question: string, docs: readonly QueryableDoc[], now: number): QueryChip | undefined {
  const phrase = readDatePhrase(question, now);
  if (!phrase) return undefined;
  const field = phrase.field ?? fieldFor(docs, phrase.range);
  if (!field) return undefined;
  return rangeChip(docs, field, phrase.range, phrase.matched);
}

/**
 * The filters a question asks for, from the library's documents; each kind at most once per value. Date
 * phrases are read against `now` (default: the current time).
 */
export function readFilters(question: string, docs: readonly QueryableDoc[], now = Date.now()): QueryChip[] {
  const chips: QueryChip[] = [];
  const q = question.normalize('NFC');
  const lower = q.toLowerCase();
  const words = (at: number, length: number) => q.slice(at, at + length);
  // Documents: a full file name anywhere; a name without extension (≥ 3 characters, not shared by two
  // documents nor by a folder) after "in", "from", "within" or "according to", optionally "the".
  const facets = docFacets(docs);
  for (const { doc: d, name, stem, stemCount } of docNames(docs)) {
    // Most names do not occur in the question at all: one plain search rules them out.
    const full = lower.includes(name) ? occurrences(lower, name)[0] : undefined;
    const unique = stemCount === 1 && stem.length >= 3 && stem !== name && !facets.folderNames.has(stem);
    const byStem = full === undefined && unique && lower.includes(stem) ? occurrences(lower, stem).find((at) => DOC_LEAD.test(lower.slice(0, at))) : undefined;
    const at = full ?? byStem;
    if (at === undefined || chips.some((c) => c.kind === 'document' && c.docId === d.docId)) continue;
    chips.push({ kind: 'document', docId: d.docId, label: d.folder ? `${d.folder}/${d.name}` : d.name, matched: words(at, full !== undefined ? name.length : stem.length) });
  }
  // Folders: any folder on a document's path, by its last part or its full path (longest first).
  for (const folder of facets.folders) {
    if (chips.some((c) => c.kind === 'folder' && (c.folder === folder || c.folder.startsWith(`${folder}/`)))) continue;
    for (const name of new Set([folder.toLowerCase(), folder.split('/').at(-1)!.toLowerCase()])) {
      const at = occurrences(lower, name).find((i) => FOLDER_LEAD.test(lower.slice(0, i)) || (FOLDER_LEAD_SHORT.test(lower.slice(0, i)) && FOLDER_TAIL.test(lower.slice(i + name.length))));
      if (at !== undefined) {
        chips.push({ kind: 'folder', folder, label: folder, matched: words(at, name.length) });
        break;
      }
    }
  }
  // Types: only those the library has.
  for (const t of TYPE_WORDS) {
    const match = t.re.exec(q);
    if (match && facets.types.has(t.type)) chips.push({ kind: 'type', type: t.type, label: t.label, matched: match[1]! });
  }
  // Tags: only tags some document has.
  for (const tag of facets.tags) {
    const name = tag.toLowerCase();
    const at = occurrences(lower, name).find((i) => TAG_LEAD.test(lower.slice(0, i)) || lower[i - 1] === '#');
    if (at !== undefined) chips.push({ kind: 'tag', tag, label: `#${tag}`, matched: lower[at - 1] === '#' ? words(at - 1, name.length + 1) : words(at, name.length) });
  }
  const date = dateChip(q, docs, now);
  if (date) chips.push(date);
  return chips;
}
