import { headedText } from '../core/doc-title.ts';
import { serializeError } from '../core/errors.ts';
import type { ChunkId, DocId, ModelId } from '../core/ids.ts';
import type { ErrorCode } from '../core/errors.ts';
import type { EmbeddingEvent, LibraryEvent } from '../core/types.ts';
import type { ChunkEmbedder } from '../embed/chunk-embedder.ts';
import { checkVectors } from '../models/encoder/pool.ts';
import { DenseIndex, type DenseRetriever } from '../index/dense-index.ts';
import type { LibraryStore } from '../store/library-store.ts';
import type { VectorStore } from '../store/vector-store.ts';
import type { IndexKeeper } from './index-keeper.ts';

export interface EmbeddingOptions {
  /**
   * Where a tab that does not embed (not the writer) reports its state: its own page only, so pages
   * hear the writer's progress, not every tab's. Default: the library's `emit`.
   */
  notifyPage?: (event: LibraryEvent) => void;
  /**
   * Chunks per embedding call and per stored transaction. Default 32; range 1–256. A number, or per
   * device (the device the model runs on, `embedding.deviceKind`): WASM gains nothing from big batches
   * and a question waits behind one, a GPU gains from them.
   */
  batchSize?: number | { wasm: number; webgpu: number };
  /** Longest wait for a question's vector before it is searched with BM25 alone. Default 10 000 ms. */
  queryTimeoutMs?: number;
}

/**
 * Chunks read at a time, in batches: a document's chunks are embedded `batchSize` at a time, but each
 * window of this many batches is sorted by text length first, so a batch holds texts of like length and
 * pads little. On real manuals (750 pages of Debian's Python, PostgreSQL, Policy, Git and SQLite manuals,
 * bge-small's tokens) batches of 8 in document order held 1.46× the tokens of their texts; sorted within
 * windows of 8 batches, 1.22× (and within whole documents, 1.20×). A batch 32 of mixed lengths embedded
 * 1.35× faster sorted than in input order in Chromium (`npm run bench -- embed --model <folder>`).
 */
const SORT_WINDOW_BATCHES = 8;

/** A batch of work: chunks of one document (the first that holds them) still without a vector. */
interface DocWork {
  docId: DocId;
  path: string;
  chunks: ChunkId[];
  total: number;
}

/**
 * Semantic search's background work. With a model in use, every chunk of the library gets a vector, in
 * the background after its document is committed: documents in the order they were added, `batchSize`
 * chunks at a time, each batch stored in one transaction and then added to the dense index. Identical
 * chunk texts are one chunk (ids are content hashes), so one vector. It resumes after a reload from what
 * the store holds, never blocks questions (a chunk without a vector is still found by BM25), and only the
 * writer tab embeds; other tabs load the vectors it stores. A chunk is embedded as BM25 indexes it, after
 * its document's title (`headedText`); a chunk whose title changes later (its first owner deleted) keeps
 * its vector, as do vectors stored before titles were embedded (both still rank: the title moves a vector
 * little).
 */
export class Embedding {
  private embedder: ChunkEmbedder | undefined;
  private writer = false;
  private running: Promise<void> | undefined;
  private again = false;
  private last: EmbeddingEvent = { type: 'embedding', state: 'off', done: 0, total: 0 };
  /** Called when every chunk has a vector of the model in use (a switch of models completes then). */
  onReady: ((model: ModelId) => Promise<void> | void) | undefined;

  constructor(
    private readonly store: LibraryStore,
    private readonly vectors: VectorStore,
    private readonly keeper: IndexKeeper,
    private readonly emit: (event: LibraryEvent) => void,
    private readonly options: EmbeddingOptions = {},
  ) {
    keeper.onChunksAdded = () => this.wake();
  }

  /** The state last reported. */
  get status(): EmbeddingEvent {
    return this.last;
  }

  get model(): ChunkEmbedder['model'] | undefined {
    return this.embedder?.model;
  }

