/**
 * Self-query, the rule-based pass (issue 8 §4): filters read from the question itself, matched against
 * the library's real metadata, so "when is the rent due in lease.pdf?" searches lease.pdf only. Used when
 * no model is loaded (and as the model's fallback). Rules are narrow on purpose, because a wrong filter
 * hides the answer: a document by its full file name ("lease.pdf"), or by its name without the extension
 * after "in", "from" or "according to" ("in the lease"); a folder after "in (the) folder" or before
 * "folder"; a type only in plural or "… files" form ("PDFs", "Word documents", "Markdown files"), which
 * asks about the kind of file rather than mentioning it; a tag after "tagged" or "with (the) tag", or
 * written "#tax". The page shows each as a removable chip before the search runs.
 */
import type { DocId } from '../core/ids.ts';
import type { DocType, SearchFilter } from '../core/types.ts';

/** A document as self-query sees it (the Library list has these). */
export interface QueryableDoc {
  docId: DocId;
  name: string;
  /** Folder path ('' at the top). */
  folder: string;
  type: DocType;
  tags: readonly string[];
}

/** One filter found in the question: what it restricts, and the words that asked for it. */
export type QueryChip =
  | { kind: 'document'; docId: DocId; label: string; matched: string }
  | { kind: 'folder'; folder: string; label: string; matched: string }
  | { kind: 'type'; type: DocType; label: string; matched: string }
  | { kind: 'tag'; tag: string; label: string; matched: string };

const TYPE_WORDS: Array<{ type: DocType; label: string; re: RegExp }> = [
  { type: 'pdf', label: 'PDF', re: /\b(pdfs|pdf (?:files|documents))\b/iu },
  { type: 'docx', label: 'Word', re: /\b(word (?:files|documents|docs)|docx files|docx)\b/iu },
  { type: 'markdown', label: 'Markdown', re: /\b(markdown (?:files|notes|documents)|md files)\b/iu },
  { type: 'html', label: 'HTML', re: /\b(html (?:files|pages|documents)|web pages)\b/iu },
  { type: 'text', label: 'Text', re: /\b((?:plain )?text files|txt files)\b/iu },
];

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');
/** Word boundaries that also hold next to dots and non-ASCII letters. */
const bounded = (inner: string) => new RegExp(`(?<![\\p{L}\\p{N}_])(${inner})(?![\\p{L}\\p{N}_])`, 'iu');
const stemOf = (name: string) => name.replace(/\.[^.]+$/u, '');

/** The filters a question asks for, from the library's documents; each kind at most once per value. */
export function readFilters(question: string, docs: readonly QueryableDoc[]): QueryChip[] {
  const chips: QueryChip[] = [];
  const q = question.normalize('NFC');
  // Documents: a full file name anywhere; a name without extension (≥ 3 characters, not shared by two
  // documents) after "in", "from", "according to", optionally "the", then optionally "file"/"document".
  const stems = new Map<string, number>();
  for (const d of docs) stems.set(stemOf(d.name).toLowerCase(), (stems.get(stemOf(d.name).toLowerCase()) ?? 0) + 1);
  for (const d of docs) {
    const full = bounded(escape(d.name)).exec(q);
    const stem = stemOf(d.name);
    const unique = stems.get(stem.toLowerCase()) === 1 && stem.length >= 3 && stem !== d.name;
    const byStem = unique ? bounded(`(?:in|from|according to|within)\\s+(?:the\\s+)?${escape(stem)}(?:\\s+(?:file|document|doc|report|pdf))?`).exec(q) : null;
    const match = full ?? byStem;
    if (match && !chips.some((c) => c.kind === 'document' && c.docId === d.docId)) chips.push({ kind: 'document', docId: d.docId, label: d.folder ? `${d.folder}/${d.name}` : d.name, matched: match[1]! });
  }
  // Folders: any folder on a document's path, by its last part or its full path.
  const folders = new Set<string>();
  for (const d of docs) {
    const parts = d.folder.split('/').filter(Boolean);
    for (let i = 1; i <= parts.length; i++) folders.add(parts.slice(0, i).join('/'));
  }
  for (const folder of [...folders].sort((a, b) => b.length - a.length)) {
    const last = folder.split('/').at(-1)!;
    const names = folder === last ? escape(folder) : `${escape(folder)}|${escape(last)}`;
    const match = bounded(`(?:in|under|from)\\s+(?:the\\s+|my\\s+)?folder\\s+(?:${names})|(?:in|under|from)\\s+(?:the\\s+|my\\s+)?(?:${names})\\s+folder`).exec(q);
    if (match && !chips.some((c) => c.kind === 'folder' && (c.folder === folder || c.folder.startsWith(`${folder}/`)))) chips.push({ kind: 'folder', folder, label: folder, matched: match[1]! });
  }
  // Types: only those the library has.
  const types = new Set(docs.map((d) => d.type));
  for (const t of TYPE_WORDS) {
    const match = t.re.exec(q);
    if (match && types.has(t.type)) chips.push({ kind: 'type', type: t.type, label: t.label, matched: match[1]! });
  }
  // Tags: only tags some document has.
  for (const tag of new Set(docs.flatMap((d) => d.tags))) {
    const match = bounded(`tagged\\s+["“]?${escape(tag)}["”]?|with\\s+(?:the\\s+)?tag\\s+["“]?${escape(tag)}["”]?`).exec(q) ?? new RegExp(`(?<![\\p{L}\\p{N}_])(#${escape(tag)})(?![\\p{L}\\p{N}_])`, 'iu').exec(q);
    if (match) chips.push({ kind: 'tag', tag, label: `#${tag}`, matched: match[1]! });
  }
  return chips;
}

/** The filter the chips ask for, added to one already chosen: kinds combine with AND, values of one kind with OR. */
export function withChips(filter: SearchFilter, chips: readonly QueryChip[]): SearchFilter {
  const union = <T>(a: readonly T[] | undefined, b: T[]) => (b.length ? [...new Set([...(a ?? []), ...b])] : a ? [...a] : undefined);
  return {
    docIds: union(filter.docIds, chips.flatMap((c) => (c.kind === 'document' ? [c.docId] : []))),
    folders: union(filter.folders, chips.flatMap((c) => (c.kind === 'folder' ? [c.folder] : []))),
    types: union(filter.types, chips.flatMap((c) => (c.kind === 'type' ? [c.type] : []))),
    tags: union(filter.tags, chips.flatMap((c) => (c.kind === 'tag' ? [c.tag] : []))),
  };
}
