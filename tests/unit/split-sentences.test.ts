import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitSentences } from '../../src/text/split-sentences.ts';

const sentences = (text: string) => splitSentences(text).map(({ start, end }) => text.slice(start, end));

/** Each case: the sentences, joined by a space, must come back as they were. */
function expectSplit(...expected: string[]): void {
  expect(sentences(expected.join(' '))).toEqual(expected);
}

describe('splitSentences: English', () => {
  it('keeps decimals, prices and units inside their sentence', () => {
    expectSplit('She was earning €8.65 an hour.', 'Then she left.');
    expectSplit('The dose is 2.5 mg daily.', 'Take it with food.');
    expectSplit('Since 9.0, the colour architecture is new.', 'It shipped.');
    expectSplit('It is $8.65.', 'The value was 0.05.', 'Costs rose 3.5%.', 'Next.');
    expectSplit('Add 0.5 M.', 'The solution turns blue.');
  });

  it('keeps versions and section numbers inside their sentence', () => {
    expectSplit('Connect whenever TLS 1.3 is available.', 'Otherwise stop.');
    expectSplit('Upgrade to v2.10.1 now.', 'It fixes bugs.');
    expectSplit('See 4.6.1 for details.', 'It is described in Section 3.2.', 'The next part follows.');
  });

  it('does not end a sentence at an abbreviation', () => {
    expectSplit('See Fig. 2 for details.', 'Fig. A shows the flow.');
    expectSplit('Fruits, e.g. apples, are healthy.', 'Cities, e.g. Paris, are big.', 'One city, i.e. Paris, is big.');
    expectSplit('Item No. 5 is missing.', 'Call us.');
    expectSplit('Dr. Smith met Mr. Brown and Mrs. Green.', 'They talked.');
    expectSplit('Smith et al. found this.', 'Smith et al. (2019) agreed.', 'Jones et al. [12] did not.');
    expectSplit('Cats vs. Dogs is a film.', 'Roe v. Wade was decided.', 'Compare A vs. B here.');
    expectSplit('J. R. R. Tolkien wrote it.', 'The St. Louis office agreed.');
    expectSplit('Call Tel. +49 30 123.', 'Approx. 5 people came.');
  });

  it('keeps URLs and e-mail addresses whole', () => {
    expectSplit('Visit https://example.com/a.b?x=1 first.', 'Then log in.');
    expectSplit('See https://x.org/a?B=1&c=2 for more.', 'See https://x.org/#!/Home too.', 'Go to https://example.com/Page.', 'Done.');
    expectSplit('Mail jane.doe@example.co.uk for help.', 'Mail Jane.Doe@Example.com now.', 'Mail jane@x.com.', 'Then wait.');
  });

  it('handles ellipses', () => {
    expectSplit('He paused... then he spoke.');
    expectSplit('He paused… then he spoke.');
    expectSplit('He paused...', 'Then he spoke.');
    expectSplit('He paused…', 'Then he spoke.');
    expectSplit('He paused. . .', 'Then he spoke.');
  });

  it('keeps closing quotes and brackets with the sentence they end', () => {
    expectSplit('He said "Stop."', 'Then he left.');
    expectSplit('He said “Stop.”', 'Then he left.');
    expectSplit('(This is an aside.)', 'It was done [see 3.1.]', 'Next one.');
    expectSplit('"Why?" she asked.', 'Is it?', 'Yes.', '(Really?)', 'Wow!', 'Done!!!', 'Really?!', 'Yes.');
  });

  it('ends a sentence before a gene or product name written in lower case (p38, mTOR, iPSCs)', () => {
    expectSplit('It is induced as well.', 'p38 MAPK, a signaling mediator, is required.', 'mTOR is not.', 'iPSCs were used.');
    expectSplit('It inhibits kinases, e.g. p38 MAPK and mTOR.', 'Done.');
    expectSplit('It was done as well. then it stopped.');
  });

  it('ends sentences at newlines, and still at "etc." or "Inc." before a capital (ambiguous)', () => {
    expect(sentences('A heading\nFirst line.\n\nSecond paragraph')).toEqual(['A heading', 'First line.', 'Second paragraph']);
    expectSplit('The Inc.', 'Board met.');
  });
});

