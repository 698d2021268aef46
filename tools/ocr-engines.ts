/**
 * The OCR engine comparison behind decision 0032: tesseract.js (the app's engine, English integer LSTM
 * model) against PaddleOCR PP-OCRv4 (`@gutenye/ocr-node`, installed outside the project with
 * `npm install --ignore-scripts @gutenye/ocr-node@1.4.8`) on the same pages: SciFact abstracts rendered as
 * printed pages at several resolutions and degradations. Prints CER and seconds per page per condition.
 */
import { createCanvas } from '@napi-rs/canvas';
import { createWorker, OEM } from 'tesseract.js';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
const paddleDir = process.argv[2];
if (!paddleDir) throw new Error('usage: npx tsx tools/ocr-engines.ts <folder of @gutenye/ocr-node> [scifact corpus.jsonl]  (PAGES, CONDS in the environment)');
const Paddle = (await import(join(paddleDir, 'build/index.js'))).default;
const docs = readFileSync(process.argv[3] ?? '../shared/data/scifact/corpus.jsonl', 'utf8').split('\n').filter(Boolean).slice(0, 40).map((l) => JSON.parse(l).text as string);
/** A line as PaddleOCR gives it: its text and its box's corners. */
interface PaddleLine {
  text: string;
  box: number[][];
}
const PAGES = Number(process.env.PAGES ?? 3);
function render(text: string, dpi: number, cond: string) {
  const s = dpi / 72; const W = Math.round(612 * s), H = Math.round(792 * s);
  const c = createCanvas(W, H); const g = c.getContext('2d');
  g.fillStyle = '#fff'; g.fillRect(0, 0, W, H);
  if (cond === 'skew') { g.translate(W / 2, H / 2); g.rotate((2.5 * Math.PI) / 180); g.translate(-W / 2, -H / 2); }
  g.fillStyle = '#000'; g.font = `${11 * s}px serif`;
  let y = 72 * s; const lines: string[] = []; let line = '';
  for (const w of text.split(/\s+/)) { const t = line ? `${line} ${w}` : w; if (g.measureText(t).width > W - 144 * s) { lines.push(line); line = w; } else line = t; }
  lines.push(line);
  const kept: string[] = [];
  for (const l of lines) { if (y > H - 72 * s) break; g.fillText(l, 72 * s, y); kept.push(l); y += 14 * s; }
  if (cond === 'noise' || cond === 'photocopy') {
    const img = g.getImageData(0, 0, W, H); const d = img.data; let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    for (let i = 0; i < d.length; i += 4) { const v = Math.max(0, Math.min(255, d[i]! + (rnd() - 0.5) * 120 + (rnd() < 0.01 ? -200 : 0))); d[i] = d[i + 1] = d[i + 2] = v; }
    g.putImageData(img, 0, 0);
  }
  const buf: Buffer = cond === 'jpeg' || cond === 'photocopy' ? c.toBuffer('image/jpeg', 25) : c.toBuffer('image/png');
  return { buf, truth: kept.join(' ') };
}
function lev(a: string, b: string) { const m = a.length, n = b.length; let prev = new Array(n + 1).fill(0).map((_, j) => j); for (let i = 1; i <= m; i++) { const cur = [i]; for (let j = 1; j <= n; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)); prev = cur; } return prev[n]!; }
const norm = (s: string) => s.replace(/\s+/g, ' ').trim();
const tess = await createWorker('eng', OEM.LSTM_ONLY, { langPath: 'node_modules/@tesseract.js-data/eng/4.0.0_best_int', gzip: true, cacheMethod: 'none' });
const paddle = await Paddle.create({});
const pagesDir = join(tmpdir(), 'ocr-engines-pages');
mkdirSync(pagesDir, { recursive: true });
const conds = (process.env.CONDS ?? 'clean200,clean300,clean150,noise,jpeg,photocopy,skew').split(',');
for (const condDpi of conds) {
  const dpi = Number(condDpi.match(/\d+$/)?.[0] ?? 200); const cond = condDpi.replace(/\d+$/, '');
  const res: Record<string, { err: number; len: number; ms: number }> = { tesseract: { err: 0, len: 0, ms: 0 }, paddle: { err: 0, len: 0, ms: 0 } };
  for (let p = 0; p < PAGES; p++) {
    const { buf, truth } = render(docs.slice(p * 3, p * 3 + 3).join(' '), dpi, cond);
    const path = `${pagesDir}/${condDpi}-${p}.${cond === 'jpeg' || cond === 'photocopy' ? 'jpg' : 'png'}`; writeFileSync(path, buf);
    let t = Date.now(); const r = await tess.recognize(buf); res.tesseract!.ms += Date.now() - t;
    res.tesseract!.err += lev(norm(r.data.text), truth); res.tesseract!.len += truth.length;
    t = Date.now(); const lines = (await paddle.detect(path)) as PaddleLine[]; res.paddle!.ms += Date.now() - t;
    // In reading order: by the top of each line's box.
    const ptext = norm(lines.sort((a, b) => a.box[0]![1]! - b.box[0]![1]!).map((l) => l.text).join(' '));
    res.paddle!.err += lev(ptext, truth); res.paddle!.len += truth.length;
    if (p === 0 && process.env.SHOW) console.log('PADDLE', ptext.slice(0, 300), '\nTESS', norm(r.data.text).slice(0, 300));
  }
  for (const [e, v] of Object.entries(res)) console.log(condDpi.padEnd(10), e.padEnd(10), 'CER', (100 * v.err / v.len).toFixed(2) + '%', 's/page', (v.ms / PAGES / 1000).toFixed(2));
}
await tess.terminate();
