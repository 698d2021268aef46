import type { ChunkId, ModelId } from '../core/ids.ts';
import { asChunkId } from '../core/ids.ts';
import type { LibraryDb } from './schema.ts';

/** A chunk's vector, as embedding hands it to storage. */
export interface StoredVector {
  chunkId: ChunkId;
  vector: Float32Array;
}

/** Records read per request when loading a model's vectors (~1.5 KB each at 384 dimensions). */
const LOAD_PAGE = 2000;

const modelRange = (model: ModelId) => IDBKeyRange.bound([model, ''], [model, '\uffff']);

/**
 * Chunk vectors in IndexedDB, per model: binary (`Float32Array` by structured clone, never JSON). The
 * store is the truth the dense index is loaded from; a vector is only stored while its chunk is, in the
 * same transaction that checks it (a document deleted while its chunks were being embedded leaves nothing).
 */
export class VectorStore {
  constructor(readonly db: LibraryDb) {}

  /**
   * Stores vectors of chunks that are still in the library, in one transaction; returns the chunk ids
   * stored (those whose chunk was deleted meanwhile are left out). A quota error aborts it all.
   */
  async put(model: ModelId, vectors: readonly StoredVector[]): Promise<ChunkId[]> {
    const tx = this.db.transaction(['chunks', 'vectors'], 'readwrite');
    const done = tx.done;
    done.catch(() => undefined);
    try {
      const present = await Promise.all(vectors.map((v) => tx.objectStore('chunks').getKey(v.chunkId)));
      const stored = vectors.filter((_, i) => present[i] !== undefined);
      await Promise.all(stored.map((v) => tx.objectStore('vectors').put({ model, chunkId: v.chunkId, vector: v.vector })));
      await done;
      return stored.map((v) => v.chunkId);
    } catch (err) {
      try {
        tx.abort();
      } catch {
        // Already finished.
      }
      throw (await done.then(() => undefined, (e: unknown) => e)) ?? err;
    }
  }

  /** Chunk ids that have a vector under `model`. */
  async chunkIds(model: ModelId): Promise<ChunkId[]> {
    const keys = await this.db.getAllKeys('vectors', modelRange(model));
    return keys.map((k) => asChunkId(k[1]));
  }

  /** Reads every vector of `model`, a page at a time, handing each page to `onPage`. */
  async load(model: ModelId, onPage: (vectors: StoredVector[]) => void): Promise<void> {
    let after: [string, string] | undefined;
    for (;;) {
      const range = after ? IDBKeyRange.bound(after, [model, '\uffff'], true) : modelRange(model);
      const page = await this.db.getAll('vectors', range, LOAD_PAGE);
      if (!page.length) return;
      onPage(page.map((r) => ({ chunkId: asChunkId(r.chunkId), vector: r.vector })));
      if (page.length < LOAD_PAGE) return;
      const last = page.at(-1)!;
      after = [last.model, last.chunkId];
    }
  }

  /** The vectors of these chunks under `model` (undefined where there is none). */
  async get(model: ModelId, chunkIds: readonly ChunkId[]): Promise<Array<Float32Array | undefined>> {
    const tx = this.db.transaction('vectors');
    const records = await Promise.all(chunkIds.map((id) => tx.store.get([model, id])));
    return records.map((r) => r?.vector);
  }

  /** Deletes every vector of `model` (after a switch to another model completed, or the model was removed). */
  async deleteModel(model: ModelId): Promise<void> {
    await this.db.delete('vectors', modelRange(model));
  }

  /** Models that have vectors stored, with their counts. */
  async models(): Promise<Map<ModelId, number>> {
    const out = new Map<ModelId, number>();
    let cursor = await this.db.transaction('vectors').store.openKeyCursor();
    while (cursor) {
      const model = cursor.key[0] as ModelId;
      out.set(model, (out.get(model) ?? 0) + 1);
      cursor = await cursor.continue();
    }
    return out;
  }
}
