import { describe, expect, it } from 'vitest';
import type { Passage } from '../../src/core/types.ts';
import type { TermStatistics } from '../../src/generate/extractive-answer.ts';
import type { ChatMessage, GenerateRequest } from '../../src/models/generator/generator.ts';
import { mapReduceAnswer } from '../../src/generate/map-reduce.ts';
import { buildMapMessages, MAP_RULES, NOTHING_RELEVANT } from '../../src/generate/map-reduce-prompt.ts';
import { countMessageTokens, SYSTEM_RULES } from '../../src/generate/prompt.ts';
import { countScriptedTokens, ScriptedGenerator } from '../../src/models/generator/scripted-generator.ts';
import { buildWholeDocumentExtract } from '../../src/generate/whole-document-extract.ts';
import { sectionRanges } from '../../src/library/whole-document.ts';
import { makePassage } from '../support/passages.ts';

const stats: TermStatistics = { documentCount: 50, documentFrequency: () => 1 };
const count = (text: string) => Promise.resolve(countScriptedTokens(text));

const FRUITS = ['apple', 'pear', 'plum', 'cherry', 'melon', 'grape', 'lemon', 'mango', 'peach', 'fig', 'lime', 'kiwi'];
/** Section i of a lease: a distinct deadline sentence, then filler about the same clause. */
function section(i: number): Passage {
  const fruit = FRUITS[i % FRUITS.length]!;
  const text = `Clause ${i + 1} sets deadline number ${i + 1}: The ${fruit} report is due on day ${i + 1} of the term. `
    + `The tenant keeps a copy of the ${fruit} report. `.repeat(4)
    + `Late ${fruit} reports cost ${i + 1} euros.`;
  return makePassage(text, { docName: 'lease.md', block: i, label: `Clause ${i + 1}` });
}
const sectionsOf = (n: number) => Array.from({ length: n }, (_, i) => section(i));

/** The [n] numbers of the passages a map request quotes. */
function passageNumbers(messages: readonly ChatMessage[]): number[] {
  return [...messages[1]!.content.matchAll(/<passage n="(\d+)"/g)].map((m) => Number(m[1]));
}

/**
 * A model that takes, for each passage it is shown, the passage's first sentence as a note; that combines
 * notes by repeating them (and, in the final answer, adds `extra`).
 */
function notesModel(sections: readonly Passage[], extra = '', contextTokens = 1024) {
  return new ScriptedGenerator(
    (messages) => {
      if (messages[0]!.content === MAP_RULES || messages[0]!.content === SYSTEM_RULES) {
        const ns = passageNumbers(messages);
        return ns.map((n) => `${sections[n - 1]!.window.split(': ')[1]!.split('. ')[0]} [${n}].`).join(' ') + (messages[0]!.content === SYSTEM_RULES ? extra : '');
      }
      const notes = [...messages[1]!.content.matchAll(/<notes>\n([^<]*)\n<\/notes>/g)].map((m) => m[1]!).join(' ');
      return messages[0]!.content.startsWith('You answer') ? `${notes}${extra}` : notes;
    },
    { model: { contextTokens } },
  );
}

async function expectWithinWindow(requests: readonly GenerateRequest[], contextTokens: number): Promise<void> {
  for (const r of requests) expect(await countMessageTokens(r.messages, count)).toBeLessThanOrEqual(contextTokens - r.maxTokens!);
}

