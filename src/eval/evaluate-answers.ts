import { buildExtractiveAnswer } from '../generate/extractive-answer.ts';
import { retrievePassages } from '../retrieve/retrieve.ts';
import type { IndexedCollection } from './evaluate.ts';

/** A claim with the documents that support or contradict it (SciFact `claims_dev.jsonl`). */
export interface Claim {
  id: string;
  claim: string;
  citedDocIds: string[];
}

export interface AnswerReport {
  claims: number;
  /** Share of answers whose first citation [1] is a document the claim cites. */
  'cite@1': number;
  /** Share of answers with at least one of their (up to 5) citations in a cited document. */
  'cite_any@5': number;
  /** Share of all citations given that point into a cited document. */
  cite_precision: number;
}

/**
 * Asks every claim through the app's retrieval and answer code (5 passages, as the app does) and checks
 * that the answer cites the documents the claim really comes from.
 */
export async function evaluateAnswers(indexed: IndexedCollection, claims: readonly Claim[]): Promise<AnswerReport> {
  let first = 0;
  let any = 0;
  let good = 0;
  let given = 0;
  const scored = claims.filter((c) => c.citedDocIds.length > 0);
  for (const claim of scored) {
    const cited = new Set(claim.citedDocIds);
    const passages = await retrievePassages(indexed.index, indexed.source, claim.claim, { k: 5 });
    const answer = buildExtractiveAnswer(claim.claim, passages);
    const docs = answer.citations.map((c) => indexed.beirIdOf.get(c.passage.docId) ?? '');
    if (docs[0] !== undefined && cited.has(docs[0])) first++;
    if (docs.some((d) => cited.has(d))) any++;
    good += docs.filter((d) => cited.has(d)).length;
    given += docs.length;
  }
  const share = (n: number, of: number) => (of ? Math.round((n / of) * 10_000) / 10_000 : 0);
  return { claims: scored.length, 'cite@1': share(first, scored.length), 'cite_any@5': share(any, scored.length), cite_precision: share(good, given) };
}
