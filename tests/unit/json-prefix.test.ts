// The JSON-object prefix check a constrained decoder relies on: every prefix of a JSON object's text
// (compact or indented, any values, any Unicode, cut at any byte) passes and the whole text completes;
// whatever it calls complete parses as an object; texts that can never become one are refused at the
// byte where they go wrong; whitespace runs are bounded.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonShape } from '../../src/models/generator/generator.ts';
import { JsonObjectPrefix, MAX_SPACE } from '../../src/models/generator/json-prefix.ts';
import { FILTER_SHAPE } from '../../src/question/read-filters.ts';
import { VERDICT_SHAPE } from '../../src/question/multi-hop.ts';
import { expansionShape } from '../../src/question/query-expansion.ts';

const utf8 = (s: string) => new TextEncoder().encode(s);
const fed = (text: string, shape?: JsonShape) => {
  const p = new JsonObjectPrefix(shape);
  return { ok: p.push(utf8(text)), complete: p.complete };
};

describe('JsonObjectPrefix', () => {
  it('passes every byte prefix of any JSON object, and completes at its end', () => {
    const object = fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 });
    fc.assert(
      fc.property(object, fc.constantFrom(0, 2), (value, indent) => {
        const bytes = utf8(JSON.stringify(value, null, indent));
        const p = new JsonObjectPrefix();
        for (let i = 0; i < bytes.length; i++) {
          expect(p.complete).toBe(false);
          expect(p.push(bytes.subarray(i, i + 1))).toBe(true);
        }
        expect(p.complete).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('calls complete only what JSON.parse reads as an object', () => {
    const piece = fc.constantFrom('{', '}', '[', ']', '"', ':', ',', ' ', 'a', '1', '-', '.', 'e', 'true', 'null', '\\', '\\u00e9', 'é', '\n');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (pieces) => {
        const text = pieces.join('');
        const { ok, complete } = fed(text);
        if (ok && complete) {
          const value: unknown = JSON.parse(text);
          expect(typeof value === 'object' && value !== null && !Array.isArray(value)).toBe(true);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('refuses what can never become an object: prose, a code fence, an array at the top, a bad literal, text after the end', () => {
    for (const bad of ['Sure! {', '```json\n{', '[1]', '{"a": tru3}', '{"a": 01}', '{"a" 1}', '{a: 1}', '{"a": 1}}', '{"a": 1} ', '{"a": "x\ny"}', '{"a": -}']) {
      expect(fed(bad).ok, bad).toBe(false);
    }
    expect(fed('{"queries": ["rent due date", "When must rent be paid?"]}')).toEqual({ ok: true, complete: true });
    expect(fed('{"sufficient": false, "missing": "the date", "next_query": "lease start"')).toEqual({ ok: true, complete: false });
  });

  it('bounds whitespace between tokens, so a model cannot pad until its budget runs out', () => {
    expect(fed(`{${' '.repeat(MAX_SPACE)}"a": 1}`).ok).toBe(true);
    expect(fed(`{${' '.repeat(MAX_SPACE + 1)}`).ok).toBe(false);
    expect(fed(`{"a": "${' '.repeat(100)}"}`).ok).toBe(true); // inside a string it is text
  });

  it('try() leaves the state as it was', () => {
    const p = new JsonObjectPrefix();
    p.push(utf8('{"a": '));
    expect(p.try(utf8('x'))).toBeUndefined();
    expect(p.try(utf8('1}'))?.complete).toBe(true);
    expect(p.complete).toBe(false);
    expect(p.push(utf8('"b"}'))).toBe(true);
    expect(p.complete).toBe(true);
  });

  it('with a shape: every prefix of an object of that shape passes, in any key order after its required keys', () => {
    const text = fc.string({ maxLength: 40 });
    const expansion = fc.record({ queries: fc.array(text, { minLength: 1, maxLength: 3 }) }, { requiredKeys: [] });
    // The verdict's `sufficient` is required, so it comes first (fc.record writes keys in this order).
    const verdict = fc.record({ sufficient: fc.boolean(), missing: text, next_query: text }, { requiredKeys: ['sufficient'] });
    const filters = fc.record({ documents: fc.array(text, { maxLength: 4 }), from: fc.option(fc.constant('2024-01-31'), { nil: null }) }, { requiredKeys: [] });
    const cases: Array<[fc.Arbitrary<object>, JsonShape]> = [[expansion, expansionShape(3)], [verdict, VERDICT_SHAPE], [filters, FILTER_SHAPE]];
    for (const [values, shape] of cases) {
      fc.assert(
        fc.property(values, fc.constantFrom(0, 2), (value, indent) => {
          expect(fed(JSON.stringify(value, null, indent), shape)).toEqual({ ok: true, complete: true });
        }),
        { numRuns: 150 },
      );
    }
  });

  it('with a shape: refuses other keys, a key twice, values of another type, too many items, over-long strings', () => {
    const queries = expansionShape(3);
    expect(fed('{"queries": [{"id"', queries).ok).toBe(false); // objects where strings are asked
    expect(fed('{"queri', queries).ok).toBe(true);
    expect(fed('{"querx', queries).ok).toBe(false);
    expect(fed('{"queries": ["a", "b", "c"]}', queries)).toEqual({ ok: true, complete: true });
    expect(fed('{"queries": ["a", "b", "c",', queries).ok).toBe(false);
    expect(fed('{"queries": []', queries).ok).toBe(false); // at least one phrasing
    expect(fed('{"queries": ["a"], "queries"', queries).ok).toBe(false);
    expect(fed('{"queries": ["a"],', queries).ok).toBe(false); // no key is left to write
    expect(fed('{"sufficient": "yes"', VERDICT_SHAPE).ok).toBe(false);
    // Required keys first, in their order, and no close without them.
    expect(fed('{"next_query": "dose"', VERDICT_SHAPE).ok).toBe(false);
    expect(fed('{"missing"', VERDICT_SHAPE).ok).toBe(false);
    expect(fed('{}', VERDICT_SHAPE).ok).toBe(false);
    expect(fed('{"sufficient": false, "next_query": "dose", "missing": ""}', VERDICT_SHAPE)).toEqual({ ok: true, complete: true });
    const two: JsonShape = { type: 'object', properties: { a: { type: 'boolean' }, b: { type: 'boolean' }, c: { type: 'boolean' } }, required: ['a', 'b'] };
    expect(fed('{"b": true', two).ok).toBe(false);
    expect(fed('{"a": true}', two).ok).toBe(false);
    expect(fed('{"a": true, "c"', two).ok).toBe(false);
    expect(fed('{"a": true, "b": false}', two)).toEqual({ ok: true, complete: true });
    expect(fed('{"sufficient": null', VERDICT_SHAPE).ok).toBe(false);
    expect(fed('{"from": null, "to": "2024-01-31"}', FILTER_SHAPE)).toEqual({ ok: true, complete: true });
    expect(fed('{"from": "2024-01-31T00', FILTER_SHAPE).ok).toBe(false); // longer than a date
  });
});
