/**
 * What the benchmarks share: the inputs (loaded or generated once) and the indexes the app's pipeline
 * built from them (built once, timed, with the heap they retain), so query and memory figures reuse the
 * ingest run instead of indexing 100k chunks twice.
 */
import MiniSearch from 'minisearch';
import { prepareAhead } from '../src/ingest/prepare-ahead.ts';
import { prepareDocument } from '../src/ingest/prepare-document.ts';
import { LexicalIndex } from '../src/index/lexical-index.ts';
import { CorpusGenerator, loadSciFact, totalBytes, type BenchDoc, type QuerySet } from './corpus.ts';
import { gc, heapUsed, progress, scifactDir, type Figures } from './util.ts';
import { headerTitleOf } from '../src/core/doc-title.ts';

/** The sets the figures are named after. */
export type SetName = '5k' | 'scifact' | '100k';

export interface Corpus {
  docs: BenchDoc[];
  queries: QuerySet;
  bytes: number;
}

export interface PipelineBuild {
  index: LexicalIndex;
  /**
   * Whole pipeline: prepareDocument (parse, clean, chunk, hash) then LexicalIndex.add, per document, the
   * next document prepared while the current one is added (as the app's queue does). `prepareMs` is the
   * time spent waiting for prepared documents, `addMs` the time adding them.
   */
  ms: number;
  prepareMs: number;
  addMs: number;
  /** Chunks produced by prepareDocument (before de-duplication across documents). */
  chunks: number;
  /** Distinct chunks in the index. */
  indexed: number;
  chunksPerDoc: number[];
  /** heapUsed after minus before (both after a full GC): what the index retains. */
  heapBytes: number;
  bytes: number;
}

export interface MiniSearchBuild {
  ms: number;
  heapBytes: number;
  documents: number;
}

/** The app's ingest path over `docs`, exactly as the evaluation CLI runs it. */
export async function pipelineBuild(docs: readonly BenchDoc[]): Promise<PipelineBuild> {
  const before = heapUsed();
  const index = new LexicalIndex();
  const chunksPerDoc: number[] = [];
  let prepareMs = 0;
  let addMs = 0;
  let chunks = 0;
  const t0 = performance.now();
  // As the app's queue does: the next document is prepared while the current one is added.
  let p0 = performance.now();
  for await (const prepared of prepareAhead(docs, (d) => prepareDocument({ name: d.name, folder: '', bytes: d.bytes, addedAt: 0 }))) {
    const p1 = performance.now();
    index.add(prepared.chunks.map((c) => ({ chunkId: c.id, docId: prepared.doc.id, text: c.text, title: headerTitleOf(prepared.doc) })));
    const p2 = performance.now();
    addMs += p2 - p1;
    prepareMs += p1 - p0;
    p0 = p2;
    chunks += prepared.chunks.length;
    chunksPerDoc.push(prepared.chunks.length);
  }
  const ms = performance.now() - t0;
  const heapBytes = heapUsed() - before;
  return { index, ms, prepareMs, addMs, chunks, indexed: index.size, chunksPerDoc, heapBytes, bytes: totalBytes(docs) };
}

/** The baseline: MiniSearch's own `addAll`, default options (its tokenizer and term processing), fields title and text. */
export function miniSearchBuild(docs: readonly BenchDoc[]): MiniSearchBuild {
  const input = docs.map((d, id) => ({ id, title: d.title, text: d.text }));
  const before = heapUsed();
  const t0 = performance.now();
  const ms = new MiniSearch<{ id: number; title: string; text: string }>({ fields: ['title', 'text'] });
  ms.addAll(input);
  const elapsed = performance.now() - t0;
  const heapBytes = heapUsed() - before;
  // Read after the heap figure, so the index is still reachable when it is taken.
  return { ms: elapsed, heapBytes, documents: ms.documentCount };
}

/** Generated corpus sizes (chunks) and seeds; fixed, so every run indexes the same text. */
export const GEN_100K = { seed: 100_000, targetChunks: 100_000, paragraphsPerDoc: 40 };
export const GEN_WARMUP = { seed: 7, targetChunks: 1_500, paragraphsPerDoc: 40 };
export const FIVE_K = 5_000;
export const QUERY_COUNT = 300;

export class BenchContext {
  readonly figures: Figures = {};
  readonly notes: string[] = [];
  private corpora = new Map<SetName, Promise<Corpus>>();
  private builds = new Map<SetName, Promise<PipelineBuild>>();

  record(values: Figures): void {
    Object.assign(this.figures, values);
  }

  note(message: string): void {
    this.notes.push(message);
    progress(`note: ${message}`);
  }

  corpus(set: SetName): Promise<Corpus> {
    let c = this.corpora.get(set);
    if (!c) {
      c = this.loadCorpus(set);
      this.corpora.set(set, c);
    }
    return c;
  }

  private async loadCorpus(set: SetName): Promise<Corpus> {
    if (set === 'scifact') {
      progress(`loading SciFact from ${scifactDir()}`);
      const { docs, queries } = await loadSciFact(scifactDir());
      return { docs, queries, bytes: totalBytes(docs) };
    }
    if (set === '5k') {
      // The first SciFact records whose chunks reach 5k, with SciFact's test queries.
      const full = await this.corpus('scifact');
      const perDoc = (await this.build('scifact')).chunksPerDoc;
      let n = 0;
      for (let sum = 0; n < perDoc.length && sum < FIVE_K; n++) sum += perDoc[n]!;
      const docs = full.docs.slice(0, n);
      return { docs, queries: full.queries, bytes: totalBytes(docs) };
    }
    progress(`generating a corpus of about ${GEN_100K.targetChunks} chunks (seed ${GEN_100K.seed})`);
    const gen = new CorpusGenerator({ seed: GEN_100K.seed, paragraphsPerDoc: GEN_100K.paragraphsPerDoc });
    const { docs } = await gen.corpus(GEN_100K.targetChunks);
    const queries = { name: 'generated', queries: gen.questions(docs, QUERY_COUNT, GEN_100K.seed + 1) };
    return { docs, queries, bytes: totalBytes(docs) };
  }

  /** The pipeline's index over a set, built once (timed, with its retained heap). */
  build(set: SetName): Promise<PipelineBuild> {
    let b = this.builds.get(set);
    if (!b) {
      b = (async () => {
        const { docs, bytes } = await this.corpus(set);
        progress(`pipeline: indexing ${set} (${docs.length} documents, ${(bytes / 1e6).toFixed(1)} MB)`);
        const build = await pipelineBuild(docs);
        progress(`pipeline: ${set} done, ${build.indexed} chunks in ${(build.ms / 1000).toFixed(1)} s`);
        return build;
      })();
      this.builds.set(set, b);
    }
    return b;
  }

  hasBuild(set: SetName): boolean {
    return this.builds.has(set);
  }

  /** Drops a set's corpus and index (the 100k index holds hundreds of MB). */
  release(set: SetName): void {
    this.builds.delete(set);
    this.corpora.delete(set);
    gc();
  }
}

/** A JIT warm-up of both ingest paths on a small generated corpus (its own vocabulary, so SciFact's stem cache stays cold). */
export async function warmUp(): Promise<void> {
  const gen = new CorpusGenerator({ seed: GEN_WARMUP.seed, paragraphsPerDoc: GEN_WARMUP.paragraphsPerDoc });
  const { docs } = await gen.corpus(GEN_WARMUP.targetChunks, 10);
  await pipelineBuild(docs);
  miniSearchBuild(docs);
  gc();
}
