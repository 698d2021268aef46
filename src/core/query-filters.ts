/**
 * Filters read from a question (self-query), shared by the rule-based pass
 * (`question/self-query.ts`), the model's reading (`question/read-filters.ts`), the library that applies
 * them and the page that shows them as removable chips: the chip type, the document as the readers see
 * it, and date ranges (which date, how a range reads, whether a document is inside it).
 */
import type { DocId } from './ids.ts';
import type { DateField, DateRange, DocType, SearchFilter } from './filter-types.ts';

export type { DateField, DateRange } from './filter-types.ts';

/** A document as self-query sees it (the Library list and the store have these). */
export interface QueryableDoc {
  docId: DocId;
  name: string;
  /** Folder path ('' at the top). */
  folder: string;
  type: DocType;
  tags: readonly string[];
  /** When it was added to the library (ms since the epoch); absent: date filters on it leave the document out. */
  addedAt?: number;
  /** The document's own date (PDF ModDate/CreationDate, Word modified/created), when the file has one. */
  date?: number;
}

/**
 * Which date a range is about: when the document was `added` to the library, or the document's own date
 * (`dated`, from its file's properties).
 */

/** One filter found in the question: what it restricts, and the words that asked for it. */
export type QueryChip =
  | { kind: 'document'; docId: DocId; label: string; matched: string }
  | { kind: 'folder'; folder: string; label: string; matched: string }
  | { kind: 'type'; type: DocType; label: string; matched: string }
  | { kind: 'tag'; tag: string; label: string; matched: string }
  /** A date range, `from` inclusive and `before` exclusive (ms since the epoch); either may be open. */
  | { kind: 'date'; field: DateField; from?: number; before?: number; label: string; matched: string };

/** Whether `at` lies in the range (an absent `at` never does). */
export function inRange(at: number | undefined, range: DateRange): boolean {
  if (at === undefined) return false;
  return (range.from === undefined || at >= range.from) && (range.before === undefined || at < range.before);
}

/** The date of `doc` a field reads. */
export function dateOf(doc: Pick<QueryableDoc, 'addedAt' | 'date'>, field: DateField): number | undefined {
  return field === 'added' ? doc.addedAt : doc.date;
}

/**
 * The date a range without a word for it ("from 2023", a model's `from`) is about: the documents' own
 * dates when some document's own date is in it, else when they were added when some was added in it;
 * undefined when no document is in it either way (no filter then: it would empty the library).
 */
