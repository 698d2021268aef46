import { chipHolds, type QueryableDoc, type QueryChip } from '../core/query-filters.ts';
import type { AskRequest, AskStep, DocRecord, SearchFilter } from '../core/types.ts';
import type { Generator } from '../models/generator/generator.ts';
import { readFiltersWithModel } from './read-filters.ts';
import { allowedDocuments, withChips } from '../core/query-filters.ts';

export interface FilterStepOptions extends Pick<AskRequest, 'readFilters' | 'filterChips'> {
  /** The model writing answers; without one, `readFilters` does nothing. */
  generator?: Generator;
  /** The library's documents (read only when filters are read or given). */
  docs: () => Promise<DocRecord[]>;
  /** Each step as it happens. */
  onStep?: (step: AskStep) => void;
  signal?: AbortSignal;
  /** Today, for dates the model reads. Default: the current time. */
  now?: number;
}

/** A stored document as the question's readers see it. */
export const queryableDoc = (d: DocRecord): QueryableDoc => ({ docId: d.id, name: d.name, folder: d.folder, type: d.type, tags: d.tags, addedAt: d.addedAt, date: d.date });

/** Whether the person's filter (with the page's rule-based chips) already asks for what `chip` does. */
function alreadyAsked(chip: QueryChip, filter: SearchFilter | undefined): boolean {
  if (!filter) return false;
  if (chip.kind === 'document') return !!filter.docIds?.includes(chip.docId);
  if (chip.kind === 'folder') return !!filter.folders?.includes(chip.folder);
  if (chip.kind === 'type') return !!filter.types?.includes(chip.type);
  if (chip.kind === 'tag') return !!filter.tags?.includes(chip.tag);
  const range = chip.field === 'added' ? filter.added : filter.dated;
  return !!range && range.from === chip.from && range.before === chip.before;
}

/**
 * Self-query with a model, before retrieval: the filters the model reads from the question
 * (`readFilters`), or those it read before as the person left them (`filterChips`, not read again, each
 * checked to still name something the library has). Chips the person's filter already has (the page's
 * rule-based chips come in it) are left out; the rest restrict the search within the person's filter
 * (their documents intersected), reported as a `filters` step. When the two together would leave no
 * document, the model's reading is dropped: the person's own filter wins. When the search covers one
 * document or none (a library of one, or the person's filter leaves one), the model is not asked.
 */
export async function filtersFor(question: string, filter: SearchFilter | undefined, options: FilterStepOptions): Promise<{ filter: SearchFilter | undefined; steps: AskStep[] }> {
  const reads = options.filterChips !== undefined || (options.readFilters && options.generator);
  if (!reads) return { filter, steps: [] };
  const docs = await options.docs();
  const library = docs.map(queryableDoc);
  const byPerson = allowedDocuments(docs, filter);
  // A reading can only narrow the documents searched, and one that would leave none is dropped: with one
  // document (or none) to search, the model has nothing to read for, and its seconds go to the answer.
  if (options.filterChips === undefined && (byPerson?.size ?? docs.length) <= 1) return { filter, steps: [] };
  const read = options.filterChips ?? (await modelChips(question, options.generator!, library, options));
  const chips = read.filter((c) => chipHolds(c, library) && !alreadyAsked(c, filter));
  if (!chips.length) return { filter, steps: [] };
  const byModel = allowedDocuments(docs, withChips({}, chips)) ?? new Set(docs.map((d) => d.id));
  const both = [...byModel].filter((id) => !byPerson || byPerson.has(id));
  if (!both.length) return { filter, steps: [] };
  const step: AskStep = { type: 'filters', chips, by: 'model' };
  options.onStep?.(step);
  return { filter: { ...filter, docIds: both }, steps: [step] };
}

/** The model's reading; a model that fails to run costs the question its filters, not its answer. */
async function modelChips(question: string, generator: Generator, docs: QueryableDoc[], options: FilterStepOptions): Promise<QueryChip[]> {
  try {
    return await readFiltersWithModel(question, generator, docs, { signal: options.signal, now: options.now });
  } catch (err) {
    console.warn('the model could not read filters from the question; searching without them', err);
    return [];
  }
}
