/** The human-readable table of a run's figures (stdout). */
import type { Figures } from './util.ts';

interface Row {
  label: string;
  key: string;
  unit: string;
  /** Pass when the figure satisfies this; shown as the target column. */
  target?: { text: string; ok: (x: number) => boolean };
}

const ingestRows = (p: string, name: string): Row[] => [
  { label: `${name}: documents / MB / chunks`, key: `${p}_docs`, unit: '' },
  { label: `${name}: pipeline (prepare + index)`, key: `${p}_pipeline_ms`, unit: 'ms' },
  { label: `${name}:   of which prepareDocument`, key: `${p}_prepare_ms`, unit: 'ms' },
  { label: `${name}:   of which LexicalIndex.add`, key: `${p}_index_add_ms`, unit: 'ms' },
  { label: `${name}: MiniSearch addAll baseline`, key: `${p}_minisearch_addall_ms`, unit: 'ms' },
  { label: `${name}: pipeline / baseline`, key: `${p}_ratio`, unit: '×', target: { text: '≤ 2', ok: (x) => x <= 2 } },
  { label: `${name}: pipeline throughput`, key: `${p}_mb_per_s`, unit: 'MB/s' },
  { label: `${name}: pipeline throughput`, key: `${p}_chunks_per_s`, unit: 'chunks/s' },
  { label: `${name}: baseline throughput`, key: `${p}_minisearch_mb_per_s`, unit: 'MB/s' },
];

const setRows = (set: string): Row[] => [
  { label: `${set}: chunks in index`, key: `chunks_${set}`, unit: '' },
  { label: `${set}: query p50`, key: `query_p50_ms_${set}`, unit: 'ms' },
  { label: `${set}: query p95`, key: `query_p95_ms_${set}`, unit: 'ms' },
  { label: `${set}: query max`, key: `query_max_ms_${set}`, unit: 'ms' },
  { label: `${set}: heap retained by index`, key: `heap_mb_${set}`, unit: 'MB' },
  { label: `${set}: heap of reloaded snapshot`, key: `heap_mb_loaded_${set}`, unit: 'MB' },
  { label: `${set}: MiniSearch baseline heap`, key: `heap_mb_minisearch_${set}`, unit: 'MB' },
  { label: `${set}: serialized index`, key: `index_bytes_${set}`, unit: 'bytes' },
  { label: `${set}: serialize / load`, key: `serialize_ms_${set}`, unit: 'ms' },
];

const vectorRows = (set: string): Row[] => [
  { label: `${set}: naive JS scan + sort p50 / p95`, key: `naive_js_p50_ms_${set}`, unit: 'ms' },
  { label: `${set}: flat f32 p50 / p95`, key: `flat_f32_p50_ms_${set}`, unit: 'ms' },
  { label: `${set}: flat int8 p50 / p95`, key: `flat_int8_p50_ms_${set}`, unit: 'ms' },
  { label: `${set}: binary + exact re-score p50 / p95`, key: `binary_rescore_p50_ms_${set}`, unit: 'ms' },
  { label: `${set}: voy p50 / p95`, key: `voy_p50_ms_${set}`, unit: 'ms' },
  { label: `${set}: int8 recall@10 vs f32`, key: `int8_recall_at_10_${set}`, unit: '', target: { text: '≥ 0.99', ok: (x) => x >= 0.99 } },
  { label: `${set}: binary re-score recall@10 vs f32`, key: `binary_rescore_recall_at_10_${set}`, unit: '' },
  { label: `${set}: snapshot f32 / int8 / binary`, key: `f32_snapshot_bytes_${set}`, unit: 'bytes' },
  { label: `${set}: load f32 / int8 / binary`, key: `f32_load_ms_${set}`, unit: 'ms' },
];

