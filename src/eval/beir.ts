/** Reads a collection in BEIR layout: corpus.jsonl, queries.jsonl, qrels/<split>.tsv. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Qrels } from './metrics.ts';

export interface BeirDoc {
  id: string;
  title: string;
  text: string;
}

export interface BeirCollection {
  corpus: BeirDoc[];
  queries: Map<string, string>;
  qrels: Qrels;
}

function parseJsonl<T>(text: string): T[] {
  return text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);
}

export async function loadBeir(dir: string, split = 'test'): Promise<BeirCollection> {
  const [corpusText, queriesText, qrelsText] = await Promise.all([
    readFile(join(dir, 'corpus.jsonl'), 'utf8'),
    readFile(join(dir, 'queries.jsonl'), 'utf8'),
    readFile(join(dir, 'qrels', `${split}.tsv`), 'utf8'),
  ]);
  const corpus = parseJsonl<{ _id: string; title?: string; text?: string }>(corpusText).map((d) => ({
    id: String(d._id),
    title: d.title ?? '',
    text: d.text ?? '',
  }));
  const queries = new Map(parseJsonl<{ _id: string; text: string }>(queriesText).map((q) => [String(q._id), q.text]));
  const qrels: Qrels = new Map();
  for (const line of qrelsText.split('\n').slice(1)) {
    const [qid, did, score] = line.trim().split('\t');
    if (!qid || !did) continue;
    if (!qrels.has(qid)) qrels.set(qid, new Map());
    qrels.get(qid)!.set(did, Number(score));
  }
  return { corpus, queries, qrels };
}

/** A BEIR record as the file a person would drop: a Markdown document with its title as heading. */
export function beirDocToMarkdown(doc: BeirDoc): string {
  return doc.title ? `# ${doc.title}\n\n${doc.text}\n` : `${doc.text}\n`;
}

/** A claim with the documents that support or contradict it (SciFact `claims_dev.jsonl`). */
export interface Claim {
  id: string;
  claim: string;
  citedDocIds: string[];
  /** Rationale sentences: BEIR document id → indexes into that abstract's sentences. */
  evidence: Map<string, number[]>;
}

interface ClaimRecord {
  id: number | string;
  claim: string;
  cited_doc_ids?: Array<number | string>;
  /** `{ docId: { label, sentences: [[i, j], [k]] } }` (a list of such objects in some releases). */
  evidence?: Record<string, { sentences?: number[][] } | Array<{ sentences?: number[] }>>;
}

function evidenceOf(record: ClaimRecord): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const [docId, value] of Object.entries(record.evidence ?? {})) {
    const sets = Array.isArray(value) ? value.map((v) => v.sentences ?? []) : (value.sentences ?? []);
    out.set(String(docId), [...new Set(sets.flat())].sort((a, b) => a - b));
  }
  return out;
}

/** SciFact's `claims_dev.jsonl` (claims with the documents they cite), when the collection has one. */
export async function loadClaims(dir: string): Promise<Claim[] | undefined> {
  let text: string;
  try {
    text = await readFile(join(dir, 'claims_dev.jsonl'), 'utf8');
  } catch {
    return undefined;
  }
  return parseJsonl<ClaimRecord>(text).map((c) => ({
    id: String(c.id),
    claim: c.claim,
    citedDocIds: (c.cited_doc_ids ?? []).map(String),
    evidence: evidenceOf(c),
  }));
}

/** The question texts of any BEIR-style `queries.jsonl` (`{ "_id", "text" }` a line). */
export async function loadQueryTexts(path: string): Promise<string[]> {
  return parseJsonl<{ text?: string }>(await readFile(path, 'utf8'))
    .map((q) => q.text ?? '')
    .filter((t) => t.trim());
}
