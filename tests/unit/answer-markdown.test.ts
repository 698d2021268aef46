import { describe, expect, it } from 'vitest';
import type { Answer, Citation, Passage } from '../../src/core/types.ts';
import { answerAsMarkdown, answerMarkdown } from '../../src/ui/answer-markdown.ts';

const citation = (n: number, docPath: string, label: string): Citation => ({ n, passage: { docPath, label } as Passage, quotes: [], marks: [] });

/** A model's answer: two sentences resting on [1], one on [1] and [2], one no source supports. */
const written: Answer = {
  question: 'When is rent due?',
  found: true,
  generatedBy: 'Tiny model',
  segments: [{ text: 'Rent is due monthly. ', cite: 1 }, { text: 'On the first day. ', cite: 1 }, { text: 'Late fees apply.', cite: 1, cites: [1, 2] }, { text: ' Pets are welcome.', unsupported: true }],
  citations: [citation(1, 'docs/lease.md', 'Rent'), citation(2, 'docs/fees.md', 'Late fees')],
};

describe('answerMarkdown', () => {
  it('puts one [n] after a run of sentences citing the same passages, its link naming the run, and marks an unsupported sentence', () => {
    expect(answerMarkdown(written)).toBe(
      'Rent is due monthly. On the first day. [[1]](#source-1-0-1) Late fees apply. [[1]](#source-1-2-2)[[2]](#source-2-2-2) <span class="unsupported" title="No source supports this sentence">Pets are welcome.</span> ',
    );
  });
});

describe('answerAsMarkdown', () => {
  it("gives a model's answer with plain [n], the unsupported sentence named, then the numbered sources", () => {
    expect(answerAsMarkdown(written)).toBe(
      '**When is rent due?**\n\nRent is due monthly. On the first day. [1] Late fees apply. [1][2] Pets are welcome. (unsupported)\n\nSources:\n1. docs/lease.md, Rent\n2. docs/fees.md, Late fees\n',
    );
  });

  it('gives quotes as quotes, one [n] after consecutive quotes of one passage', () => {
    const quoted: Answer = { question: 'Rent?', found: true, segments: [{ text: 'Rent is 900.', cite: 1 }, { text: 'Due on the 1st.', cite: 1 }, { text: 'Fees are 50.', cite: 2 }], citations: written.citations };
    expect(answerAsMarkdown(quoted)).toBe('**Rent?**\n\nRent is 900. Due on the 1st. [1] Fees are 50. [2]\n\nSources:\n1. docs/lease.md, Rent\n2. docs/fees.md, Late fees\n');
  });

  it('gives a quoted line of code as code', () => {
    const quoted: Answer = { question: 'Venv?', found: true, segments: [{ text: 'Run the venv module with the path:', cite: 1 }, { text: 'python3 -m venv env', cite: 1, code: true }], citations: written.citations };
    expect(answerAsMarkdown(quoted)).toBe('**Venv?**\n\nRun the venv module with the path: `python3 -m venv env` [1]\n\nSources:\n1. docs/lease.md, Rent\n2. docs/fees.md, Late fees\n');
  });

  it('says when nothing was found, listing the closest passages', () => {
    const none: Answer = { question: 'Parking?', found: false, segments: [], citations: [citation(1, 'docs/lease.md', 'Rent')] };
    expect(answerAsMarkdown(none)).toBe('**Parking?**\n\nNot found in your documents.\n\nClosest passages:\n1. docs/lease.md, Rent\n');
  });
});
