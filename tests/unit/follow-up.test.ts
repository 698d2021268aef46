// Follow-up questions rewritten into standalone ones: by the model (JSON, parsed defensively),
// by the rule without a model; the first question of a conversation never rewritten.
import { describe, expect, it } from 'vitest';
import { parseStandalone, rewriteByRule, rewriteFollowUp, rewriteMessages } from '../../src/question/follow-up.ts';
import { countMessageTokens } from '../../src/generate/prompt.ts';
import { countScriptedTokens, ScriptedGenerator } from '../../src/models/generator/scripted-generator.ts';

const RENT = { question: 'When is the rent paid?', answer: 'The tenant pays the rent on the first day of each month [1].' };
const count = (t: string) => Promise.resolve(countScriptedTokens(t));

describe('rewriteFollowUp with a model', () => {
  it('asks for JSON with the conversation and the question, and searches the question it returns', async () => {
    const generator = new ScriptedGenerator(['{"question": "How much is the monthly rent?"}']);
    const out = await rewriteFollowUp('How much is it?', [RENT], { generator });
    expect(out).toEqual({ standalone: 'How much is the monthly rent?', by: 'model' });
    const request = generator.requests[0]!;
    expect(request.json).toBe(true);
    const user = request.messages.at(-1)!.content;
    expect(user).toContain('User: When is the rent paid?');
    // Citation marks of earlier answers are taken out: they meant other passages.
    expect(user).toContain('Assistant: The tenant pays the rent on the first day of each month.');
    expect(user.endsWith('Last question: How much is it?')).toBe(true);
  });

  it('reads a fenced or chatty reply, and falls back to the question on bad JSON, another shape, empty or absurdly long output', async () => {
    expect(parseStandalone('Sure!\n```json\n{"question": " How much is the rent? "}\n```')).toBe('How much is the rent?');
    const replies = ['{"question": "How much', 'no JSON at all', '{"query": "rent"}', '{"question": 42}', '{"question": "   "}', `{"question": "${'rent '.repeat(200)}"}`, '[]'];
    for (const reply of replies) {
      const out = await rewriteFollowUp('How much is it?', [RENT], { generator: new ScriptedGenerator([reply]) });
      expect(out, reply).toEqual({ standalone: 'How much is it?', by: 'none' });
    }
  });

  it('never asks the model for the first question of a conversation', async () => {
    const generator = new ScriptedGenerator([]);
    expect(await rewriteFollowUp('  When is it paid?  ', [], { generator })).toEqual({ standalone: 'When is it paid?', by: 'none' });
    expect(generator.requests).toHaveLength(0);
  });

  it('searches the question as typed when the model fails or is stopped', async () => {
    const failing = new ScriptedGenerator(() => {
      throw new Error('device lost');
    });
    expect(await rewriteFollowUp('How much is it?', [RENT], { generator: failing })).toEqual({ standalone: 'How much is it?', by: 'none' });
    const unused = new ScriptedGenerator(['{"question": "x"}']);
    expect(await rewriteFollowUp('How much is it?', [RENT], { generator: unused, signal: AbortSignal.abort() })).toEqual({ standalone: 'How much is it?', by: 'none' });
    expect(unused.requests).toHaveLength(0);
  });

  it('fits the conversation to the model: the newest turns that fit, within the window', async () => {
    const turns = Array.from({ length: 40 }, (_, i) => ({ question: `Question ${i} about clause ${i}?`, answer: `Clause ${i} says something long. `.repeat(20) }));
    const messages = await rewriteMessages('And the next?', turns, 600, count);
    expect(await countMessageTokens(messages, count)).toBeLessThanOrEqual(600);
    const user = messages.at(-1)!.content;
    expect(user).toContain('Question 39 about clause 39?');
    expect(user).not.toContain('Question 0 about');
    const generator = new ScriptedGenerator(['{"question": "What does clause 39 say next?"}'], { model: { contextTokens: 512 } });
    await rewriteFollowUp('And the next?', turns, { generator });
    const r = generator.requests[0]!;
    expect((await countMessageTokens(r.messages, count)) + r.maxTokens!).toBeLessThanOrEqual(512);
  });
});

describe('rewriteByRule (no model)', () => {
  it('adds the previous question\'s subject words to a question that refers back', () => {
    expect(rewriteByRule('How much is it?', 'When is the rent paid?')).toBe('How much is it? (rent paid)');
    expect(rewriteByRule('What about the deposit?', 'When is the rent paid?')).toBe('What about the deposit? (rent paid)');
    expect(rewriteByRule('And the loan?', 'Who signs the guarantee?')).toBe('And the loan? (signs guarantee)');
    expect(rewriteByRule('Why?', 'Who repairs the heating?')).toBe('Why? (repairs heating)');
    // Words it already has are not added twice.
    expect(rewriteByRule('Is the rent paid by transfer then?', 'When is the rent paid?')).toBe('Is the rent paid by transfer then?');
  });

  it('leaves a question that stands alone as it is', () => {
    expect(rewriteByRule('Who repairs the heating?', 'When is the rent paid?')).toBe('Who repairs the heating?');
    expect(rewriteByRule('What does the guarantor sign?', 'When is the rent paid?')).toBe('What does the guarantor sign?');
  });

  it('is the rewrite without a model, and is named as such', async () => {
    expect(await rewriteFollowUp('How much is it?', [RENT])).toEqual({ standalone: 'How much is it? (rent paid)', by: 'rule' });
    expect(await rewriteFollowUp('Who repairs the heating?', [RENT])).toEqual({ standalone: 'Who repairs the heating?', by: 'none' });
  });
});
