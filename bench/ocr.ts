/**
 * OCR throughput and memory: scanned PDFs (SciFact abstracts printed as 200-dpi page images, no text
 * layer) read by the app's own ingest, OCR included, in Node (in-process: pdf.js, then tesseract.js in a
 * worker thread) and in Chromium (the app's parse worker on the harness page: one worker reading the files
 * in turn, and two workers sharing them). Pages/s and the peak memory above the idle process while reading
 * (Node: the process's RSS; Chromium: the RSS of the browser's whole process tree). The sides alternate
 * over ROUNDS rounds (which goes first alternates too); a figure is the median of the rounds, with min and
 * max. Standalone: `npx tsx bench/ocr.ts`; in the suite: `npm run bench -- ocr`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { prepareDocument } from '../src/ingest/prepare-document.ts';
import { buildHarness, openHarness, type OpenHarness } from '../tests/support/harness.ts';
import { renderPageImage } from '../tests/support/fixtures.ts';
import type { BenchContext } from './context.ts';
import { runOne } from './report.ts';
import { browserPid, peakAbove, treeRss } from './process-memory.ts';
import { isMain, median, MB, progress, round, scifactDir } from './util.ts';

const ROUNDS = 3;
/** Files and pages per file: 8 pages in all, the first 8 SciFact abstracts, a page each. */
const FILES = 4;
const PAGES_PER_FILE = 2;
/** Longest abstract text kept on a page (11 pt serif, 1-inch margins hold about 4,000 characters). */
const PAGE_CHARS = 2800;

interface Run {
  pagesPerS: number;
  peakBytes: number;
}

/** The scanned PDFs: fixed, so every run reads the same pages. */
async function scannedFiles(): Promise<Array<{ name: string; bytes: Uint8Array }>> {
  const lines = readFileSync(join(scifactDir(), 'corpus.jsonl'), 'utf8').split('\n').filter(Boolean).slice(0, FILES * PAGES_PER_FILE);
  const abstracts = lines.map((l) => JSON.parse(l) as { title: string; text: string });
  const files: Array<{ name: string; bytes: Uint8Array }> = [];
  for (let f = 0; f < FILES; f++) {
    const pdf = await PDFDocument.create();
    for (const { title, text } of abstracts.slice(f * PAGES_PER_FILE, (f + 1) * PAGES_PER_FILE)) {
      const png = await pdf.embedPng(renderPageImage({ paragraphs: [title, text.slice(0, PAGE_CHARS)] }));
      pdf.addPage([612, 792]).drawImage(png, { x: 0, y: 0, width: 612, height: 792 });
    }
    files.push({ name: `scan-${f + 1}.pdf`, bytes: await pdf.save() });
  }
  return files;
}

async function nodeRun(files: ReadonlyArray<{ name: string; bytes: Uint8Array }>): Promise<Run> {
  const t0 = performance.now();
  const { value: pages, peak } = await peakAbove(
    () => process.memoryUsage().rss,
    async () => {
      let n = 0;
      for (const f of files) n += (await prepareDocument({ name: f.name, folder: '', bytes: f.bytes, addedAt: 0 })).doc.pages ?? 0;
      return n;
    },
  );
  return { pagesPerS: pages / ((performance.now() - t0) / 1000), peakBytes: peak };
}

interface HarnessRead {
  ms: number;
  pages: number;
  recognised: number;
  errors: string[];
}

async function chromiumRun(app: OpenHarness, pid: number, files: ReadonlyArray<{ name: string; base64: string }>, workers: number): Promise<Run> {
  const { value, peak } = await peakAbove(
    () => treeRss(pid),
    () => app.page.evaluate(([f, w]) => (window as unknown as { harness: { read(files: unknown, workers: number): Promise<HarnessRead> } }).harness.read(f, w), [files, workers] as const),
  );
  if (value.errors.length) throw new Error(`chromium read failed: ${value.errors.join('; ')}`);
  if (value.recognised !== FILES * PAGES_PER_FILE) throw new Error(`chromium recognised ${value.recognised} pages of ${FILES * PAGES_PER_FILE}`);
  return { pagesPerS: value.pages / (value.ms / 1000), peakBytes: peak };
}

function record(ctx: BenchContext, key: string, runs: Run[]): void {
  const rate = runs.map((r) => r.pagesPerS);
  const peak = runs.map((r) => r.peakBytes / MB);
  ctx.record({
    [`${key}_pages_per_s`]: round(median(rate), 2),
    [`${key}_pages_per_s_min`]: round(Math.min(...rate), 2),
    [`${key}_pages_per_s_max`]: round(Math.max(...rate), 2),
    [`${key}_peak_mb`]: round(median(peak), 0),
    [`${key}_peak_mb_max`]: round(Math.max(...peak), 0),
  });
}

export async function benchOcr(ctx: BenchContext): Promise<void> {
  const files = await scannedFiles();
  const encoded = files.map((f) => ({ name: f.name, base64: Buffer.from(f.bytes).toString('base64') }));
  progress(`ocr: ${FILES} scanned PDFs of ${PAGES_PER_FILE} pages; building the harness page, starting Chromium`);
  await buildHarness();
  const app = await openHarness('dist-harness', 'ocr-harness.html');
  try {
    const pid = browserPid(app.session.profileDir);
    // Warm-up: the engine's files are fetched and compiled once, in each place.
    await nodeRun(files.slice(0, 1));
    await chromiumRun(app, pid, encoded, 1);
    const runs: Record<'node' | 'chromium_w1' | 'chromium_w2', Run[]> = { node: [], chromium_w1: [], chromium_w2: [] };
    for (let r = 0; r < ROUNDS; r++) {
      const sides = [async () => runs.node.push(await nodeRun(files)), async () => runs.chromium_w1.push(await chromiumRun(app, pid, encoded, 1)), async () => runs.chromium_w2.push(await chromiumRun(app, pid, encoded, 2))];
      for (const side of r % 2 ? sides.reverse() : sides) await side();
      progress(`ocr round ${r + 1}: Node ${round(runs.node.at(-1)!.pagesPerS, 2)}, Chromium 1 worker ${round(runs.chromium_w1.at(-1)!.pagesPerS, 2)}, 2 workers ${round(runs.chromium_w2.at(-1)!.pagesPerS, 2)} pages/s`);
    }
    record(ctx, 'ocr_node', runs.node);
    record(ctx, 'ocr_chromium_w1', runs.chromium_w1);
    record(ctx, 'ocr_chromium_w2', runs.chromium_w2);
    const rate = (side: Run[]) => median(side.map((r) => r.pagesPerS));
    ctx.record({
      ocr_pages: FILES * PAGES_PER_FILE,
      ocr_chromium_w1_over_node: round(rate(runs.chromium_w1) / rate(runs.node), 2),
      ocr_chromium_w2_over_w1: round(rate(runs.chromium_w2) / rate(runs.chromium_w1), 2),
    });
  } finally {
    await app.close();
  }
}

if (isMain(import.meta.url)) await runOne('ocr', benchOcr);
