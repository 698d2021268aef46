import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Block } from '../../src/core/types.ts';
import { chunkBlocks, chunkText, type ChunkOptions } from '../../src/ingest/chunk.ts';

/** Words: plain ASCII, accented Latin, CJK, emoji, digits, and some very long runs with no spaces. */
const ALPHABETS = ['abcdefghijklmnopqrstuvwxyz', 'ABCXYZ', 'éèàçöüßñø', '中文字檔案', '😀🎉🧪', '0123456789', "-'’()"];
const letter = fc.constantFrom(...ALPHABETS.flatMap((a) => [...a]));
const shortWord = fc.array(letter, { minLength: 1, maxLength: 12 }).map((cs) => cs.join(''));
const longWord = fc.array(letter, { minLength: 50, maxLength: 900 }).map((cs) => cs.join(''));
const word = fc.oneof({ weight: 30, arbitrary: shortWord }, { weight: 1, arbitrary: longWord });
const gap = fc.constantFrom(' ', ' ', ' ', '  ', '\n', ' \t', '\u00A0');
const sentence = fc
  .tuple(fc.array(fc.tuple(word, gap), { minLength: 1, maxLength: 30 }), fc.constantFrom('.', '!', '?', '…', '."', '', ';'))
  .map(([parts, end]) => parts.map(([w, g], i) => (i === parts.length - 1 ? w : w + g)).join('') + end);
const paragraph = fc.array(sentence, { minLength: 1, maxLength: 8 }).map((s) => s.join(' '));
const paragraphBreak = fc.constantFrom('\n\n', '\n\n\n', '\n \n', '\n\n  ');
const text = fc
  .tuple(fc.array(fc.tuple(paragraph, paragraphBreak), { minLength: 1, maxLength: 10 }), fc.constantFrom('', ' ', '\n', '  \n\n'))
  .map(([parts, lead]) => lead + parts.map(([p, b]) => p + b).join('').trimEnd());

const options: fc.Arbitrary<ChunkOptions> = fc
  .integer({ min: 100, max: 400 })
  .chain((maxChars) =>
    fc.record({
      maxChars: fc.constant(maxChars),
      overlapChars: fc.integer({ min: 0, max: Math.floor(maxChars / 2) }),
      parentChars: fc.integer({ min: maxChars, max: maxChars * 4 }),
    }),
  );

const RUNS = { numRuns: 300 };

describe('chunkText properties', () => {
  it('covers every non-whitespace character of the text', () => {
    fc.assert(
      fc.property(text, options, (t, o) => {
        const chunks = chunkText(t, o);
        for (let i = 0; i < t.length; i++) {
          if (/\s/.test(t[i]!)) continue;
          if (!chunks.some((c) => c.start <= i && i < c.end)) {
            throw new Error(`character ${i} (${JSON.stringify(t[i])}) is in no chunk`);
          }
        }
      }),
      RUNS,
    );
  });

  it('never makes a chunk longer than maxChars, nor an empty or whitespace-padded one', () => {
    fc.assert(
      fc.property(text, options, (t, o) => {
        for (const c of chunkText(t, o)) {
          expect(c.end - c.start).toBeLessThanOrEqual(o.maxChars);
          expect(c.end).toBeGreaterThan(c.start);
          expect(t[c.start]).toMatch(/\S/);
          expect(t[c.end - 1]).toMatch(/\S/);
        }
      }),
      RUNS,
    );
  });

  it('keeps chunks in order, starts strictly increasing, consecutive overlap at most overlapChars', () => {
    fc.assert(
      fc.property(text, options, (t, o) => {
        const chunks = chunkText(t, o);
        for (let i = 1; i < chunks.length; i++) {
          const prev = chunks[i - 1]!;
          const cur = chunks[i]!;
          expect(cur.start).toBeGreaterThan(prev.start);
          expect(cur.end).toBeGreaterThan(prev.end);
          expect(Math.max(0, prev.end - cur.start)).toBeLessThanOrEqual(o.overlapChars);
        }
      }),
      RUNS,
    );
  });

  it('is deterministic', () => {
    fc.assert(
      fc.property(text, options, (t, o) => {
        expect(chunkText(t, o)).toEqual(chunkText(t, o));
      }),
      { numRuns: 100 },
    );
  });

  it('returns no chunk for blank text', () => {
    fc.assert(
      fc.property(fc.array(gap, { maxLength: 20 }), options, (gaps, o) => {
        expect(chunkText(gaps.join(''), o)).toEqual([]);
      }),
    );
  });
});