describe('mapReduceAnswer (a question about a whole document)', () => {
  it('reads every section once in parts that fit the window, numbers citations across parts, checks them, and streams the answer', async () => {
    const sections = sectionsOf(12);
    const generator = notesModel(sections, ' Pets are welcome in every flat [999].');
    const progress: Array<[number, number]> = [];
    const pieces: string[] = [];
    const answer = await mapReduceAnswer('List every deadline in lease.md', { generator, sections, stats, onProgress: (d, t) => progress.push([d, t]), onText: (p) => pieces.push(p) });

    await expectWithinWindow(generator.requests, 1024);
    const maps = generator.requests.filter((r) => r.messages[0]!.content === MAP_RULES);
    expect(maps.length).toBeGreaterThan(2);
    // Every section read once, numbered 1..12 across the parts.
    expect(maps.flatMap((r) => passageNumbers(r.messages))).toEqual(sections.map((_, i) => i + 1));
    expect(progress[0]).toEqual([0, maps.length]);
    expect(progress.at(-1)).toEqual([maps.length, maps.length]);
    // The reduce step (the last request) streamed.
    expect(generator.requests.length).toBe(maps.length + 1);
    expect(pieces.join('')).toContain('[999]');

    expect(answer.found).toBe(true);
    expect(answer.generatedBy).toBe('Scripted generator');
    const cited = answer.citations.map((c) => c.passage.block);
    expect(new Set(cited).size).toBe(12);
    expect(answer.segments.find((s) => s.text.includes('The apple report is due on day 1'))?.cite).toBe(cited.indexOf(0) + 1);
    expect(answer.segments.find((s) => s.text.includes('The kiwi report is due on day 12'))?.cite).toBe(cited.indexOf(11) + 1);
    // The citation to a passage the model never had is removed; its sentence is marked.
    expect(answer.removedCitations).toEqual([{ n: 999, reason: 'no-such-passage', sentence: 'Pets are welcome in every flat.' }]);
    expect(answer.segments.find((s) => s.text.startsWith('Pets'))?.unsupported).toBe(true);
  });

  it('drops a part\'s notes that cite a passage of another part or that no passage supports', async () => {
    const sections = sectionsOf(12);
    const generator = new ScriptedGenerator(
      (messages) => {
        if (messages[0]!.content === MAP_RULES) {
          const [first] = passageNumbers(messages);
          // Cites a real section, but not one of this part; and a made-up fact.
          return `The ${FRUITS[(first! - 1) % 12]} report is due on day ${first} of the term [${first}]. The kiwi report is due on day 12 of the term [12]. The landlord owns a yacht [${first}].`;
        }
        return [...messages[1]!.content.matchAll(/<notes>\n([^<]*)\n<\/notes>/g)].map((m) => m[1]!).join(' ');
      },
      { model: { contextTokens: 1024 } },
    );
    const answer = await mapReduceAnswer('List every deadline in lease.md', { generator, sections, stats });
    const reduce = generator.requests.at(-1)!.messages[1]!.content;
    expect(reduce).not.toContain('yacht');
    // Only the part holding section 12 keeps its note about it.
    expect(reduce.split('kiwi report is due on day 12').length - 1).toBe(1);
    expect(answer.removedCitations).toEqual([]);
  });

  it('Stop while reading keeps the notes written so far, and reads no further part', async () => {
    const sections = sectionsOf(12);
    const generator = notesModel(sections);
    const controller = new AbortController();
    const answer = await mapReduceAnswer('Summarise lease.md', {
      generator,
      sections,
      stats,
      signal: controller.signal,
      onProgress: (done) => done === 2 && controller.abort(),
    });
    expect(generator.requests.length).toBe(2);
    expect(answer.stopped).toBe(true);
    expect(answer.found).toBe(true);
    const read = generator.requests.flatMap((r) => passageNumbers(r.messages));
    expect(answer.citations.map((c) => c.passage.block + 1).sort((a, b) => a - b)).toEqual(read);
  });

  it('Stop while the answer is written keeps what was written', async () => {
    const sections = sectionsOf(12);
    const generator = notesModel(sections, ' Done.', 1024);
    const controller = new AbortController();
    let written = '';
    const answer = await mapReduceAnswer('List every deadline in lease.md', {
      generator,
      sections,
      stats,
      signal: controller.signal,
      onText: (p) => {
        written += p;
        if (written.includes('day 2 of')) controller.abort();
      },
    });
    expect(answer.stopped).toBe(true);
    expect(answer.segments.map((s) => s.text).join(' ')).toContain('day 1 of the term');
    expect(answer.segments.map((s) => s.text).join(' ')).not.toContain('day 5 of the term');
  });

  it('reads a 200-section document within the window, reducing its notes in rounds', async () => {
    const sections = sectionsOf(200);
    const generator = notesModel(sections, '', 2048);
    const progress: number[] = [];
    const answer = await mapReduceAnswer('List every deadline in lease.md', { generator, sections, stats, onProgress: (d) => progress.push(d) });
    await expectWithinWindow(generator.requests, 2048);
    const maps = generator.requests.filter((r) => r.messages[0]!.content === MAP_RULES);
    expect(maps.flatMap((r) => passageNumbers(r.messages))).toEqual(sections.map((_, i) => i + 1));
    expect(progress.at(-1)).toBe(maps.length);
    // More notes than one request holds: combined in rounds before the final answer.
    const rounds = generator.requests.filter((r) => r.messages[0]!.content.startsWith('You combine'));
    expect(rounds.length).toBeGreaterThan(0);
    expect(answer.found).toBe(true);
    expect(answer.citations.length).toBeGreaterThan(10);
  });

  it('a document that fits one request is answered in one request, with the ordinary prompt', async () => {
    const sections = sectionsOf(3);
    const generator = notesModel(sections, '', 4096);
    const progress: Array<[number, number]> = [];
    const answer = await mapReduceAnswer('Summarise lease.md', { generator, sections, stats, onProgress: (d, t) => progress.push([d, t]) });
    expect(generator.requests.length).toBe(1);
    expect(generator.requests[0]!.messages[0]!.content).toBe(SYSTEM_RULES);
    expect(progress).toEqual([[1, 1]]);
    expect(answer.citations.map((c) => c.passage.block)).toEqual([0, 1, 2]);
  });

  it('a document with nothing for the question is not found', async () => {
    const sections = sectionsOf(12);
    const generator = new ScriptedGenerator((messages) => (messages[0]!.content === MAP_RULES ? NOTHING_RELEVANT : 'unused'), { model: { contextTokens: 1024 } });
    const answer = await mapReduceAnswer('List every pet in lease.md', { generator, sections, stats });
    expect(answer.found).toBe(false);
    expect(generator.requests.every((r) => r.messages[0]!.content === MAP_RULES)).toBe(true);
  });
});