export function fieldFor(docs: readonly Pick<QueryableDoc, 'addedAt' | 'date'>[], range: DateRange): DateField | undefined {
  if (docs.some((d) => inRange(d.date, range))) return 'dated';
  if (docs.some((d) => inRange(d.addedAt, range))) return 'added';
  return undefined;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "1 Mar 2024" (local time). */
export function formatDay(at: number): string {
  const d = new Date(at);
  return `${d.getDate()} ${MONTHS[d.getMonth()]} ${d.getFullYear()}`;
}

/**
 * How a range reads on its chip, after "Only": "dated 2023", "added in Mar 2024", "added since 1 Mar
 * 2024", "dated before 1 Jan 2020", "added on 29 Nov 2024", "added 1 Mar 2024 – 9 Mar 2024". A whole
 * calendar year or month reads as that year or month.
 */
export function describeRange(field: DateField, range: DateRange): string {
  const verb = field === 'added' ? 'added' : 'dated';
  const { from, before } = range;
  if (from !== undefined && before !== undefined) {
    const a = new Date(from);
    const b = new Date(before);
    const startOfMonth = a.getDate() === 1 && a.getHours() === 0 && a.getMinutes() === 0;
    if (startOfMonth && a.getMonth() === 0 && b.getTime() === new Date(a.getFullYear() + 1, 0, 1).getTime()) return `${verb} ${a.getFullYear()}`;
    if (startOfMonth && b.getTime() === new Date(a.getFullYear(), a.getMonth() + 1, 1).getTime()) return `${verb} in ${MONTHS[a.getMonth()]} ${a.getFullYear()}`;
    const last = formatDay(before - 1);
    return formatDay(from) === last ? `${verb} on ${last}` : `${verb} ${formatDay(from)} – ${last}`;
  }
  if (from !== undefined) return `${verb} since ${formatDay(from)}`;
  if (before !== undefined) return `${verb} before ${formatDay(before)}`;
  return verb;
}

/** Whether a document passes the date ranges of a filter (see `SearchFilter`). */
export function passesDates(doc: Pick<QueryableDoc, 'addedAt' | 'date'>, filter: { added?: DateRange; dated?: DateRange }): boolean {
  return (!filter.added || inRange(doc.addedAt, filter.added)) && (!filter.dated || inRange(doc.date, filter.dated));
}

/**
 * A date chip for `range` on `field`, unless every document or none is in it (a filter that restricts
 * nothing, or one that empties the library).
 */
export function rangeChip(docs: readonly QueryableDoc[], field: DateField, range: DateRange, matched: string): QueryChip | undefined {
  const inside = docs.filter((d) => inRange(dateOf(d, field), range)).length;
  if (inside === 0 || inside === docs.length) return undefined;
  return { kind: 'date', field, ...(range.from !== undefined && { from: range.from }), ...(range.before !== undefined && { before: range.before }), label: describeRange(field, range), matched };
}

/** How a type reads on its chip ("Only PDF"). */
export const TYPE_LABELS: Record<DocType, string> = { pdf: 'PDF', docx: 'Word', markdown: 'Markdown', html: 'HTML', text: 'Text', image: 'Image' };

/** A document's path: its folder, then its name. */
export const pathOfDoc = (d: Pick<QueryableDoc, 'folder' | 'name'>) => (d.folder ? `${d.folder}/${d.name}` : d.name);

/**
 * Whether a chip still names something the library has (a chip kept from an earlier reading of a question,
 * the documents since changed): its document, a document in its folder, of its type, with its tag, or in
 * its date range.
 */
export function chipHolds(chip: QueryChip, docs: readonly QueryableDoc[]): boolean {
  switch (chip.kind) {
    case 'document':
      return docs.some((d) => d.docId === chip.docId);
    case 'folder':
      return docs.some((d) => d.folder === chip.folder || d.folder.startsWith(`${chip.folder}/`));
    case 'type':
      return docs.some((d) => d.type === chip.type);
    case 'tag':
      return docs.some((d) => d.tags.includes(chip.tag));
    case 'date':
      return docs.some((d) => inRange(dateOf(d, chip.field), chip));
  }
}

/** What a filter reads of a stored document (`DocRecord` has these). */
export interface FilterableDoc {
  id: DocId;
  folder: string;
  type: DocType;
  tags: readonly string[];
  addedAt: number;
  date?: number;
}

/** Documents allowed by a filter; undefined when the filter allows everything. */
export function allowedDocuments(docs: readonly FilterableDoc[], filter: SearchFilter | undefined): Set<DocId> | undefined {
  if (!filter) return undefined;
  const { docIds, folders, types, tags, added, dated } = filter;
  if (!docIds?.length && !folders?.length && !types?.length && !tags?.length && !added && !dated) return undefined;
  const inFolder = (doc: FilterableDoc) => folders!.some((f) => doc.folder === f || doc.folder.startsWith(`${f}/`));
  return new Set(
    docs
      .filter((d) => !docIds?.length || docIds.includes(d.id))
      .filter((d) => !folders?.length || inFolder(d))
      .filter((d) => !types?.length || types.includes(d.type))
      .filter((d) => !tags?.length || tags.some((t) => d.tags.includes(t)))
      .filter((d) => passesDates(d, filter))
      .map((d) => d.id),
  );
}

/** A chip's identity on the page (what a removed chip is remembered by): its kind and label. */
export const chipKey = (c: QueryChip): string => `${c.kind}:${c.label}`;

/** Two date ranges both hold: the later start, the earlier end. */
function bothRanges(a: DateRange | undefined, b: DateRange): DateRange {
  const max = (x?: number, y?: number) => (x === undefined ? y : y === undefined ? x : Math.max(x, y));
  const min = (x?: number, y?: number) => (x === undefined ? y : y === undefined ? x : Math.min(x, y));
  return { from: max(a?.from, b.from), before: min(a?.before, b.before) };
}

/**
 * The filter the chips ask for, added to one already chosen: kinds combine with AND, values of one kind
 * with OR; date ranges on the same date with AND (each narrows it).
 */
export function withChips(filter: SearchFilter, chips: readonly QueryChip[]): SearchFilter {
  const union = <T>(a: readonly T[] | undefined, b: T[]) => (b.length ? [...new Set([...(a ?? []), ...b])] : a ? [...a] : undefined);
  const out: SearchFilter = {
    docIds: union(filter.docIds, chips.flatMap((c) => (c.kind === 'document' ? [c.docId] : []))),
    folders: union(filter.folders, chips.flatMap((c) => (c.kind === 'folder' ? [c.folder] : []))),
    types: union(filter.types, chips.flatMap((c) => (c.kind === 'type' ? [c.type] : []))),
    tags: union(filter.tags, chips.flatMap((c) => (c.kind === 'tag' ? [c.tag] : []))),
  };
  let added = filter.added;
  let dated = filter.dated;
  for (const c of chips) {
    if (c.kind !== 'date') continue;
    if (c.field === 'added') added = bothRanges(added, c);
    else dated = bothRanges(dated, c);
  }
  if (added) out.added = added;
  if (dated) out.dated = dated;
  return out;
}