describe('chunkBlocks properties', () => {
  const blocks = fc.array(text.map<Block>((t) => ({ label: 'x', text: t })), { minLength: 1, maxLength: 4 });

  it('gives every chunk a parent window that contains it and is at most max(parentChars, chunk length) long', () => {
    fc.assert(
      fc.property(blocks, options, (bs, o) => {
        for (const s of chunkBlocks(bs, o)) {
          const blockText = bs[s.block]!.text;
          expect(s.parentStart).toBeGreaterThanOrEqual(0);
          expect(s.parentEnd).toBeLessThanOrEqual(blockText.length);
          expect(s.parentStart).toBeLessThanOrEqual(s.start);
          expect(s.parentEnd).toBeGreaterThanOrEqual(s.end);
          expect(s.parentEnd - s.parentStart).toBeLessThanOrEqual(Math.max(o.parentChars, s.end - s.start));
        }
      }),
      RUNS,
    );
  });

  it('numbers chunks in reading order, never crossing blocks, and matches chunkText per block', () => {
    fc.assert(
      fc.property(blocks, options, (bs, o) => {
        const spans = chunkBlocks(bs, o);
        spans.forEach((s, i) => expect(s.ordinal).toBe(i));
        for (let i = 1; i < spans.length; i++) expect(spans[i]!.block).toBeGreaterThanOrEqual(spans[i - 1]!.block);
        bs.forEach((b, i) => {
          const own = spans.filter((s) => s.block === i).map(({ start, end }) => ({ start, end }));
          expect(own).toEqual(chunkText(b.text, o));
        });
        expect(chunkBlocks(bs, o)).toEqual(spans);
      }),
      { numRuns: 150 },
    );
  });
});

describe('chunking examples', () => {
  const o: ChunkOptions = { maxChars: 100, overlapChars: 0, parentChars: 300 };

  it('packs whole paragraphs into one chunk when they fit, and starts a new chunk at a paragraph boundary', () => {
    const p1 = 'The tenant rented the flat in 2019.';
    const p2 = 'The landlord kept the deposit.';
    const p3 = 'The tenant asks for the deposit back, with interest, and for the costs of these proceedings.';
    const t = `${p1}\n\n${p2}\n\n${p3}`;
    const chunks = chunkText(t, o).map((c) => t.slice(c.start, c.end));
    expect(chunks).toEqual([`${p1}\n\n${p2}`, p3]);
  });

  it('splits a paragraph that is too long at sentence ends, never mid-word', () => {
    const sentences = Array.from({ length: 6 }, (_, i) => `Sentence number ${i + 1} talks about fisheries quotas.`);
    const t = sentences.join(' ');
    const chunks = chunkText(t, o).map((c) => t.slice(c.start, c.end));
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) expect(c).toMatch(/^Sentence number \d.*\.$/);
    expect(chunks.join(' ')).toBe(t);
  });

  it('overlaps consecutive chunks by whole words when overlap is allowed', () => {
    const t = Array.from({ length: 20 }, (_, i) => `Fact ${i} is short.`).join(' ');
    const chunks = chunkText(t, { maxChars: 100, overlapChars: 30, parentChars: 100 });
    expect(chunks.length).toBeGreaterThan(1);
    for (let i = 1; i < chunks.length; i++) {
      const cur = chunks[i]!;
      expect(chunks[i - 1]!.end - cur.start).toBeGreaterThan(0);
      expect(t[cur.start - 1]).toBe(' ');
    }
  });

  it('uses the whole block as parent window when the block is short', () => {
    const t = 'First paragraph here.\n\nSecond paragraph, a little longer than the first one.\n\nThird.';
    const spans = chunkBlocks([{ label: 'a', text: t }], { maxChars: 100, overlapChars: 0, parentChars: 1000 });
    for (const s of spans) expect([s.parentStart, s.parentEnd]).toEqual([0, t.length]);
  });
});

describe('characters outside the BMP', () => {
  it('never cuts an emoji in half when a long word must be split', () => {
    const text = '😀'.repeat(120) + 'a' + '😀'.repeat(120);
    const chunks = chunkText(text, { maxChars: 101, overlapChars: 0, parentChars: 200 });
    for (const c of chunks) {
      const piece = text.slice(c.start, c.end);
      expect(piece).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
    }
  });
});
