/**
 * Retrieval on recognised text: SciFact abstracts printed as scanned pages (200 dpi page images, no text
 * layer, the title in the PDF's metadata and on the page), read by the app's own ingest (OCR included), and
 * searched with SciFact's test queries, next to the same abstracts as text. Prints and writes one JSON object.
 *
 *   npx tsx tools/ocr-retrieval.ts [--docs 300] [--model <folder>] [--scan clean|photocopy] [--data ../shared/data/scifact] [--out file.json]
 *
 * `--scan photocopy` degrades the page images as a photocopy does (grain: ±60 grey and 1 % dropouts; JPEG quality 25).
 *
 * The documents: those relevant to the first test queries (taken in file order until the relevant ones
 * reach half of `--docs`), then other abstracts in corpus order up to `--docs`; the queries: those whose
 * relevant documents are all among them. Modes: bm25, and dense and hybrid with `--model`.
 */
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { PDFDocument } from 'pdf-lib';
import { loadBeir, beirDocToMarkdown, type BeirCollection } from '../src/eval/beir.ts';
import { evaluateRetrieval, indexFiles, withMode, type EvalFile, type EvalMode } from '../src/eval/evaluate.ts';
import { renderPageImage } from '../tests/support/fixtures.ts';
import { loadFolderEmbedder } from './model-folder.ts';
import { scifactDir } from './real-models/dirs.ts';

const { values } = parseArgs({ options: { scan: { type: 'string', default: 'clean' }, docs: { type: 'string', default: '300' }, model: { type: 'string' }, data: { type: 'string' }, out: { type: 'string' } } });
const want = Number(values.docs);
const photocopy = values.scan === 'photocopy';
const full = await loadBeir(values.data ?? scifactDir());

// Documents relevant to the first test queries, then others: a collection where most queries have their answer.
const chosen = new Set<string>();
const queries: string[] = [];
for (const [qid, relevant] of full.qrels) {
  if (chosen.size + relevant.size > want / 2) break;
  queries.push(qid);
  for (const id of relevant.keys()) chosen.add(id);
}
for (const doc of full.corpus) {
  if (chosen.size >= want) break;
  chosen.add(doc.id);
}
const corpus = full.corpus.filter((d) => chosen.has(d.id));
const collection: BeirCollection = { corpus, queries: full.queries, qrels: new Map(queries.map((q) => [q, full.qrels.get(q)!])) };

/** Characters of an abstract a printed page holds with room to spare (11 pt serif, 1-inch margins: ~4,000). */
const PAGE_CHARS = 2800;

/** The abstract as a scanned PDF: its title as the page's first paragraph and as metadata, its text after, a page per PAGE_CHARS. */
async function scannedPdf(title: string, text: string): Promise<Uint8Array> {
  const sentences = text.split(/(?<=[.!?])\s+/);
  const pages: string[][] = [[title]];
  let used = title.length;
  for (const s of sentences) {
    if (used + s.length > PAGE_CHARS) {
      pages.push([]);
      used = 0;
    }
    const page = pages.at(-1)!;
    if (page.length < 2) page.push(s);
    else page[page.length - 1] += ` ${s}`;
    used += s.length + 1;
  }
  const pdf = await PDFDocument.create();
  pdf.setTitle(title);
  for (const paragraphs of pages) {
    const png = photocopy ? await pdf.embedJpg(renderPageImage({ paragraphs, noise: 120, jpegQuality: 0.25 })) : await pdf.embedPng(renderPageImage({ paragraphs }));
    pdf.addPage([612, 792]).drawImage(png, { x: 0, y: 0, width: 612, height: 792 });
  }
  return pdf.save();
}

const encoder = new TextEncoder();
const textFiles: EvalFile[] = corpus.map((d) => ({ id: d.id, name: `${d.id}.md`, folder: '', bytes: encoder.encode(beirDocToMarkdown(d)) }));
const scanFiles: EvalFile[] = await Promise.all(corpus.map(async (d) => ({ id: d.id, name: `${d.id}.pdf`, folder: '', bytes: await scannedPdf(d.title, d.text) })));

const embedder = values.model ? await loadFolderEmbedder(values.model) : undefined;
const modes: EvalMode[] = embedder ? ['bm25', 'dense', 'hybrid'] : ['bm25'];
const mode = embedder ? 'hybrid' : 'bm25';
const results: Record<string, unknown> = { scan: photocopy ? 'photocopy' : 'clean', documents: corpus.length, queries: queries.length };
for (const [name, files] of [
  ['text', textFiles],
  ['scanned', scanFiles],
] as const) {
  const t0 = performance.now();
  const indexed = await indexFiles(files, { mode }, embedder);
  results[`${name}_index_s`] = Math.round((performance.now() - t0) / 100) / 10;
  results[`${name}_skipped`] = indexed.skipped;
  for (const m of modes) results[`${name}_${m}_ndcg@10`] = (await evaluateRetrieval(collection, withMode(indexed, m)))['ndcg@10'];
  process.stderr.write(`${name}: ${JSON.stringify(results)}\n`);
}
for (const m of modes) results[`${m}_scanned_minus_text`] = Math.round(((results[`scanned_${m}_ndcg@10`] as number) - (results[`text_${m}_ndcg@10`] as number)) * 10_000) / 10_000;
console.log(JSON.stringify(results));
if (values.out) await writeFile(values.out, `${JSON.stringify(results, null, 2)}\n`);
process.exit();
