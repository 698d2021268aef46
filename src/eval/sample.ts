/**
 * A small, fixed part of a BEIR collection for tests that run a real model on every CI run: the judged
 * queries taken in qrels order while their relevant documents fit in half of `documents`, then, as
 * distractors, the documents another retriever ranks highest for those queries without being relevant
 * (hard negatives, taken round-robin over the queries), then documents in corpus order. Deterministic
 * when `rank` is, so two runs embed the same texts. With hard negatives the sample ranks nearly as
 * hard as the whole collection, so a model read wrongly shows in its figures.
 */
import type { BeirCollection } from './beir.ts';

export async function sampleCollection(collection: BeirCollection, documents: number, rank?: (query: string) => Promise<string[]>): Promise<BeirCollection> {
  const keep = new Set<string>();
  const qrels: BeirCollection['qrels'] = new Map();
  for (const [qid, relevant] of collection.qrels) {
    if (!collection.queries.has(qid)) continue;
    const wanted = [...relevant].filter(([, score]) => score > 0).map(([id]) => id);
    if (keep.size + wanted.filter((id) => !keep.has(id)).length > documents / 2) break;
    for (const id of wanted) keep.add(id);
    qrels.set(qid, relevant);
  }
  if (rank) {
    const rankings = await Promise.all([...qrels.keys()].map((qid) => rank(collection.queries.get(qid)!)));
    for (let depth = 0; keep.size < documents && rankings.some((r) => depth < r.length); depth++) {
      for (const ranked of rankings) if (keep.size < documents && ranked[depth] !== undefined) keep.add(ranked[depth]!);
    }
  }
  for (const doc of collection.corpus) {
    if (keep.size >= documents) break;
    keep.add(doc.id);
  }
  return { corpus: collection.corpus.filter((d) => keep.has(d.id)), queries: collection.queries, qrels };
}
