/**
 * The library file (decision 0034) in Node: export and import of libraries of 1,000 and 10,000 SciFact
 * documents (the 5,183 records, and again as second copies with a line of their own, for 10,000), each
 * chunk with a 384-dimension vector as bge-small writes them. Stores are fake-indexeddb (held in memory,
 * so the figures are of the app's code and zip.js, not of a browser's disk). Per size:
 * - export MB/s (file bytes per second), against a baseline measured in the same rounds: reading every
 *   record the export reads, in the same batches, without writing anything (the floor of any export);
 * - import MB/s (both passes), and the first pass (every check, nothing written) alone;
 * - peak working memory (heap plus array buffers, an upper bound, in a round of its own), less what the run leaves held (the imported library): bounded by a part, so about the same at
 *   1,000 and 10,000 documents.
 * The rounds alternate which side goes first; each figure is the median of the rounds, with min and max.
 * Standalone: `npx tsx bench/library-file.ts`; in the suite: `npm run bench -- library-file`.
 */
import 'fake-indexeddb/auto';
import { openAsBlob } from 'node:fs';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { asChunkId, asModelId } from '../src/core/ids.ts';
import { prepareDocument } from '../src/ingest/prepare-document.ts';
import { exportLibrary } from '../src/store/library-export.ts';
import { checkLibraryArchive, writeLibraryArchive } from '../src/store/library-import.ts';
import { LibraryStore } from '../src/store/library-store.ts';
import { openLibraryDb, type LibraryDb } from '../src/store/schema.ts';
import { VectorStore } from '../src/store/vector-store.ts';
import { mulberry32 } from '../tools/random.ts';
import type { BenchContext } from './context.ts';
import { loadSciFact, type BenchDoc } from './corpus.ts';
import { gc, isMain, median, MB, progress, round, scifactDir } from './util.ts';

const SIZES = [1000, 10_000];
const ROUNDS = 3;
const DIMENSIONS = 384;
let dbs = 0;

/** A library of generated documents (no vectors) in fake-indexeddb, each stored as the app stores a dropped file. */
export async function libraryOfDocs(docs: readonly BenchDoc[], folder: string): Promise<LibraryDb> {
  const db = await openLibraryDb(`bench-library-of-docs-${dbs++}`);
  const store = new LibraryStore(db);
  for (const [i, doc] of docs.entries()) {
    const [entry] = await store.enqueue([{ name: doc.name, folder, path: `${folder}/${doc.name}`, blob: new Blob([doc.bytes as Uint8Array<ArrayBuffer>]) }]);
    await store.commitDocument(await prepareDocument({ name: doc.name, folder, bytes: doc.bytes, addedAt: 1 }), entry!.id);
    if (i % 1000 === 999) progress(`library of documents: ${i + 1} of ${docs.length} stored`);
  }
  return db;
}

/** A library of `size` SciFact documents, each chunk with a random 384-dimension vector, in fake-indexeddb. */
export async function sciFactLibrary(size: number): Promise<LibraryDb> {
  const { docs } = await loadSciFact(scifactDir());
  const db = await openLibraryDb(`bench-library-file-${size}-${dbs++}`);
  const store = new LibraryStore(db);
  const random = mulberry32(size);
  for (let i = 0; i < size; i++) {
    const doc = docs[i % docs.length]!;
    const copy = Math.floor(i / docs.length);
    const text = copy ? `${new TextDecoder().decode(doc.bytes)}\n\nCopy ${copy + 1} of record ${doc.name}.\n` : new TextDecoder().decode(doc.bytes);
    const name = copy ? `copy-${copy + 1}-${doc.name}` : doc.name;
    const [entry] = await store.enqueue([{ name, folder: 'scifact', path: `scifact/${name}`, blob: new Blob([text]) }]);
    await store.commitDocument(await prepareDocument({ name, folder: 'scifact', bytes: new TextEncoder().encode(text), addedAt: 1 }), entry!.id);
    if (i % 1000 === 999) progress(`library-file: ${i + 1} of ${size} documents stored`);
  }
  const chunkIds = (await db.getAllKeys('chunks')).map((k) => asChunkId(k));
  const vectors = new VectorStore(db);
  for (let at = 0; at < chunkIds.length; at += 500) {
    await vectors.put(
      asModelId('bge-small-en-v1.5'),
      chunkIds.slice(at, at + 500).map((chunkId) => ({ chunkId, vector: Float32Array.from({ length: DIMENSIONS }, () => random() - 0.5) })),
    );
  }
  return db;
}

const level = () => {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};

/** Runs `work` and times it. */
async function timedRun<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  gc();
  const t0 = performance.now();
  const value = await work();
  return { value, ms: performance.now() - t0 };
}

/**
 * Runs `work` once more for its memory: live memory (heap plus array buffers, garbage not yet collected
 * included, so an upper bound) sampled every 5 ms. Returns the peak above the level
 * before, less what `work` leaves held at the end (an import's new library, in fake-indexeddb's memory).
 */
