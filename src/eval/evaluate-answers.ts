import type { Answer } from '../core/types.ts';
import { extractiveAnswerer, type Answerer } from '../generate/answerer.ts';
import { splitSentences } from '../text/split-sentences.ts';
import { retrievePassages } from '../retrieve/retrieve.ts';
import type { BeirDoc, Claim } from './beir.ts';
import { queryOf, type IndexedCollection } from './evaluate.ts';

export type { Claim } from './beir.ts';

export interface AnswerReport {
  claims: number;
  /** Share of claims that got an answer (the rest: "Not found in your documents."). */
  answered_rate: number;
  /** Share of claims whose first citation [1] is a document the claim cites (a not-found answer cites nothing). */
  'cite@1': number;
  /** The same among the claims answered: how often an answer given starts with a right document. */
  'cite@1_answered': number;
  /** Share of claims with at least one of their citations in a cited document. */
  cite_any: number;
  /** Share of all citations given that point into a cited document. */
  cite_precision: number;
  /** Mean number of sentences an answer quotes (over answers found). */
  sentences_per_answer: number;
  /** Claims with rationale sentences that were answered: what `evidence_sentence_rate` is measured on. */
  evidence_claims: number;
  /** Share of the sentences quoted for those claims that are one of the claim's rationale sentences. */
  evidence_sentence_rate: number;
}

/** Case, spacing and punctuation do not make a sentence different. */
function normalise(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}

/**
 * Whether a quoted sentence is a rationale sentence: the same normalised text, or one inside the other
 * (at least 20 characters), so a sentence the app's splitter cuts or joins differently still counts.
 */
export function isRationale(quote: string, rationale: readonly string[]): boolean {
  const q = normalise(quote);
  return rationale.some((r) => r === q || (Math.min(r.length, q.length) >= 20 && (r.includes(q) || q.includes(r))));
}

/**
 * The claim's rationale sentences, normalised. SciFact numbers the sentences of each abstract; BEIR's
 * corpus joins them into one text, which the app's sentence splitter cuts again (`i`-th sentence).
 */
export function rationaleSentences(claim: Claim, corpus: ReadonlyMap<string, BeirDoc>): string[] {
  const out: string[] = [];
  for (const [docId, indexes] of claim.evidence) {
    const text = corpus.get(docId)?.text ?? '';
    const sentences = splitSentences(text).map(({ start, end }) => normalise(text.slice(start, end)));
    for (const i of indexes) if (sentences[i] !== undefined) out.push(sentences[i]);
  }
  return out;
}

/** The quoted sentences of an answer, as text. */
export function quotesOf(answer: Answer): string[] {
  return answer.citations.flatMap((c) => c.quotes.map(({ start, end }) => c.passage.window.slice(start, end)));
}

const share = (n: number, of: number) => (of ? Math.round((n / of) * 10_000) / 10_000 : 0);

/**
 * Asks every claim through the app's retrieval and answer code (5 passages, as the app does) and checks
 * that the answer cites the documents the claim really comes from and quotes its rationale sentences.
 */
export async function evaluateAnswers(indexed: IndexedCollection, claims: readonly Claim[], corpus: readonly BeirDoc[] = [], answerer: Answerer = extractiveAnswerer): Promise<AnswerReport> {
  const byId = new Map(corpus.map((d) => [d.id, d]));
  const t = { found: 0, first: 0, any: 0, good: 0, given: 0, sentences: 0, evidenceClaims: 0, evidenceQuotes: 0, rationaleQuotes: 0 };
  const scored = claims.filter((c) => c.citedDocIds.length > 0);
  for (const claim of scored) {
    const cited = new Set(claim.citedDocIds);
    const passages = await retrievePassages(indexed.search, indexed.source, queryOf(indexed, claim.claim), { k: 5, retrievers: indexed.retrievers });
    const answer = await answerer.answer(claim.claim, passages, indexed.lexical);
    if (!answer.found) continue;
    t.found++;
    const docs = answer.citations.map((c) => indexed.beirIdOf.get(c.passage.docId) ?? '');
    if (docs[0] !== undefined && cited.has(docs[0])) t.first++;
    if (docs.some((d) => cited.has(d))) t.any++;
    t.good += docs.filter((d) => cited.has(d)).length;
    t.given += docs.length;
    const quotes = quotesOf(answer);
    t.sentences += quotes.length;
    const rationale = rationaleSentences(claim, byId);
    if (rationale.length === 0) continue;
    t.evidenceClaims++;
    t.evidenceQuotes += quotes.length;
    t.rationaleQuotes += quotes.filter((q) => isRationale(q, rationale)).length;
  }
  return {
    claims: scored.length,
    answered_rate: share(t.found, scored.length),
    'cite@1': share(t.first, scored.length),
    'cite@1_answered': share(t.first, t.found),
    cite_any: share(t.any, scored.length),
    cite_precision: share(t.good, t.given),
    sentences_per_answer: t.found ? Math.round((t.sentences / t.found) * 100) / 100 : 0,
    evidence_claims: t.evidenceClaims,
    evidence_sentence_rate: share(t.rationaleQuotes, t.evidenceQuotes),
  };
}

export interface NotFoundReport {
  questions: number;
  /** Share of the questions answered "Not found in your documents.". */
  not_found_rate: number;
}

/**
 * Asks questions the collection cannot answer (another collection's queries) and counts how often the
 * answer says so instead of quoting unrelated sentences.
 */
export async function evaluateNotFound(indexed: IndexedCollection, questions: readonly string[], answerer: Answerer = extractiveAnswerer): Promise<NotFoundReport> {
  let notFound = 0;
  for (const question of questions) {
    const passages = await retrievePassages(indexed.search, indexed.source, queryOf(indexed, question), { k: 5, retrievers: indexed.retrievers });
    if (!(await answerer.answer(question, passages, indexed.lexical)).found) notFound++;
  }
  return { questions: questions.length, not_found_rate: share(notFound, questions.length) };
}