const ROWS: Array<[string, Row[]]> = [
  ['Ingest, SciFact', ingestRows('scifact', 'SciFact')],
  ['Ingest, generated ~100k chunks', ingestRows('gen100k', 'gen100k')],
  ['Query, memory, snapshot (5k = first SciFact records; 100k = generated)', [...setRows('5k'), ...setRows('scifact'), ...setRows('100k')]],
  [
    'Cold start in headless Chromium (~20k chunks)',
    [
      { label: 'library: files / chunks', key: 'cold_start_files', unit: '' },
      { label: 'populate through the UI', key: 'ui_ingest_ms_20k', unit: 'ms' },
      { label: 'page load → first result (median of 3)', key: 'cold_start_ms_20k', unit: 'ms', target: { text: '< 1500', ok: (x) => x < 1500 } },
      { label: 'page load → library ready (median)', key: 'cold_start_ready_ms_20k', unit: 'ms' },
      { label: 'Ask → first result (median)', key: 'cold_start_ask_ms_20k', unit: 'ms' },
      { label: 'second question, same page (median)', key: 'second_ask_ms_20k', unit: 'ms' },
      { label: 'after relaunching Chromium', key: 'cold_start_ms_20k_relaunch', unit: 'ms' },
      { label: 'snapshot in IndexedDB', key: 'browser_snapshot_bytes_20k', unit: 'bytes' },
    ],
  ],
  [
    'Vector search, top 10, 384 dims (p50 = median of 3 rounds)',
    [
      ...vectorRows('10k'),
      ...vectorRows('100k'),
      ...vectorRows('500k'),
      ...vectorRows('all'),
      { label: "the app's default encoding", key: 'default_encoding', unit: '' },
      { label: '100k: default p50', key: 'default_p50_ms_100k', unit: 'ms', target: { text: '≤ 5', ok: (x) => x <= 5 } },
      { label: '100k: default recall@10 vs exact', key: 'default_recall_at_10_100k', unit: '', target: { text: '≥ 0.99', ok: (x) => x >= 0.99 } },
      { label: 'bytes per vector f32 / int8 / binary', key: 'bytes_per_vector_f32', unit: 'bytes' },
      { label: '100k: best flat vs naive', key: 'speedup_best_flat_vs_naive_100k', unit: '×', target: { text: '≥ 5', ok: (x) => x >= 5 } },
      { label: '100k: best flat vs voy', key: 'speedup_best_flat_vs_voy_100k', unit: '×', target: { text: '≥ 5', ok: (x) => x >= 5 } },
      { label: 'int8 recall@10 at 100k', key: 'int8_recall_at_10', unit: '', target: { text: '≥ 0.99', ok: (x) => x >= 0.99 } },
      { label: 'binary re-score recall@10 at 100k', key: 'binary_rescore_recall_at_10', unit: '' },
    ],
  ],
  [
    'Embedding in Node (CPU), passages of ≤ 96 tokens (median of 3 rounds)',
    [
      { label: 'tiny encoder: batch 1 / batch 32', key: 'embed_tiny_b1_chunks_per_s', unit: 'chunks/s' },
      { label: 'MiniLM-shaped (384 × 6): batch 1 / batch 32', key: 'embed_minilm_shape_b1_chunks_per_s', unit: 'chunks/s' },
    ],
  ],
  [
    'Before the first token (p50 over the queries; median of the rounds; decode excluded)',
    [
      { label: 'rewrite (JSON call, scripted generator)', key: 'answer_rewrite_ms_p50', unit: 'ms' },
      { label: 'retrieval (BM25 top 40 + passages)', key: 'answer_retrieval_ms_p50', unit: 'ms' },
      { label: 'rerank 40: tiny / MiniLM-shaped', key: 'answer_rerank_ms_p50_tiny', unit: 'ms' },
      { label: 'prompt build: no rerank / tiny / MiniLM', key: 'answer_prompt_ms_p50_none', unit: 'ms' },
      { label: 'pre-decode: no rerank / tiny / MiniLM', key: 'pre_decode_ms_p50_no_rerank', unit: 'ms' },
      { label: 'pre-decode MiniLM / no rerank', key: 'pre_decode_ratio_minilm_vs_no_rerank', unit: '×' },
      { label: 'rerank on the answer path: tiny / MiniLM', key: 'answer_rerank_pairs_per_s_tiny', unit: 'pairs/s' },
    ],
  ],
];

