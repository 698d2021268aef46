import { describe, expect, it } from 'vitest';
import type { BeirCollection } from '../../src/eval/beir.ts';
import { evaluateAnswers } from '../../src/eval/evaluate-answers.ts';
import { evaluateRetrieval, indexCollection } from '../../src/eval/evaluate.ts';

const collection: BeirCollection = {
  corpus: [
    { id: 'd1', title: 'Vitamin D and bone density', text: 'Vitamin D supplements increase bone mineral density in older adults.' },
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
    const report = evaluateRetrieval(collection, indexed);
    expect(report).toMatchObject({ 'ndcg@10': 1, 'mrr@10': 1, 'recall@100': 1, queries: 2, documents: 3, chunks: 3 });
    const answers = await evaluateAnswers(indexed, [
      { id: 'c1', claim: 'Vitamin D raises bone density.', citedDocIds: ['d1'] },
      { id: 'c2', claim: 'Coffee causes heart disease.', citedDocIds: ['d3'] },
      { id: 'c3', claim: 'No documents cited.', citedDocIds: [] },
    ]);
    expect(answers.claims).toBe(2);
    expect(answers['cite@1']).toBe(1);
    expect(answers['cite_any@5']).toBe(1);
    expect(answers.cite_precision).toBeGreaterThan(0);
    expect(answers.cite_precision).toBeLessThanOrEqual(1);
  });

  it('skips records with an empty title and text and counts them, instead of stopping', async () => {
    const withEmpty: BeirCollection = {
      ...collection,
      corpus: [...collection.corpus, { id: 'e1', title: '', text: '' }, { id: 'e2', title: '  ', text: '\n ' }],
    };
    const indexed = await indexCollection(withEmpty);
    expect(indexed.skipped).toBe(2);
    const report = evaluateRetrieval(withEmpty, indexed);
    expect(report).toMatchObject({ 'ndcg@10': 1, queries: 2, documents: 3, skipped: 2, chunks: 3 });
  });
});
