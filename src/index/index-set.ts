import type { ChunkId, DocId } from '../core/ids.ts';
import type { IndexEntry } from '../core/types.ts';
import { ChunkOwners, type OwnershipChange } from './chunk-owners.ts';
import type { DenseRetriever } from './dense-index.ts';
import { LexicalIndex, type LexicalEntry, type LexicalOptions } from './lexical-index.ts';
import type { SearchIndex } from './search-index.ts';

/** Looks up a chunk's text (to re-index it under a new title) when the change did not come with it. */
export type TextOf = (chunkId: ChunkId) => Promise<string | undefined>;

/**
 * The library's indexes and the one record of who owns each chunk, changed together: documents come
 * and go as index entries (chunk, owner, text, title), and every index sees only chunks: a chunk joins
 * with its first owner and leaves with its last. The dense index is fed vectors separately (embedding
 * happens in the background), but loses a chunk here like every index. Pure: the library keeps one in
 * line with the store, the evaluation builds one in memory.
 */
export class IndexSet {
  /** The dense index of the model in use, once there is one. */
  dense: DenseRetriever | undefined;

  constructor(
    public owners = new ChunkOwners(),
    public lexical = new LexicalIndex(),
  ) {}

  static create(lexical?: LexicalOptions): IndexSet {
    return new IndexSet(new ChunkOwners(), new LexicalIndex(lexical));
  }

  /** The indexes a question is searched in, in the order "Why this passage" lists them. */
  indexes(): SearchIndex[] {
    return this.dense ? [this.lexical, this.dense] : [this.lexical];
  }

  /** Adds owners of chunks (entries carry the chunk texts). Returns the chunks new to the library. */
  async add(entries: readonly IndexEntry[]): Promise<IndexEntry[]> {
    const change = this.owners.add(entries);
    await this.apply(change, textFrom(entries));
    return change.fresh;
  }

  /** Removes owners (entries of a deleted or replaced document, with their texts). */
  async remove(entries: readonly IndexEntry[]): Promise<void> {
    await this.apply(this.owners.remove(entries), textFrom(entries));
  }

  /** Removes documents whole, when only their ids are known (another tab deleted them); `textOf` reads the store. */
  async removeDocuments(docIds: ReadonlySet<DocId>, textOf: TextOf): Promise<void> {
    await this.apply(this.owners.removeDocuments(docIds), textOf);
  }

  /**
   * Carries a change of ownership into every index: fresh chunks into the lexical one (the dense one gets
   * them once embedded), gone chunks out of all, retitled chunks re-indexed under their new title.
   */
  private async apply(change: OwnershipChange, textOf: TextOf): Promise<void> {
    if (change.fresh.length) this.lexical.add(change.fresh.map((e) => ({ chunkId: e.chunkId, text: e.text, title: this.owners.titleOf(e.chunkId) })));
    const retitled: LexicalEntry[] = [];
    for (const r of change.retitled) {
      const text = await textOf(r.chunkId);
      if (text === undefined) console.error(`index: chunk ${r.chunkId} is owned but its text is missing; left under its old title`);
      else retitled.push({ chunkId: r.chunkId, text, title: r.after });
    }
    await this.lexical.retitle(retitled);
    if (change.gone.length) await Promise.all(this.indexes().map((index) => index.remove(change.gone)));
  }
}

/** Looks chunk texts up in the entries a change came with. */
export function textFrom(entries: readonly IndexEntry[]): TextOf {
  let byId: Map<ChunkId, string> | undefined;
  return (chunkId) => {
    byId ??= new Map(entries.map((e) => [e.chunkId, e.text]));
    return Promise.resolve(byId.get(chunkId));
  };
}
