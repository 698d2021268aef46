/**
 * The dense retriever on voy-search (a WASM k-d tree; named in the design), behind the same contract as
 * the flat index, for comparison: the flat scan is the app's default, chosen by `npm run bench -- vector`
 * (at 10k vectors voy answered in 12.6 ms where the flat f32 scan took ~6 ms and the binary one ~1 ms,
 * and voy fails to build an index of 100k; its own snapshot of 20k vectors is a ~167 MB string).
 *
 * voy returns neighbours without scores and has no filter: each hit is scored here (the dot product with
 * the vector kept beside the tree: cosine, for normalised vectors, whose nearest neighbours by Euclidean
 * distance are the same), and a filtered search asks voy for more neighbours, falling back to an exact
 * scan of the allowed vectors when too few of them pass. The tree is rebuilt on the first search after a
 * change (voy's own add and remove take the whole resource again). Pure: the voy module is passed in (the
 * bundler build in a browser, `tools/voy-node.ts` in Node).
 */
import { DocQaError } from '../core/errors.ts';
import { asChunkId, type ChunkId, type ModelId } from '../core/ids.ts';
import type { ChunkFilter, Hit, SearchIndex, SearchQuery } from './search-index.ts';
import { topK } from './top-k.ts';
import { byScoreThenChunkId, type VectorEntry } from './vector-index.ts';

/** The part of voy-search's API used here. */
export interface VoyTree {
  search(query: Float32Array, k: number): { neighbors: Array<{ id: string }> };
  serialize(): string;
  free(): void;
}

export interface VoyModule {
  Voy: new (resource?: { embeddings: Array<{ id: string; title: string; url: string; embeddings: number[] }> }) => VoyTree;
}

/** Neighbours asked of voy per hit wanted when a filter may drop some. */
const FILTER_OVERFETCH = 8;

export class VoyIndex implements SearchIndex<VectorEntry> {
  readonly name = 'Dense';
  readonly needsVector = true;
  private vectors = new Map<ChunkId, Float32Array>();
  private tree: VoyTree | undefined;
  private dirty = false;

  constructor(
    private readonly voy: VoyModule,
    readonly model: ModelId,
    readonly dimensions: number,
  ) {}

  get size(): number {
    return this.vectors.size;
  }

  has(chunkId: ChunkId): boolean {
    return this.vectors.has(chunkId);
  }

  add(entries: readonly VectorEntry[]): void {
    for (const e of entries) {
      if (e.vector.length !== this.dimensions || !e.vector.every(Number.isFinite)) {
        throw new DocQaError('invalid-vector', `voy index: the vector of ${e.chunkId} is not ${this.dimensions} finite numbers`);
      }
      this.vectors.set(e.chunkId, Float32Array.from(e.vector));
    }
    if (entries.length) this.dirty = true;
  }

  remove(chunkIds: readonly ChunkId[]): Promise<void> {
    for (const id of chunkIds) if (this.vectors.delete(id)) this.dirty = true;
    return Promise.resolve();
  }

  search(query: SearchQuery, k: number, filter?: ChunkFilter): Promise<Hit[]> {
    const q = query.vector;
    if (!q || this.vectors.size === 0 || k <= 0) return Promise.resolve([]);
    if (q.length !== this.dimensions) throw new DocQaError('invalid-vector', `voy index: a ${q.length}-dimensional question for ${this.dimensions}-dimensional vectors`);
    const tree = this.current();
    const want = Math.min(this.vectors.size, filter ? k * FILTER_OVERFETCH : k);
    const hits: Hit[] = [];
    for (const { id } of tree.search(q, want).neighbors) {
      const chunkId = asChunkId(id);
      const vector = this.vectors.get(chunkId);
      if (vector && (!filter || filter(chunkId))) hits.push({ chunkId, score: dot(vector, q) });
    }
    // Too few allowed among the neighbours (a narrow filter): the allowed vectors are scanned exactly.
    if (filter && hits.length < k && want < this.vectors.size) {
      const all: Hit[] = [];
      for (const [chunkId, vector] of this.vectors) if (filter(chunkId)) all.push({ chunkId, score: dot(vector, q) });
      return Promise.resolve(topK(all, k, byScoreThenChunkId));
    }
    return Promise.resolve(topK(hits, k, byScoreThenChunkId));
  }

  /** voy's own snapshot format (a JSON string), with a version. */
  serialize(): string {
    return JSON.stringify({ version: 1, dimensions: this.dimensions, voy: this.current().serialize() });
  }

  /** Frees the WASM memory of the tree. */
  dispose(): void {
    this.tree?.free();
    this.tree = undefined;
  }

  private current(): VoyTree {
    if (this.tree && !this.dirty) return this.tree;
    this.tree?.free();
    const embeddings = [...this.vectors].map(([id, v]) => ({ id, title: '', url: '', embeddings: Array.from(v) }));
    this.tree = new this.voy.Voy({ embeddings });
    this.dirty = false;
    return this.tree;
  }
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}
