/**
 * Answer evaluation with any answerer: every SciFact claim that has evidence documents is
 * asked, as the question text (claims are statements; the extractive evaluation asks them the same way),
 * through the app's retrieval (5 passages) and the answerer given — the extractive answer, or a generator
 * behind the LLM answerer (`generate/llm-answerer.ts`: context, prompt, stream, checked citations). The
 * report says how often the answer's Sources (the citations the checker kept) include the claim's
 * evidence document, and what the checker made of the sentences written (supported, removed citations).
 * Scoring is a pure function of per-claim outcomes ({@link scoreOutcomes}), tested on hand-made cases.
 */
import type { Answer } from '../core/types.ts';
import type { Answerer } from '../generate/answerer.ts';
import { parseCitedSentences } from '../generate/citations.ts';
import { NOT_FOUND } from '../generate/prompt.ts';
import { retrievePassages } from '../retrieve/retrieve.ts';
import type { BeirDoc, Claim } from './beir.ts';
import { isRationale, quotesOf, rationaleSentences } from './evaluate-answers.ts';
import { queryOf, type IndexedCollection } from './evaluate.ts';
import { percentile } from './metrics.ts';

/** A sentence the answer shows (or, for an answer not found, one the model wrote), as the checker judged it. */
export interface SentenceVerdict {
  /** The writer put at least one `[n]` on it. */
  cited: boolean;
  /** At least one of its citations was kept by the checker. */
  supported: boolean;
  /** Cited by the checker: the writer's citations (if any) did not hold, and one passage states it. */
  attributed: boolean;
}

/** What one claim's answer comes to, for scoring. */
export interface ClaimOutcome {
  /** The claim's evidence documents (BEIR ids). */
  evidenceDocs: readonly string[];
  found: boolean;
  /** BEIR ids of the documents the answer's Sources cite, in order (empty when not found). */
  citedDocs: readonly string[];
  sentences: readonly SentenceVerdict[];
  /** Citations the checker removed, by reason. */
  removed: { noSuchPassage: number; notSupported: number };
  /** Quoted sentences (the passages' sentences the Sources mark) and how many are rationale sentences. */
  quotes: number;
  rationaleQuotes: number;
  /** Time the answerer took (ms), retrieval excluded. */
  ms: number;
  /** Time retrieval took (ms). */
  retrieveMs: number;
}

export interface GeneratedAnswerReport {
  /** The generator's id: 'extractive', 'quote' or a model's id ('local:tiny-decoder'). */
  answer_generator: string;
  /** Claims evaluated (those with evidence documents; at most `limit`). */
  answer_claims: number;
  /** Share of claims that got an answer (the rest: "Not found in your documents."). */
  answered_rate: number;
  /** Share answered "Not found in your documents." (the checker kept nothing, or the model said so). */
  answer_not_found_rate: number;
  /** Share of claims whose Sources (checked citations) include one of the claim's evidence documents. */
  cited_evidence_rate: number;
  /** The same among the claims answered. */
  cited_evidence_rate_answered: number;
  /** Share of all Sources given that are an evidence document of their claim. */
  citation_precision: number;
  /** Mean Sources per answer found. */
  sources_per_answer: number;
  /** Mean sentences per answer found. */
  sentences_per_answer: number;
  /** Share of the sentences written that carry a citation. Null when nothing is checked (extractive). */
  cited_sentence_rate: number | null;
  /** Share of the cited sentences with at least one citation the checker kept. Null for extractive. */
  supported_sentence_rate: number | null;
  /** Share of the sentences written that the checker cited itself (the writer's citations, if any, did not hold). Null for extractive. */
  attributed_sentence_rate: number | null;
  /** Citations the checker removed, per claim asked. Null for extractive. */
  removed_citations_per_answer: number | null;
  /** Of those removed in all: [n] with no passage n given, and passage n not supporting the sentence. */
  removed_no_such_passage: number | null;
  removed_not_supported: number | null;
  /** Share of the quoted sentences that are the claim's rationale sentences. */
  evidence_sentence_rate: number;
  /** Answering time per claim (retrieval excluded), median and 95th percentile, ms. */
  ms_per_answer_p50: number;
  ms_per_answer_p95: number;
  retrieve_ms_p50: number;
}

const share = (n: number, of: number) => (of ? Math.round((n / of) * 10_000) / 10_000 : 0);
const mean = (n: number, of: number) => (of ? Math.round((n / of) * 100) / 100 : 0);
const sum = (outcomes: readonly ClaimOutcome[], f: (o: ClaimOutcome) => number) => outcomes.reduce((a, o) => a + f(o), 0);

/**
 * The report of a list of outcomes. `checked`: the answers were written by a generator and checked (else
 * the checker's figures are null: the extractive answer quotes passages, it has nothing to check).
 */
