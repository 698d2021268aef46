/**
 * Measures the citation checker's support rule (`src/generate/citations.ts`) on SciFact:
 * `npx tsx tools/citation-support.ts [<dir with claims_dev.jsonl and corpus.jsonl>] [--json]`.
 *
 * The rule: a cited passage supports a sentence when its best run of one or two adjacent sentences holds
 * at least a threshold share of the sentence's content terms (`bestSupport`). Supported pairs: each dev
 * claim with evidence against its rationale sentences alone and against its whole evidence abstract (as
 * a passage). Unsupported pairs: the claim against a random other abstract, and against the other
 * abstract that shares most of its weighted content terms (its nearest lexical neighbour among 5,183: a
 * wrong passage that retrieval would rank first). Prints the true and false positive rates at several
 * thresholds, unweighted and IDF-weighted (document frequencies over the abstracts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { termsOf } from '../src/text/tokenize.ts';
import { bestSupport, overlapShare, weightedTerms } from '../src/generate/citations.ts';
import type { TermStatistics } from '../src/generate/extractive-answer.ts';
import { splitSentences } from '../src/text/split-sentences.ts';
import { mulberry32 } from './random.ts';

const args = process.argv.slice(2);
const dir = args.find((a) => !a.startsWith('--')) ?? '../shared/data/scifact';
const json = args.includes('--json');

interface ClaimRecord {
  id: number;
  claim: string;
  cited_doc_ids: number[];
  evidence: Record<string, Array<{ label: string; sentences: number[] }> | { label: string; sentences: number[][] }>;
}

const lines = (file: string) => readFileSync(join(dir, file), 'utf8').split('\n').filter((l) => l.trim());
const corpus = lines('corpus.jsonl').map((l) => JSON.parse(l) as { _id: string; title: string; text: string });
const claims = lines('claims_dev.jsonl').map((l) => JSON.parse(l) as ClaimRecord);

const docTerms = corpus.map((d) => new Set(termsOf(`${d.title}\n${d.text}`)));
const docSentences = corpus.map((d) => splitSentences(d.text).map((r) => new Set(termsOf(d.text.slice(r.start, r.end)))));
const df = new Map<string, number>();
for (const terms of docTerms) for (const t of terms) df.set(t, (df.get(t) ?? 0) + 1);
const stats: TermStatistics = { documentCount: corpus.length, documentFrequency: (t) => df.get(t) ?? 0 };
const indexOf = new Map(corpus.map((d, i) => [d._id, i]));

interface Pair {
  kind: 'rationale' | 'abstract' | 'random' | 'nearest';
  label?: string;
  unweighted: number;
  weighted: number;
}

const pairs: Pair[] = [];
const random = mulberry32(20261130);
const score = (claim: string, sentences: ReadonlyArray<ReadonlySet<string>>) => ({
  unweighted: bestSupport(weightedTerms(claim), sentences).share,
  weighted: bestSupport(weightedTerms(claim, stats), sentences).share,
});

for (const c of claims) {
  const cited = new Set(c.cited_doc_ids.map(String));
  for (const [docId, value] of Object.entries(c.evidence)) {
    const i = indexOf.get(docId);
    if (i === undefined) continue;
    const sets = Array.isArray(value) ? value : [{ label: value.label, sentences: value.sentences.flat() }];
    const doc = corpus[i]!;
    const sentences = splitSentences(doc.text).map((r) => doc.text.slice(r.start, r.end));
    const rationale = [...new Set(sets.flatMap((s) => s.sentences))].map((k) => sentences[k]).filter((s) => s !== undefined);
    if (rationale.length === 0) continue;
    const label = sets[0]!.label;
    pairs.push({ kind: 'rationale', label, ...score(c.claim, rationale.map((r) => new Set(termsOf(r)))) });
    pairs.push({ kind: 'abstract', label, ...score(c.claim, docSentences[i]!) });
  }
  if (Object.keys(c.evidence).length === 0) continue;
  let other: number;
  do other = Math.floor(random() * corpus.length);
  while (cited.has(corpus[other]!._id));
  pairs.push({ kind: 'random', ...score(c.claim, docSentences[other]!) });
  const weights = weightedTerms(c.claim, stats);
  let best = -1;
  let bestShare = -1;
  docTerms.forEach((terms, j) => {
    if (cited.has(corpus[j]!._id)) return;
    const share = overlapShare(weights, terms);
    if (share > bestShare) [best, bestShare] = [j, share];
  });
  pairs.push({ kind: 'nearest', ...score(c.claim, docSentences[best]!) });
}

const thresholds = [0.3, 0.4, 0.5, 0.6, 0.7];
const rate = (kind: Pair['kind'], measure: 'unweighted' | 'weighted', t: number, label?: string) => {
  const of = pairs.filter((p) => p.kind === kind && (!label || p.label === label));
  return { n: of.length, rate: of.filter((p) => p[measure] >= t).length / of.length };
};
const rows = (['unweighted', 'weighted'] as const).flatMap((measure) =>
  thresholds.map((t) => ({
    measure,
    threshold: t,
    tpr_rationale: rate('rationale', measure, t).rate,
    tpr_rationale_support: rate('rationale', measure, t, 'SUPPORT').rate,
    tpr_rationale_contradict: rate('rationale', measure, t, 'CONTRADICT').rate,
    tpr_abstract: rate('abstract', measure, t).rate,
    fpr_random: rate('random', measure, t).rate,
    fpr_nearest: rate('nearest', measure, t).rate,
  })),
);
const counts = Object.fromEntries((['rationale', 'abstract', 'random', 'nearest'] as const).map((k) => [k, pairs.filter((p) => p.kind === k).length]));
if (json) {
  console.log(JSON.stringify({ counts, rows }));
} else {
  console.log(`pairs: ${JSON.stringify(counts)}`);
  console.log('measure     t    TPR rat. (sup/con)    TPR abstr.  FPR random  FPR nearest');
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`.padStart(6);
  for (const r of rows) {
    console.log(`${r.measure.padEnd(10)}  ${r.threshold.toFixed(1)}  ${pct(r.tpr_rationale)} (${pct(r.tpr_rationale_support)}/${pct(r.tpr_rationale_contradict)})  ${pct(r.tpr_abstract)}      ${pct(r.fpr_random)}      ${pct(r.fpr_nearest)}`);
  }
}
