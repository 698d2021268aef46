import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { expandQuery, MAX_PHRASING_CHARS, parseJsonObject, parsePhrasings } from '../../src/question/query-expansion.ts';
import { ScriptedGenerator } from '../../src/models/generator/scripted-generator.ts';

const QUESTION = 'When is the rent due?';

describe('expandQuery', () => {
  it('keeps the question first, then the phrasings the model wrote, asked for as JSON with the question as data', async () => {
    const generator = new ScriptedGenerator(['{"queries": ["rent payment date", "Which day must the tenant pay?", "monthly rent deadline"]}']);
    expect(await expandQuery(QUESTION, generator)).toEqual([QUESTION, 'rent payment date', 'Which day must the tenant pay?', 'monthly rent deadline']);
    const request = generator.requests[0]!;
    expect(request.json).toBe(true);
    expect(request.messages[0]!.content).toMatch(/different words/);
    expect(request.messages[1]!.content).toContain(`<question>\n${QUESTION}\n</question>`);
    expect(request.messages[1]!.content).toContain('Write 3 alternative phrasings');
  });

  it('asks for `count` phrasings (1–5) and keeps no more', async () => {
    const five = '{"queries": ["a b", "c d", "e f", "g h", "i j", "k l", "m n"]}';
    expect(await expandQuery(QUESTION, new ScriptedGenerator([five]), { count: 2 })).toEqual([QUESTION, 'a b', 'c d']);
    const many = new ScriptedGenerator([five]);
    expect(await expandQuery(QUESTION, many, { count: 50 })).toHaveLength(6);
    expect(many.requests[0]!.messages[1]!.content).toContain('Write 5 alternative');
    expect(await expandQuery(QUESTION, new ScriptedGenerator([five]), { count: 0 })).toEqual([QUESTION, 'a b']);
  });

  it('drops non-strings, empty, over-long and repeated phrasings (case and spaces ignored)', () => {
    const reply = JSON.stringify({ queries: [42, null, '', '   ', 'when IS the   rent due', 'rent due date', 'Rent due  date?', 'x'.repeat(MAX_PHRASING_CHARS + 1), { q: 'a' }, ' deadline for rent '] });
    expect(parsePhrasings(reply, QUESTION, 5)).toEqual(['rent due date', 'deadline for rent']);
  });

  it('reads the JSON object inside prose or a code fence', () => {
    expect(parsePhrasings('Sure! ```json\n{"queries": ["rent due date"]}\n```', QUESTION, 3)).toEqual(['rent due date']);
  });

  it('gives the question alone for a reply it cannot use, never throwing', async () => {
    for (const reply of ['not json at all', '{"queries": "rent"}', '[1, 2]', '{"phrasings": ["a"]}', '{"queries": [', '', 'null']) {
      expect(await expandQuery(QUESTION, new ScriptedGenerator([reply]))).toEqual([QUESTION]);
    }
  });

  it('does not ask the model once stopped', async () => {
    const generator = new ScriptedGenerator([]);
    expect(await expandQuery(QUESTION, generator, { signal: AbortSignal.abort() })).toEqual([QUESTION]);
    expect(generator.requests).toHaveLength(0);
  });
});

describe('a JSON reply cut short', () => {
  it('is read up to its last complete value: a cut string, a key without its value, are left out', () => {
    expect(parseJsonObject('{"sufficient": false, "missing": "the dose of the dose of the dose')).toEqual({ sufficient: false });
    expect(parseJsonObject('{"sufficient": true, "missing": "", "next_')).toEqual({ sufficient: true, missing: '' });
    expect(parseJsonObject('{"queries": ["rent due date", "when is the rent paid", "rent pay')).toEqual({ queries: ['rent due date', 'when is the rent paid'] });
    expect(parseJsonObject('Sure! {"sufficient": false, "missing": "a \\"quoted\\" word", "next_query": "dos')).toEqual({ sufficient: false, missing: 'a "quoted" word' });
    expect(parseJsonObject('{"a": {"b": [1, 2, 3')).toEqual({ a: { b: [1, 2] } });
  });

  it('gives nothing where no property was completed, and leaves whole replies as they were', () => {
    expect(parseJsonObject('{"sufficient": tr')).toBeUndefined();
    expect(parseJsonObject('{"missing": "a loop a loop a loop')).toBeUndefined();
    expect(parseJsonObject('I think the passages are enough.')).toBeUndefined();
    expect(parseJsonObject('[1, 2, 3')).toBeUndefined();
    expect(parseJsonObject('```json\n{"queries": ["a b"]}\n```')).toEqual({ queries: ['a b'] });
  });

  it('never throws, and what it reads is always a prefix of the reply closed (fast-check)', () => {
    const reply = fc.oneof(
      fc.json().map((j) => `{"k": ${j}, "s": "x"}`),
      fc.string(),
    );
    fc.assert(
      fc.property(reply, fc.nat(), (text, cut) => {
        const cutText = text.slice(0, cut % (text.length + 1));
        const value = parseJsonObject(cutText);
        if (value !== undefined) expect(typeof value).toBe('object');
      }),
    );
  });
});

describe('phrasings from a reply cut short', () => {
  it('keeps the phrasings completed before the cut', () => {
    expect(parsePhrasings('{"queries": ["rent due date", "monthly rent pay', 'When is the rent paid?', 3)).toEqual(['rent due date']);
  });
});

describe('a JSON reply cut short, hostile', () => {
  it('leaves a number cut between its digits out, and gives nothing for a long reply that is prose after its "{"', () => {
    expect(parseJsonObject('{"a": "x", "n": 12')).toEqual({ a: 'x' });
    expect(parseJsonObject('{"a": "x", "n": 12, "b": tru')).toEqual({ a: 'x', n: 12 });
    // 200,000 characters of prose after a "{", full of places where a literal ends: only the last few
    // are tried, one parse each.
    const prose = `{ ${'the model rambles on and on, 1 2 3 true null false, '.repeat(4000)}`;
    expect(parseJsonObject(prose)).toBeUndefined();
  });
});