export function scoreOutcomes(generator: string, outcomes: readonly ClaimOutcome[], checked: boolean): GeneratedAnswerReport {
  const found = outcomes.filter((o) => o.found);
  const hitsEvidence = (o: ClaimOutcome) => (o.citedDocs.some((d) => o.evidenceDocs.includes(d)) ? 1 : 0);
  const sentences = outcomes.flatMap((o) => o.sentences);
  const cited = sentences.filter((s) => s.cited);
  const removed = { noSuchPassage: sum(outcomes, (o) => o.removed.noSuchPassage), notSupported: sum(outcomes, (o) => o.removed.notSupported) };
  const sources = sum(found, (o) => o.citedDocs.length);
  const ms = outcomes.map((o) => o.ms);
  return {
    answer_generator: generator,
    answer_claims: outcomes.length,
    answered_rate: share(found.length, outcomes.length),
    answer_not_found_rate: share(outcomes.length - found.length, outcomes.length),
    cited_evidence_rate: share(sum(found, hitsEvidence), outcomes.length),
    cited_evidence_rate_answered: share(sum(found, hitsEvidence), found.length),
    citation_precision: share(sum(found, (o) => o.citedDocs.filter((d) => o.evidenceDocs.includes(d)).length), sources),
    sources_per_answer: mean(sources, found.length),
    sentences_per_answer: mean(sum(found, (o) => o.sentences.length), found.length),
    cited_sentence_rate: checked ? share(cited.length, sentences.length) : null,
    supported_sentence_rate: checked ? share(cited.filter((s) => s.supported).length, cited.length) : null,
    attributed_sentence_rate: checked ? share(sentences.filter((s) => s.attributed).length, sentences.length) : null,
    removed_citations_per_answer: checked ? mean(removed.noSuchPassage + removed.notSupported, outcomes.length) : null,
    removed_no_such_passage: checked ? removed.noSuchPassage : null,
    removed_not_supported: checked ? removed.notSupported : null,
    evidence_sentence_rate: share(sum(found, (o) => o.rationaleQuotes), sum(found, (o) => o.quotes)),
    ms_per_answer_p50: ms.length ? Math.round(percentile(ms, 50) * 10) / 10 : 0,
    ms_per_answer_p95: ms.length ? Math.round(percentile(ms, 95) * 10) / 10 : 0,
    retrieve_ms_p50: outcomes.length ? Math.round(percentile(outcomes.map((o) => o.retrieveMs), 50) * 10) / 10 : 0,
  };
}

const simple = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();

/**
 * The checker's verdict on each sentence. An answer found shows the checked sentences (a citation kept:
 * supported; an unsupported sentence was cited if the checker removed a citation from it). An answer not
 * found shows none of what the model wrote, and none of it was supported: its sentences are read back
 * from the text written, less "Not found in your documents.".
 */
export function verdictsOf(answer: Answer, written: string): SentenceVerdict[] {
  if (answer.found) {
    const removedFrom = new Set((answer.removedCitations ?? []).map((r) => r.sentence));
    return answer.segments.map((s) => {
      const kept = s.cite !== undefined && !s.attributed;
      return { cited: kept || removedFrom.has(s.text), supported: kept, attributed: s.attributed === true };
    });
  }
  return parseCitedSentences(written)
    .filter((s) => !simple(s.text).startsWith(simple(NOT_FOUND)))
    .map((s) => ({ cited: s.cites.length > 0, supported: false, attributed: false }));
}

export interface GeneratedEvalOptions {
  /** What writes the answers: `extractiveAnswerer`, or `createLlmAnswerer({ generator })`. */
  answerer: Answerer;
  /** The generator's id for the report ('extractive', 'quote', a model id). */
  generator: string;
  /** Whether the answers' citations are checked (a generator wrote them). Default true. */
  checked?: boolean;
  /** Evaluate only the first `limit` claims with evidence. Default all; range ≥ 1. */
  limit?: number;
  /** Called after each claim (progress). */
  onClaim?: (done: number, total: number) => void;
}

/** Asks every claim with evidence documents (the first `limit`) and scores the answers ({@link scoreOutcomes}). */
export async function evaluateGeneratedAnswers(indexed: IndexedCollection, claims: readonly Claim[], corpus: readonly BeirDoc[], options: GeneratedEvalOptions): Promise<GeneratedAnswerReport> {
  const byId = new Map(corpus.map((d) => [d.id, d]));
  const withEvidence = claims.filter((c) => c.evidence.size > 0).slice(0, options.limit ?? Infinity);
  const outcomes: ClaimOutcome[] = [];
  for (const claim of withEvidence) {
    const r0 = performance.now();
    const passages = await retrievePassages(indexed.search, indexed.source, queryOf(indexed, claim.claim), { k: 5, retrievers: indexed.retrievers });
    const a0 = performance.now();
    let written = '';
    const answer = await options.answerer.answer(claim.claim, passages, indexed.lexical, { onText: (piece) => (written += piece) });
    const ms = performance.now() - a0;
    const quotes = answer.found ? quotesOf(answer) : [];
    const rationale = rationaleSentences(claim, byId);
    const removed = answer.removedCitations ?? [];
    outcomes.push({
      evidenceDocs: [...claim.evidence.keys()],
      found: answer.found,
      citedDocs: answer.found ? answer.citations.map((c) => indexed.beirIdOf.get(c.passage.docId) ?? '') : [],
      sentences: verdictsOf(answer, written),
      removed: { noSuchPassage: removed.filter((r) => r.reason === 'no-such-passage').length, notSupported: removed.filter((r) => r.reason === 'not-supported').length },
      quotes: quotes.length,
      rationaleQuotes: quotes.filter((q) => isRationale(q, rationale)).length,
      ms,
      retrieveMs: a0 - r0,
    });
    options.onClaim?.(outcomes.length, withEvidence.length);
  }
  return scoreOutcomes(options.generator, outcomes, options.checked ?? true);
}