describe('splitSentences: German', () => {
  it('keeps "z. B.", "Nr.", "S.", ordinals and "3,5 %" inside their sentence', () => {
    expectSplit('Das kostet z. B. 3,5 % mehr.', 'Das kostet z.B. 3,5 % mehr.', 'Siehe Nr. 5 bzw. Nr. 6.', 'Ja.');
    expectSplit('Das ist d. h. wichtig, u. a. für Kinder.', 'Ja.');
    expectSplit('Es gilt z. B. Berlin.', 'Ja.');
    expectSplit('Siehe S. 12 und Abs. 3.', 'Es kostet ca. 12 Euro.', 'Ja.');
    expectSplit('Prof. Dr. Müller kam.', 'Sehr geehrte Frau Dr. Schmidt, hallo.');
    expectSplit('Er kam am 3. Oktober 2020.', 'Das war im 19. Jahrhundert.', 'Ja.');
    expectSplit('Er sagte „Halt.“', 'Dann ging er.');
    expectSplit('Es endet.', '»Halt«, rief sie.');
  });
});

describe('splitSentences: French', () => {
  it('keeps "M.", "p. ex." and "12,5 €" inside their sentence, and « » with their sentence', () => {
    expectSplit('M. Dupont est arrivé.', 'Il a payé 12,5 € par mois.');
    expectSplit('Des fruits, p. ex. des pommes, sont sains.', 'Des fruits, p. ex. Des pommes.');
    expectSplit('Mme. Curie et Mlle. Dupont.', 'MM. Dupont et Durand sont là.', 'Voir p. 12.', 'Voir chap. III.', 'Oui.');
    expectSplit('Il a dit « Stop ! »', 'Puis il partit.');
    expectSplit('Il a dit « Stop ! » puis partit.');
    expectSplit('Il a dit\u00a0: « Stop. »', 'Puis il partit.');
  });
});

describe('splitSentences: Japanese', () => {
  it('ends sentences at 。 and ！, not inside 「…。」と', () => {
    expect(sentences('東京は大きい。大阪も大きい！「はい。」と言った。')).toEqual(['東京は大きい。', '大阪も大きい！', '「はい。」と言った。']);
    expect(sentences('彼は「はい」と言った。Next sentence here.')).toEqual(['彼は「はい」と言った。', 'Next sentence here.']);
  });
});

describe('splitSentences: ranges', () => {
  it('returns offsets into the text, within [from, to) when given', () => {
    const text = '# Notes\n\nShe was earning €8.65 an hour. Dr. Smith paid.  ';
    const from = text.indexOf('She');
    const ranges = splitSentences(text, from, text.length);
    expect(ranges).toEqual([
      { start: from, end: from + 'She was earning €8.65 an hour.'.length },
      { start: text.indexOf('Dr.'), end: text.indexOf('paid.') + 5 },
    ]);
    expect(splitSentences('   \n\n ')).toEqual([]);
  });

  it('documents its example correctly', () => {
    const text = 'She earned €8.65 an hour, e.g. Fig. 2 shows. Then she left.';
    expect(splitSentences(text)).toEqual([{ start: 0, end: 44 }, { start: 45, end: 59 }]);
  });

  it('gives the same sentences in a paragraph far longer than one segmenter piece', () => {
    const parts = Array.from({ length: 400 }, (_, i) => `Sentence ${i} costs €${i}.65, e.g. in Fig. ${i} by Dr. Who.`);
    expect(sentences(parts.join(' '))).toEqual(parts);
    const long = `${'word '.repeat(3000)}end.`;
    expect(sentences(`${long} Next one.`)).toEqual([long, 'Next one.']);
  });
});