describe('buildWholeDocumentExtract (without a model)', () => {
  it('a summary quotes each section\'s first sentence in document order, cited', () => {
    const sections = sectionsOf(4);
    const answer = buildWholeDocumentExtract('Summarise lease.md', sections, { kind: 'summary', topic: '' });
    expect(answer.segments.map((s) => [s.text.slice(0, 9), s.cite])).toEqual([['Clause 1 ', 1], ['Clause 2 ', 2], ['Clause 3 ', 3], ['Clause 4 ', 4]]);
    expect(answer.citations.map((c) => c.passage.block)).toEqual([0, 1, 2, 3]);
  });

  it('a summary skips numbered headings and a fragment continuing the section before (sections as bashref.pdf reads)', () => {
    const sections = [
      '3.1.3 Comments',
      '6.3.1 What is an Interactive Shell? An interactive shell is one started without non-option arguments.',
      'the user in the filename to be completed. Readline completes the text before point as a file name.',
      '10.2 Compilers and Options Some systems require unusual options for compilation or linking.',
    ].map((text, i) => makePassage(text, { docName: 'bashref.pdf', block: i }));
    const answer = buildWholeDocumentExtract('Summarise bashref.pdf', sections, { kind: 'summary', topic: '' });
    expect(answer.segments.map((s) => s.text)).toEqual([
      'An interactive shell is one started without non-option arguments.',
      'Readline completes the text before point as a file name.',
      '10.2 Compilers and Options Some systems require unusual options for compilation or linking.',
    ]);
    // A section whose only sentence continues another is still quoted rather than left out.
    expect(buildWholeDocumentExtract('Summarise', [makePassage('and then the shell exits with status 2.', { docName: 'x.md' })], { kind: 'summary', topic: '' }).segments.map((s) => s.text)).toEqual(['and then the shell exits with status 2.']);
  });

  it('a list quotes the sentences of every section about the topic, in document order', () => {
    const sections = sectionsOf(12);
    const answer = buildWholeDocumentExtract('List every deadline in lease.md', sections, { kind: 'list', topic: 'deadline', stats });
    expect(answer.segments.map((s) => s.text.match(/deadline number (\d+)/)?.[1])).toEqual(sections.map((_, i) => String(i + 1)));
  });

  it('a topic no section mentions is not found', () => {
    expect(buildWholeDocumentExtract('List every pet', sectionsOf(3), { kind: 'list', topic: 'pet', stats }).found).toBe(false);
  });
});

describe('mapReduceAnswer with a question that fills the window', () => {
  it('asks the person to shorten the question rather than to choose a model with a larger window', async () => {
    const sections = sectionsOf(12);
    const generator = notesModel(sections);
    const pasted = `List every deadline in lease.md: ${'and the deadlines of the other clauses too '.repeat(120)}`;
    await expect(mapReduceAnswer(pasted, { generator, sections, stats })).rejects.toMatchObject({ code: 'prompt-too-long', message: expect.stringMatching(/^Your question is too long for Scripted generator: .*Shorten the question/) });
    expect(generator.requests).toHaveLength(0);
  });
});

describe('mapReduceAnswer with a window that holds the rules but no document text', () => {
  it('says the window is too small (as with the tiny 512-token decoder) instead of "Not found in your documents"', async () => {
    const sections = sectionsOf(6);
    const base = await countMessageTokens(buildMapMessages('Summarise lease.md', [], { part: 99_999, parts: 99_999, docName: 'lease.md' }), count);
    // The smallest window whose map requests hold the rules and the question, with a few tokens to spare.
    let contextTokens = base;
    while (contextTokens - Math.floor(contextTokens / 4) <= base) contextTokens++;
    const generator = notesModel(sections, '', contextTokens);
    await expect(mapReduceAnswer('Summarise lease.md', { generator, sections, stats })).rejects.toMatchObject({ code: 'prompt-too-long', message: expect.stringMatching(/context window \(\d+ tokens\) is too small .* choose a model with a larger window/) });
    expect(generator.requests).toHaveLength(0);
  });
});

describe('sectionRanges', () => {
  it('cuts a long block after sentences into pieces of at most the limit, covering it all', () => {
    const text = Array.from({ length: 40 }, (_, i) => `Sentence ${i} says something of moderate length here.`).join(' ') + ` ${'x'.repeat(250)}`;
    const ranges = sectionRanges(text, 200);
    expect(ranges[0]!.start).toBe(0);
    expect(ranges.at(-1)!.end).toBe(text.length);
    ranges.forEach((r, i) => {
      expect(r.end - r.start).toBeLessThanOrEqual(200);
      if (i) expect(r.start).toBe(ranges[i - 1]!.end);
    });
    expect(text.slice(ranges[0]!.start, ranges[0]!.end).trimEnd().endsWith('here.')).toBe(true);
  });
});
