import { describe, expect, it } from 'vitest';
import type { BeirCollection } from '../../src/eval/beir.ts';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadClaims, loadQueryTexts } from '../../src/eval/beir.ts';
import { evaluateAnswers, evaluateNotFound } from '../../src/eval/evaluate-answers.ts';
import { faqQuestions } from '../../src/eval/faq-questions.ts';
import { evaluateRetrieval, indexCollection } from '../../src/eval/evaluate.ts';

const collection: BeirCollection = {
  corpus: [
    { id: 'd1', title: 'Vitamin D and bone density', text: 'Trials ran for two years. Vitamin D supplements increase bone mineral density in older adults.' },
    { id: 'd2', title: 'Sleep and memory', text: 'Sleep deprivation impairs the consolidation of episodic memory.' },
    { id: 'd3', title: 'Coffee consumption', text: 'Moderate coffee consumption is not associated with heart disease.' },
  ],
  queries: new Map([
    ['q1', 'does vitamin D improve bone density'],
    ['q2', 'sleep loss and memory consolidation'],
  ]),
  qrels: new Map([
    ['q1', new Map([['d1', 1]])],
    ['q2', new Map([['d2', 1]])],
  ]),
};

describe('evaluation with the app’s own pipeline', () => {
  it('ranks the judged documents first and cites them in answers', async () => {
    const indexed = await indexCollection(collection);
    const report = await evaluateRetrieval(collection, indexed);
    expect(report).toMatchObject({ 'ndcg@10': 1, 'mrr@10': 1, 'recall@100': 1, queries: 2, documents: 3, chunks: 3 });
    const none = new Map<string, number[]>();
    const answers = await evaluateAnswers(
      indexed,
      [
        { id: 'c1', claim: 'Vitamin D raises bone density.', citedDocIds: ['d1'], evidence: new Map([['d1', [1]]]) },
        { id: 'c2', claim: 'Coffee causes heart disease.', citedDocIds: ['d3'], evidence: none },
        { id: 'c3', claim: 'No documents cited.', citedDocIds: [], evidence: none },
        { id: 'c4', claim: 'Glaciers retreat in warm summers.', citedDocIds: ['d2'], evidence: new Map([['d2', [0]]]) },
      ],
      collection.corpus,
    );
    // c4 is about nothing the collection holds: not found, so it cites nothing.
    expect(answers).toMatchObject({ claims: 3, answered_rate: 0.6667, 'cite@1': 0.6667, 'cite@1_answered': 1, cite_any: 0.6667, cite_precision: 1 });
    // c1's one quoted sentence is its rationale, sentence 1 of d1 (not sentence 0, "Trials ran …").
    expect(answers).toMatchObject({ evidence_claims: 1, evidence_sentence_rate: 1, sentences_per_answer: 1 });
    const wrongRationale = await evaluateAnswers(indexed, [{ id: 'c1', claim: 'Vitamin D raises bone density.', citedDocIds: ['d1'], evidence: new Map([['d1', [0]]]) }], collection.corpus);
    expect(wrongRationale.evidence_sentence_rate).toBe(0);
  });

  it('counts questions from another collection that the answer says are not found', async () => {
    const indexed = await indexCollection(collection);
    const dir = await mkdtemp(join(tmpdir(), 'docqa-eval-'));
    const path = join(dir, 'queries.jsonl');
    const lines = [
      { _id: 'x1', text: 'Which glaciers retreat fastest in warm summers?' },
      { _id: 'x2', text: 'How is the capital city of a country chosen?' },
      { _id: 'x3', text: 'Does sleep deprivation impair memory consolidation?' },
      { _id: 'x4', text: '' },
    ];
    await writeFile(path, lines.map((l) => JSON.stringify(l)).join('\n'));
    const questions = await loadQueryTexts(path);
    expect(questions).toHaveLength(3);
    // x3 is answerable here (a stray question in the file): 2 of 3 not found.
    await expect(evaluateNotFound(indexed, questions)).resolves.toEqual({ questions: 3, not_found_rate: 0.6667 });
  });

  it('reads SciFact claims with their rationale sentence indexes', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'docqa-claims-'));
    const claim = { id: 3, claim: 'A claim.', cited_doc_ids: [14717500], evidence: { 14717500: { label: 'SUPPORT', sentences: [[2, 5], [7]] } } };
    await writeFile(join(dir, 'claims_dev.jsonl'), `${JSON.stringify(claim)}\n`);
    const [loaded] = (await loadClaims(dir).finally(() => rm(dir, { recursive: true, force: true })))!;
    expect(loaded).toEqual({ id: '3', claim: 'A claim.', citedDocIds: ['14717500'], evidence: new Map([['14717500', [2, 5, 7]]]) });
  });

  it('skips records with an empty title and text and counts them, instead of stopping', async () => {
    const withEmpty: BeirCollection = {
      ...collection,
      corpus: [...collection.corpus, { id: 'e1', title: '', text: '' }, { id: 'e2', title: '  ', text: '\n ' }],
    };
    const indexed = await indexCollection(withEmpty);
    expect(indexed.skipped).toBe(2);
    const report = await evaluateRetrieval(withEmpty, indexed);
    expect(report).toMatchObject({ 'ndcg@10': 1, queries: 2, documents: 3, skipped: 2, chunks: 3 });
  });
});

describe('faqQuestions (a second collection for not_found_rate)', () => {
  it('takes the question headings of FAQ pages, without section numbers, each once', () => {
    const page = (body: string) => new TextEncoder().encode(`<html><body>${body}</body></html>`);
    const pages = [
      { name: 'a.html', bytes: page('<h1>1. Basics</h1><h2>1.1. What is this FAQ?</h2><p>It answers.</p><h2>1.2. Installing</h2><p>Steps.</p>') },
      { name: 'b.html', bytes: page('<h2>3.1.2. How do I <code>install</code> a package?</h2><p>Use apt.</p><h2>What is this FAQ?</h2><p>Again.</p>') },
    ];
    expect(faqQuestions(pages)).toEqual(['What is this FAQ?', 'How do I install a package?']);
  });
});