  /**
   * Uses a model from now on (or none): its stored vectors are loaded into a new dense index, which
   * questions use at once, then the chunks still without one are embedded (writer tab only). Vectors of
   * another model stay stored until `forgetModel`: search keeps working during a switch.
   */
  async use(embedder: ChunkEmbedder | undefined): Promise<void> {
    this.embedder = embedder;
    if (!embedder) {
      this.keeper.set.dense = undefined;
      this.report({ state: 'off', done: 0, total: 0 });
      return;
    }
    const dense = DenseIndex.create(embedder.model.id, embedder.model.dims);
    await this.vectors.load(embedder.model.id, (page) => dense.add(page.filter((v) => this.keeper.owners.has(v.chunkId))));
    if (this.embedder !== embedder) return;
    this.keeper.set.dense = dense;
    this.wake();
  }

  startWriting(): void {
    this.writer = true;
    this.wake();
  }

  stopWriting(): void {
    this.writer = false;
  }

  /** New chunks (or a model): embeds what lacks a vector; in other tabs, picks up vectors the writer stored. */
  wake(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          if (this.writer) await this.embedMissing();
          else await this.loadStored();
        } while (this.again);
      } catch (err) {
        const error = serializeError(err);
        if (error.code === 'internal') console.error('embedding stopped', err);
        this.report({ state: 'failed', message: `${error.message}. Search still works, by keywords only.` });
      } finally {
        this.running = undefined;
      }
    })();
  }

  /** Waits until the queue of chunks to embed is empty (or embedding failed). For tools and tests. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** The question's vector; undefined without a model, or when embedding it failed or took too long. */
  async queryVector(text: string): Promise<Float32Array | undefined> {
    const embedder = this.embedder;
    if (!embedder || !this.keeper.set.dense?.size) return undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), this.options.queryTimeoutMs ?? 10_000);
    });
    try {
      return await Promise.race([embedder.embedQuery(text), timeout]);
    } catch (err) {
      console.warn('question not embedded; searching by keywords only', err);
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Documents in the order they were added, each with its chunks that have no vector yet. */
  private async plan(dense: DenseRetriever): Promise<{ work: DocWork[]; done: number; total: number }> {
    const docs = await this.store.listDocuments();
    docs.sort((a, b) => a.addedAt - b.addedAt || (a.id < b.id ? -1 : 1));
    const byDoc = this.keeper.owners.chunksByDocument();
    const planned = new Set<ChunkId>();
    const work: DocWork[] = [];
    for (const doc of docs) {
      const chunks = (byDoc.get(doc.id) ?? []).filter((id) => !dense.has(id) && !planned.has(id));
      for (const id of chunks) planned.add(id);
      if (chunks.length) work.push({ docId: doc.id, path: doc.path, chunks, total: byDoc.get(doc.id)?.length ?? chunks.length });
    }
    const total = this.keeper.owners.size;
    return { work, done: total - planned.size, total };
  }

  private async embedMissing(): Promise<void> {
    const embedder = this.embedder;
    const dense = this.keeper.set.dense;
    if (!embedder || !dense || dense.model !== embedder.model.id) return;
    const option = this.options.batchSize ?? 32;
    const wanted = typeof option === 'number' ? option : option[this.deviceKind === 'webgpu' ? 'webgpu' : 'wasm'];
    const batchSize = Math.max(1, Math.min(256, wanted));
    const { work, done: before, total } = await this.plan(dense);
    let done = before;
    const started = Date.now();
    let embeddedHere = 0;
    for (const doc of work) {
      let docDone = doc.total - doc.chunks.length;
      const advance = (step: number) => {
        done += step;
        docDone += step;
        embeddedHere += step;
        const rate = embeddedHere / Math.max(1, Date.now() - started);
        this.report({
          state: 'embedding',
          done,
          total,
          etaMs: embeddedHere >= batchSize ? Math.round((total - done) / rate) : undefined,
          doc: { path: doc.path, done: docDone, total: doc.total },
        });
      };
      const window = batchSize * SORT_WINDOW_BATCHES;
      for (let w = 0; w < doc.chunks.length; w += window) {
        if (this.embedder !== embedder || !this.writer) return;
        const windowIds = doc.chunks.slice(w, w + window);
        const ids = windowIds.filter((id) => this.keeper.owners.has(id) && !dense.has(id));
        const records = await this.store.getChunks(ids);
        // Texts of like length together: a batch is padded to its longest text (see SORT_WINDOW_BATCHES).
        const present = ids
          .map((id, j) => ({ id, text: records[j]?.text }))
          .filter((c): c is { id: ChunkId; text: string } => c.text !== undefined)
          .sort((a, b) => a.text.length - b.text.length);
        // Chunks gone or already embedded count as done with the window's first batch.
        let uncounted = windowIds.length - present.length;
        if (present.length === 0) advance(uncounted);
        for (let i = 0; i < present.length; i += batchSize) {
          if (this.embedder !== embedder || !this.writer) return;
          const slice = present.slice(i, i + batchSize);
          // A chunk deleted since the window was read is not embedded (a Delete stops the work at once).
          const batch = slice.filter((c) => this.keeper.owners.has(c.id) && !dense.has(c.id));
          if (batch.length) {
            const data = await embedder.embedChunks(batch.map((c) => headedText(this.keeper.owners.titleOf(c.id), c.text)));
            const dims = embedder.model.dims;
            // NaN, infinite or wrong-length vectors are refused before anything is stored.
            checkVectors(data, batch.length, data.length / batch.length, dims, embedder.model.id);
            const vectors = batch.map((c, j) => ({ chunkId: c.id, vector: data.slice(j * dims, (j + 1) * dims) }));
            const stored = new Set(await this.vectors.put(embedder.model.id, vectors));
            // A chunk deleted while it was embedded is neither stored nor indexed.
            dense.add(vectors.filter((v) => stored.has(v.chunkId) && this.keeper.owners.has(v.chunkId)));
          }
          advance(slice.length + uncounted);
          uncounted = 0;
        }
      }
    }
    this.report({ state: 'ready', done: dense.size, total: this.keeper.owners.size });
    if (this.embedder === embedder) await this.onReady?.(embedder.model.id);
  }

  /** Another tab embeds: adds the vectors it stored since, drops those of chunks gone. */
  private async loadStored(): Promise<void> {
    const embedder = this.embedder;
    const dense = this.keeper.set.dense;
    if (!embedder || !dense) return;
    const ids = (await this.vectors.chunkIds(embedder.model.id)).filter((id) => !dense.has(id) && this.keeper.owners.has(id));
    const found = await this.vectors.get(embedder.model.id, ids);
    dense.add(ids.flatMap((chunkId, i) => (found[i] ? [{ chunkId, vector: found[i] }] : [])));
    const total = this.keeper.owners.size;
    this.report({ state: dense.size >= total ? 'ready' : 'embedding', done: dense.size, total });
  }

  /** Reports a state again as it was (after a reranker's download showed as `loading`). */
  restore(status: EmbeddingEvent): void {
    this.report({ ...status, reranker: this.last.reranker });
  }

  /** The reranker in use, named in every report from now on (reported at once). */
  set reranker(label: string | undefined) {
    this.last = { ...this.last, reranker: label };
    if (this.last.state !== 'loading') this.report({ state: this.last.state });
  }

  /** A model is being downloaded or loaded (by the model manager): reported as `loading`. */
  loading(model: string, download?: EmbeddingEvent['download']): void {
    this.report({ state: 'loading', model, download });
  }

  /** Loading a model failed: reported with the reason; search goes on by keywords. */
  failed(message: string, model?: string, code?: ErrorCode): void {
    this.report({ state: 'failed', model, message, ...(code ? { code } : {}) });
  }

  /** Reports a state; figures not given keep their last values (an ETA or a document only when given). */
  private report(figures: Partial<Omit<EmbeddingEvent, 'type'>> & Pick<EmbeddingEvent, 'state'>): void {
    this.last = { type: 'embedding', model: this.embedder?.model.label, device: this.last.device, reranker: this.last.reranker, done: this.last.done, total: this.last.total, ...figures };
    if (this.writer) this.emit(this.last);
    else (this.options.notifyPage ?? this.emit)(this.last);
  }

  /** Where the model runs, and why: shown with the state from now on. */
  set device(notice: string | undefined) {
    this.last = { ...this.last, device: notice };
    this.deviceKind = notice?.startsWith('WebGPU') ? 'webgpu' : 'wasm';
  }

  /** The kind of device the model runs on (from its notice), for the batch size. */
  private deviceKind: 'wasm' | 'webgpu' = 'wasm';
}