/** Keys shown together with the row's key, as "a / b / c". */
const COMPANIONS: Record<string, string[]> = {
  scifact_docs: ['scifact_mb', 'scifact_chunks'],
  gen100k_docs: ['gen100k_mb', 'gen100k_chunks'],
  serialize_ms_5k: ['load_ms_5k'],
  serialize_ms_scifact: ['load_ms_scifact'],
  serialize_ms_100k: ['load_ms_100k'],
  cold_start_files: ['cold_start_chunks'],
  bytes_per_vector_f32: ['bytes_per_vector_int8', 'bytes_per_vector_binary'],
  embed_tiny_b1_chunks_per_s: ['embed_tiny_b32_chunks_per_s'],
  embed_minilm_shape_b1_chunks_per_s: ['embed_minilm_shape_b32_chunks_per_s'],
  answer_rerank_ms_p50_tiny: ['answer_rerank_ms_p50_minilm'],
  answer_prompt_ms_p50_none: ['answer_prompt_ms_p50_tiny', 'answer_prompt_ms_p50_minilm'],
  pre_decode_ms_p50_no_rerank: ['pre_decode_ms_p50_tiny', 'pre_decode_ms_p50'],
  answer_rerank_pairs_per_s_tiny: ['answer_rerank_pairs_per_s_minilm'],
  ...Object.fromEntries(
    ['10k', '100k', '500k'].flatMap((s) => [
      ...['naive_js', 'flat_f32', 'flat_int8', 'binary_rescore', 'voy'].map((p) => [`${p}_p50_ms_${s}`, [`${p}_p95_ms_${s}`]]),
      [`f32_snapshot_bytes_${s}`, [`int8_snapshot_bytes_${s}`, `binary_snapshot_bytes_${s}`]],
      [`f32_load_ms_${s}`, [`int8_load_ms_${s}`, `binary_load_ms_${s}`]],
    ]),
  ),
};

function fmt(x: number | string | null | undefined): string {
  if (x === null || x === undefined) return '—';
  if (typeof x === 'string') return x;
  return Number.isInteger(x) ? x.toLocaleString('en-US') : String(x);
}

export function printTable(figures: Figures, notes: readonly string[]): void {
  const shown = new Set<string>();
  const lines: string[] = [];
  const w = [46, 26, 8, 12];
  const line = (cells: string[]) => lines.push(cells.map((c, i) => (i === 1 ? c.padStart(w[i]!) : c.padEnd(w[i]!))).join('  ').trimEnd());
  for (const [title, rows] of ROWS) {
    const present = rows.filter((r) => r.key in figures);
    if (!present.length) continue;
    lines.push('', `## ${title}`);
    line(['figure', 'value', 'unit', 'target']);
    for (const r of present) {
      const keys = [r.key, ...(COMPANIONS[r.key] ?? [])];
      keys.forEach((k) => shown.add(k));
      const x = figures[r.key];
      const verdict = r.target && typeof x === 'number' ? `${r.target.text} ${r.target.ok(x) ? 'PASS' : 'FAIL'}` : (r.target?.text ?? '');
      line([r.label, keys.map((k) => fmt(figures[k])).join(' / '), r.unit, verdict]);
    }
  }
  const rest = Object.keys(figures).filter((k) => !shown.has(k));
  if (rest.length) {
    lines.push('', '## Other figures');
    for (const k of rest) line([k, fmt(figures[k]), '', '']);
  }
  if (notes.length) {
    lines.push('', '## Notes');
    for (const n of notes) lines.push(`- ${n.split('\n')[0]}`);
  }
  console.log(lines.join('\n'));
}