/** Text made of pieces that exercise every rule, with spaces, newlines and characters outside the BMP. */
const PIECES = ['a', 'Word', 'é', '日本', '😀', '8.65', 'v2.1', '.', '. ', '? ', '!', '…', '...', ' ', '  ', '\n', '\n\n', '\u00a0',
  'Dr.', 'e.g.', 'z. B.', 'M.', 'J.', 'No. 5', '3.', 'Oktober', '»', '«', '"', ')', '」', 'と', '。', 'https://x.org/a?b=1', 'x@y.com'];
const text = fc.array(fc.constantFrom(...PIECES), { maxLength: 120 }).map((ps) => ps.join(''));

describe('splitSentences properties', () => {
  it('returns ordered, non-overlapping, trimmed ranges covering every non-space character', () => {
    fc.assert(
      fc.property(text, (t) => {
        const ranges = splitSentences(t);
        let covered = 0;
        let last = 0;
        for (const { start, end } of ranges) {
          expect(start).toBeGreaterThanOrEqual(last);
          expect(end).toBeGreaterThan(start);
          expect(t[start]).toMatch(/\S/);
          expect(t[end - 1]).toMatch(/\S/);
          expect(t.slice(last, start)).toMatch(/^\s*$/);
          covered += end - start;
          last = end;
        }
        expect(t.slice(last)).toMatch(/^\s*$/);
        expect(covered).toBeGreaterThanOrEqual(t.replace(/\s/g, '').length);
      }),
      { numRuns: 500 },
    );
  });

  it('ends sentences only at newlines in text without terminators (found without the segmenter)', () => {
    const line = fc.array(fc.constantFrom('a', 'Word', ' ', '日本', ',', '»', '😀', '\u00a0'), { maxLength: 30 }).map((ps) => ps.join(''));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 200 }), (lines) => {
        const t = lines.join('\n');
        const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' });
        const icu = [...segmenter.segment(t)].map((s) => s.segment.trim()).filter(Boolean);
        expect(sentences(t)).toEqual(icu);
      }),
    );
  });

  it('splits a slice [from, to) as it splits that slice alone, shifted', () => {
    fc.assert(
      fc.property(text, fc.nat(), fc.nat(), (t, a, b) => {
        const from = t.length ? a % (t.length + 1) : 0;
        const to = from + (t.length - from ? b % (t.length - from + 1) : 0);
        const shifted = splitSentences(t.slice(from, to)).map((r) => ({ start: r.start + from, end: r.end + from }));
        expect(splitSentences(t, from, to)).toEqual(shifted);
      }),
      { numRuns: 300 },
    );
  });
});

describe('splitSentences cost', () => {
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  /** Inputs on which the segmenter alone is quadratic (160k newlines: 22 s in Node 20). */
  const SHAPES: Record<string, (n: number) => string> = {
    newlines: (n) => '\n'.repeat(n),
    initials: (n) => 'A. '.repeat(n / 3),
    questions: (n) => 'x?'.repeat(n / 2),
    'no spaces': (n) => 'abcdefghij'.repeat(n / 10),
  };
  for (const [name, shape] of Object.entries(SHAPES)) {
    it(`grows linearly with the text (${name}, 40k → 160k characters)`, () => {
      const small = shape(40_000);
      const large = shape(160_000);
      const t = { small: [] as number[], large: [] as number[] };
      for (let i = 0; i < 3; i++) {
        let s = performance.now();
        splitSentences(small);
        t.small.push(performance.now() - s);
        s = performance.now();
        splitSentences(large);
        t.large.push(performance.now() - s);
      }
      // 4× the input: linear ≈ 4, quadratic ≥ 16. The floor keeps timer noise out of the ratio.
      expect(median(t.large) / Math.max(median(t.small), 20)).toBeLessThan(10);
    }, 60_000);
  }
});
