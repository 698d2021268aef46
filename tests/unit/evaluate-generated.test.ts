// Answer evaluation with any answerer: the scoring on hand-made outcomes whose figures are worked out
// by hand, the checker's verdicts read from an answer, and the whole loop on a three-document collection
// with the quote baseline and the extractive answer.
import { describe, expect, it } from 'vitest';
import type { Answer } from '../../src/core/types.ts';
import type { BeirCollection, Claim } from '../../src/eval/beir.ts';
import { indexCollection } from '../../src/eval/evaluate.ts';
import { evaluateGeneratedAnswers, scoreOutcomes, verdictsOf, type ClaimOutcome } from '../../src/eval/evaluate-generated.ts';
import { QuoteGenerator } from '../../src/eval/quote-generator.ts';
import { extractiveAnswerer } from '../../src/generate/answerer.ts';
import { createLlmAnswerer } from '../../src/generate/llm-answerer.ts';

const yes = { cited: true, supported: true, attributed: false };
const removed = { cited: true, supported: false, attributed: false };
const bare = { cited: false, supported: false, attributed: false };
/** Written without a citation; the checker cited the passage that states it. */
const found = { cited: false, supported: false, attributed: true };

const OUTCOMES: ClaimOutcome[] = [
  // Cites its evidence document and another; one sentence lost its citation, one never had one.
  { evidenceDocs: ['d1'], found: true, citedDocs: ['d1', 'd2'], sentences: [yes, removed, bare], removed: { noSuchPassage: 0, notSupported: 1 }, quotes: 2, rationaleQuotes: 1, ms: 10, retrieveMs: 1 },
  // Answered from the wrong document; a citation to a passage that was never given was removed; one sentence cited by the checker.
  { evidenceDocs: ['d3'], found: true, citedDocs: ['d2'], sentences: [yes, found], removed: { noSuchPassage: 1, notSupported: 0 }, quotes: 1, rationaleQuotes: 0, ms: 30, retrieveMs: 2 },
  // Not found: what the model wrote was cited but unsupported.
  { evidenceDocs: ['d2'], found: false, citedDocs: [], sentences: [removed], removed: { noSuchPassage: 0, notSupported: 1 }, quotes: 0, rationaleQuotes: 0, ms: 20, retrieveMs: 3 },
];

describe('scoreOutcomes', () => {
  it('gives the figures worked out by hand', () => {
    expect(scoreOutcomes('model-x', OUTCOMES, true)).toEqual({
      answer_generator: 'model-x',
      answer_claims: 3,
      answered_rate: 0.6667,
      answer_not_found_rate: 0.3333,
      cited_evidence_rate: 0.3333, // only the first claim's Sources hold its evidence document
      cited_evidence_rate_answered: 0.5,
      citation_precision: 0.3333, // d1 of the 3 Sources d1, d2, d2
      sources_per_answer: 1.5,
      sentences_per_answer: 2.5,
      cited_sentence_rate: 0.6667, // 4 of the 6 sentences written carry a citation
      supported_sentence_rate: 0.5, // 2 of those 4 kept one
      attributed_sentence_rate: 0.1667, // 1 of the 6 was cited by the checker
      removed_citations_per_answer: 1,
      removed_no_such_passage: 1,
      removed_not_supported: 2,
      evidence_sentence_rate: 0.3333,
      ms_per_answer_p50: 20,
      ms_per_answer_p95: 30,
      retrieve_ms_p50: 2,
    });
  });

  it('leaves the checker’s figures out for an answer nothing checks, and reports zeros for no claims', () => {
    const extractive = scoreOutcomes('extractive', OUTCOMES, false);
    expect(extractive).toMatchObject({ cited_sentence_rate: null, supported_sentence_rate: null, removed_citations_per_answer: null, removed_no_such_passage: null, removed_not_supported: null });
    expect(extractive.cited_evidence_rate).toBe(0.3333);
    expect(scoreOutcomes('quote', [], true)).toMatchObject({ answer_claims: 0, answered_rate: 0, supported_sentence_rate: 0, ms_per_answer_p50: 0 });
  });
});