async function livePeak(work: () => Promise<unknown>): Promise<{ peakBytes: number; retainedBytes: number }> {
  gc();
  const before = level();
  let peak = before;
  // No collection per sample: at 10,000 documents each takes long enough to stall the run for minutes.
  const timer = setInterval(() => (peak = Math.max(peak, level())), 5);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  gc();
  const after = level();
  return { peakBytes: Math.max(0, peak - after), retainedBytes: after - before };
}

/** The floor of an export: every record it reads, in its batches, nothing written. */
async function readEverything(db: LibraryDb): Promise<number> {
  let records = 0;
  let after: string | undefined;
  for (;;) {
    const tx = db.transaction(['documents', 'manifests', 'blocks', 'chunks', 'vectors']);
    const docs = await tx.objectStore('documents').getAll(after === undefined ? undefined : IDBKeyRange.lowerBound(after, true), 32);
    if (!docs.length) return records;
    for (const doc of docs) {
      const manifest = await tx.objectStore('manifests').get(doc.id);
      await tx.objectStore('blocks').getAll(IDBKeyRange.bound([doc.id, 0], [doc.id, Infinity]));
      for (const id of new Set(manifest?.chunkIds ?? [])) {
        await tx.objectStore('chunks').get(id);
        records += (await tx.objectStore('vectors').index('by-chunk').getAll(id)).length + 1;
      }
    }
    after = docs[docs.length - 1]!.id;
  }
}

const stats = (values: number[], digits = 1) => ({ median: round(median(values), digits), min: round(Math.min(...values), digits), max: round(Math.max(...values), digits) });

export async function benchLibraryFile(ctx: BenchContext): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'docqa-library-file-'));
  try {
    for (const size of SIZES) {
      progress(`library-file: building a library of ${size} documents`);
      const db = await sciFactLibrary(size);
      const file = join(dir, `library-${size}.docqa.zip`);
      const exportMs: number[] = [];
      const readMs: number[] = [];
      const ratios: number[] = [];
      const exportTo = () => exportLibrary(db, Writable.toWeb(createWriteStream(file)) as WritableStream<Uint8Array>, { libraryName: `bench ${size}` });
      for (let r = 0; r < ROUNDS; r++) {
        const sides = [async () => exportMs.push((await timedRun(exportTo)).ms), async () => readMs.push((await timedRun(() => readEverything(db))).ms)];
        if (r % 2) sides.reverse();
        for (const side of sides) await side();
        ratios.push(exportMs[r]! / readMs[r]!);
        progress(`library-file: ${size} documents, round ${r + 1} of ${ROUNDS}: export ${Math.round(exportMs[r]!)} ms, read ${Math.round(readMs[r]!)} ms`);
      }
      const bytes = (await stat(file)).size;
      const importInto = async () => {
        const target = await openLibraryDb(`bench-library-file-import-${size}-${dbs++}`);
        const t0 = performance.now();
        const checked = await checkLibraryArchive(await openAsBlob(file));
        const checkMs = performance.now() - t0;
        await writeLibraryArchive(checked, target);
        return { target, checkMs };
      };
      const dropTarget = ({ target }: { target: LibraryDb }) => {
        target.close();
        indexedDB.deleteDatabase(target.name);
      };
      const checkMs: number[] = [];
      const importMs: number[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        const run = await timedRun(importInto);
        importMs.push(run.ms);
        checkMs.push(run.value.checkMs);
        dropTarget(run.value);
        progress(`library-file: ${size} documents, import round ${r + 1} of ${ROUNDS}: ${Math.round(run.ms)} ms`);
      }
      const exportMemory = await livePeak(exportTo);
      let imported: { target: LibraryDb } | undefined;
      const importMemory = await livePeak(async () => (imported = await importInto()));
      if (imported) dropTarget(imported);
      const mbps = (ms: number[]) => stats(ms.map((t) => bytes / MB / (t / 1000)));
      const e = mbps(exportMs);
      const i = mbps(importMs);
      const c = mbps(checkMs);
      const ratio = stats(ratios, 2);
      ctx.record({
        [`library_file_${size}_docs_mb`]: round(bytes / MB, 1),
        [`library_file_export_${size}_mb_per_s`]: e.median,
        [`library_file_export_${size}_mb_per_s_min`]: e.min,
        [`library_file_export_${size}_mb_per_s_max`]: e.max,
        [`library_file_export_vs_read_${size}`]: ratio.median,
        [`library_file_export_vs_read_${size}_min`]: ratio.min,
        [`library_file_export_vs_read_${size}_max`]: ratio.max,
        [`library_file_export_${size}_peak_mb`]: round(exportMemory.peakBytes / MB, 1),
        [`library_file_import_${size}_mb_per_s`]: i.median,
        [`library_file_import_${size}_mb_per_s_min`]: i.min,
        [`library_file_import_${size}_mb_per_s_max`]: i.max,
        [`library_file_check_${size}_mb_per_s`]: c.median,
        [`library_file_import_${size}_peak_mb`]: round(importMemory.peakBytes / MB, 1),
        [`library_file_import_${size}_new_library_held_mb`]: round(importMemory.retainedBytes / MB, 1),
      });
      db.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) {
  const { runOne } = await import('./report.ts');
  await runOne('library-file', benchLibraryFile);
}
