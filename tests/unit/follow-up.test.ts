// Follow-up questions rewritten into standalone ones: by the model (JSON, parsed defensively),
// by the rule without a model; the first question of a conversation never rewritten.
import { describe, expect, it } from 'vitest';
import { parseStandalone, readRewrite, refersBack, rewriteByRule, rewriteFollowUp, rewriteMessages } from '../../src/question/follow-up.ts';
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

  it('reads a fenced or chatty reply, and falls back to the rule on bad JSON, another shape, empty or absurdly long output', async () => {
    expect(parseStandalone('Sure!\n```json\n{"question": " How much is the rent? "}\n```')).toBe('How much is the rent?');
    const replies = ['{"question": "How much', 'no JSON at all', '{"query": "rent"}', '{"question": 42}', '{"question": "   "}', `{"question": "${'rent '.repeat(200)}"}`, '[]'];
    for (const reply of replies) {
      const out = await rewriteFollowUp('How much is it?', [RENT], { generator: new ScriptedGenerator([reply]) });
      expect(out, reply).toEqual({ standalone: 'How much is it? (rent paid)', by: 'rule' });
    }
    // A question that stands alone is searched as typed then.
    expect(await rewriteFollowUp('Who pays the deposit?', [RENT], { generator: new ScriptedGenerator(['no JSON']) })).toEqual({ standalone: 'Who pays the deposit?', by: 'none' });
  });

  it("uses the rule when the model's rewrite repeats itself or drops the question's own subject", async () => {
    const unusable = [
      // A small model filling its budget.
      '{"question": "How much is the monthly rent? How much is the monthly rent? How much is the monthly rent?"}',
      '{"question": "How much is the rent of the rent of the rent of the house"}',
    ];
    for (const reply of unusable) {
      const out = await rewriteFollowUp('How much is it?', [RENT], { generator: new ScriptedGenerator([reply]) });
      expect(out, reply).toEqual({ standalone: 'How much is it? (rent paid)', by: 'rule' });
    }
    // The earlier question rewritten instead of the one asked: "deposit" is gone.
    const earlier = await rewriteFollowUp('What about the deposit?', [RENT], { generator: new ScriptedGenerator(['{"question": "When is the rent paid?"}']) });
    expect(earlier).toEqual({ standalone: 'What about the deposit? (rent paid)', by: 'rule' });
    const kept = await rewriteFollowUp('What about the deposit?', [RENT], { generator: new ScriptedGenerator(['{"question": "When is the deposit paid?"}']) });
    expect(kept).toEqual({ standalone: 'When is the deposit paid?', by: 'model' });
    expect(readRewrite('{"question": "When is the deposit paid?"}', 'What about the deposit?')).toBe('When is the deposit paid?');
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

  it('searches a question that stands on its own as typed, in a conversation of unrelated questions', () => {
    // A new user trying the app: one conversation, each question about something else. Every one of them
    // names its own subject; their pronouns and "that", "this", "there" point inside the question.
    const asked = [
      'What is the highest timestamp PostgreSQL can store?',
      'How do I sort a list of tuples by their third element?',
      'Where must a package install the copy of its license?',
      'What happens when a subprocess does not finish before its timeout?',
      'Is there a limit on the number of columns in a table?',
      'Is it possible to shrink a table after deleting most of its rows?',
      'What does it mean when git says that HEAD is detached?',
      'How long does it take to rebuild an index?',
      'Is there a command that lists the files of an installed package?',
      'How do I make sure that foreign keys are enforced?',
      'Which file lists the repositories APT downloads packages from?',
      'How do I undo the last commit but keep its changes?',
      'Does this version of Python still support the walrus operator?',
      'How long should a package synopsis be?',
      'What is the default port of the PostgreSQL server?',
      'Why does git bisect need a good and a bad commit?',
      'Can SQLite store dates, and how are they compared?',
      'What should a program do when its configuration file is missing?',
      'How do I mark a package as automatically installed so that autoremove can remove it?',
    ];
    asked.forEach((question, i) => {
      if (i === 0) return;
      expect(refersBack(question), question).toBe(false);
      expect(rewriteByRule(question, asked[i - 1]!)).toBe(question);
    });
  });

  it('still completes questions whose pronoun has nothing to point at in the question', () => {
    const previous = 'How do I configure the PostgreSQL server?';
    for (const question of ['Does it support IPv6?', 'What is its default port?', 'Where is it stored?', 'How do I change that?', 'What does that mean?', 'Is that the default?', 'How do I install them?', 'What happens then?', 'What else?']) {
      expect(refersBack(question), question).toBe(true);
      expect(rewriteByRule(question, previous), question).toMatch(/\(.*PostgreSQL server\)$/);
    }
  });

  it('is the rewrite without a model, and is named as such', async () => {
    expect(await rewriteFollowUp('How much is it?', [RENT])).toEqual({ standalone: 'How much is it? (rent paid)', by: 'rule' });
    expect(await rewriteFollowUp('Who repairs the heating?', [RENT])).toEqual({ standalone: 'Who repairs the heating?', by: 'none' });
  });
});