describe('verdictsOf', () => {
  const base = { question: 'q', citations: [] };
  it('reads a found answer’s segments: kept citation, removed citation, none written, cited by the checker', () => {
    const answer: Answer = {
      ...base,
      found: true,
      segments: [{ text: 'A holds.', cite: 1 }, { text: 'B was cited wrongly.', unsupported: true }, { text: 'C says more.', unsupported: true }, { text: 'D states a passage.', cite: 1, attributed: true }],
      removedCitations: [{ n: 3, reason: 'not-supported', sentence: 'B was cited wrongly.' }],
    };
    expect(verdictsOf(answer, 'ignored')).toEqual([yes, removed, bare, found]);
  });

  it('reads what the model wrote when the answer was not found, less the not-found sentence', () => {
    const answer: Answer = { ...base, found: false, segments: [], removedCitations: [{ n: 2, reason: 'not-supported', sentence: 'Something here.' }] };
    expect(verdictsOf(answer, 'Something here [2]. Nothing else. Not found in your documents.')).toEqual([removed, bare]);
  });
});

const collection: BeirCollection = {
  corpus: [
    { id: 'd1', title: 'Vitamin D and bone density', text: 'Trials ran for two years. Vitamin D supplements increase bone mineral density in older adults.' },
    { id: 'd2', title: 'Sleep and memory', text: 'Sleep deprivation impairs the consolidation of episodic memory.' },
    { id: 'd3', title: 'Coffee consumption', text: 'Moderate coffee consumption is not associated with heart disease.' },
  ],
  queries: new Map(),
  qrels: new Map(),
};
const CLAIMS: Claim[] = [
  { id: 'c1', claim: 'Vitamin D raises bone density.', citedDocIds: ['d1'], evidence: new Map([['d1', [1]]]) },
  { id: 'c2', claim: 'Coffee is not linked to heart disease.', citedDocIds: ['d3'], evidence: new Map([['d3', [0]]]) },
  // No evidence: not evaluated.
  { id: 'c3', claim: 'Sleep helps memory.', citedDocIds: ['d2'], evidence: new Map() },
  // Nothing in the collection matches: not found.
  { id: 'c4', claim: 'Glaciers retreat in warm summers.', citedDocIds: ['d2'], evidence: new Map([['d2', [0]]]) },
];

describe('evaluateGeneratedAnswers', () => {
  it('with the quote baseline: cites the evidence documents, every sentence supported, rationale sentences quoted', async () => {
    const indexed = await indexCollection(collection);
    const report = await evaluateGeneratedAnswers(indexed, CLAIMS, collection.corpus, { answerer: createLlmAnswerer({ generator: new QuoteGenerator() }), generator: 'quote' });
    expect(report).toMatchObject({
      answer_generator: 'quote',
      answer_claims: 3,
      answered_rate: 0.6667,
      cited_evidence_rate: 0.6667,
      cited_evidence_rate_answered: 1,
      citation_precision: 1,
      cited_sentence_rate: 1,
      supported_sentence_rate: 1,
      removed_citations_per_answer: 0,
      evidence_sentence_rate: 1,
    });
    const limited = await evaluateGeneratedAnswers(indexed, CLAIMS, collection.corpus, { answerer: createLlmAnswerer({ generator: new QuoteGenerator() }), generator: 'quote', limit: 1 });
    expect(limited).toMatchObject({ answer_claims: 1, answered_rate: 1 });
  });

  it('with the extractive answer: the same evidence figures, nothing checked', async () => {
    const indexed = await indexCollection(collection);
    const report = await evaluateGeneratedAnswers(indexed, CLAIMS, collection.corpus, { answerer: extractiveAnswerer, generator: 'extractive', checked: false });
    expect(report).toMatchObject({ answer_generator: 'extractive', answer_claims: 3, answered_rate: 0.6667, cited_evidence_rate: 0.6667, supported_sentence_rate: null });
  });
});
