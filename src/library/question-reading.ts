import type { QuestionReading, WholeDocumentChoice } from '../core/library-api.ts';
import { chipKey, withChips, type QueryableDoc } from '../core/query-filters.ts';
import type { SearchFilter } from '../core/types.ts';
import { queryableDoc } from '../question/filter-step.ts';
import { readFilters } from '../question/self-query.ts';
import { ambiguousWholeDocument, readWholeDocument, type WholeDocumentQuery } from '../question/whole-document-query.ts';
import type { LibraryStore } from '../store/library-store.ts';

const choiceOf = (query: WholeDocumentQuery | undefined): WholeDocumentChoice | undefined => (query ? { docId: query.docId, docPath: query.docPath } : undefined);

/**
 * Reads a question as the person types it, one part of the library: the filters its words name (the
 * chips shown before the search runs) and the document it would be answered over whole (the "Whole
 * document" toggle and its note), against the library's documents. The documents are read from the store
 * once and kept until the library changes ({@link forget}), so each keystroke reads names, not the store.
 */
export class QuestionReader {
  private docs: Promise<QueryableDoc[]> | undefined;

  constructor(private readonly store: LibraryStore) {}

  /** The documents changed (here or in another tab): the next reading reads them again. */
  forget(): void {
    this.docs = undefined;
  }

  /**
   * The question's reading (see {@link QuestionReading}). `filter`: the person's own; `removed`: keys
   * (`chipKey`) of chips the person removed, which the whole-document reading leaves out of the filter.
   */
  async read(question: string, filter: SearchFilter, removed: readonly string[]): Promise<QuestionReading> {
    const docs = await this.documents();
    // A question with no words names no filter: thousands of names are not read for it.
    const chips = question.trim() ? readFilters(question, docs) : [];
    const without = new Set(removed);
    const chosen = withChips(filter, chips.filter((c) => !without.has(chipKey(c))));
    const recognised = readWholeDocument(question, docs, chosen);
    return {
      chips,
      single: choiceOf(readWholeDocument(question, docs, chosen, true)),
      recognised: choiceOf(recognised),
      ambiguous: recognised ? undefined : ambiguousWholeDocument(question, docs, chosen),
    };
  }

  /** The documents in the Library list's order (the order chips and names are read in). */
  private documents(): Promise<QueryableDoc[]> {
    if (this.docs) return this.docs;
    const docs = this.store.listDocuments().then((list) => list.sort((a, b) => a.addedAt - b.addedAt || a.path.localeCompare(b.path)).map(queryableDoc));
    this.docs = docs;
    // A failed read is not kept: the next keystroke tries again.
    docs.catch(() => {
      if (this.docs === docs) this.docs = undefined;
    });
    return docs;
  }
}
