import { describe, expect, it } from 'vitest';
import { indexFiles } from '../../src/eval/evaluate.ts';
import { readsAsContents } from '../../src/retrieve/contents-list.ts';
import { retrievePassages } from '../../src/retrieve/retrieve.ts';

const FAQ_CONTENTS = ['6.1. How many Debian distributions are there?', '6.2. What are all those names like etch, lenny, etc.?', '6.2.1. Which other codenames have been used in the past?', '6.2.2. Where do these codenames come from?', '6.3. What about "sid"?'].join('\n\n');

describe('readsAsContents', () => {
  it('knows a table of contents: numbered section titles, or titles with their pages', () => {
    expect(readsAsContents(FAQ_CONTENTS)).toBe(true);
    expect(readsAsContents('Table of Contents\n\n1. Introduction\n\n1.1 Scope\n\n1.2 Terms\n\n2. Installation\n\n2.1 Requirements')).toBe(true);
    expect(readsAsContents('Introduction ........ 1\nInstallation ........ 4\nConfiguration ........ 9\nIndex ........ 31')).toBe(true);
  });

  it('does not take a procedure, a numbered list of one level, or prose for one', () => {
    expect(readsAsContents('1. Open Settings.\n2. Choose Privacy.\n3. Turn off location.\n4. Restart the phone.')).toBe(false);
    expect(readsAsContents('1 Open Settings\n2 Choose Privacy\n3 Turn off location\n4 Restart the phone')).toBe(false);
    expect(readsAsContents('The rent is due on the first day.\n\nHeating repairs are made within ten days.\n\n1.2 million people live there.\n\nSee 4.1 for more.')).toBe(false);
    expect(readsAsContents('6.1. One entry\n6.2. Another')).toBe(false);
  });

  it('knows a contents page a PDF read as rows (no dot leaders), by its pages going up; not a table of numbers', () => {
    const rows = ['17 Conflicting packages | 120', '18 Virtual packages | 124', '19 Debian Policy changes process | 137', '20 Appendix | 140', '21 Index | 150'];
    expect(readsAsContents(rows.join('\n\n'))).toBe(true);
    expect(readsAsContents(['Setting | Default', 'max_connections | 100', 'port | 5432', 'work_mem | 4', 'shared_buffers | 128'].join('\n\n'))).toBe(false);
    expect(readsAsContents(['Year | Papers', '2019 | 5', '2020 | 8', '2021 | 12', '2022 | 15'].join('\n\n'))).toBe(false);
  });
});

describe('retrievePassages and tables of contents', () => {
  it('puts a passage that only lists sections after the passages that say something', async () => {
    const text = (s: string) => new TextEncoder().encode(s);
    const indexed = await indexFiles([
      { id: 'contents.md', name: 'contents.md', folder: '', bytes: text(`# The archives\n\n${FAQ_CONTENTS}\n\n6.4. Where do the codenames of releases come from, and what about sid?`) },
      { id: 'names.md', name: 'names.md', folder: '', bytes: text('# Release names\n\nThe codenames of releases come from characters of the film Toy Story.') },
    ]);
    const question = 'Where do the codenames of releases come from?';
    const passages = await retrievePassages(indexed.search, indexed.source, { text: question }, { k: 5 });
    expect(passages.map((p) => indexed.beirIdOf.get(p.docId))).toEqual(['names.md', 'contents.md']);
    const [only] = await retrievePassages(indexed.search, indexed.source, { text: question }, { k: 1 });
    expect(indexed.beirIdOf.get(only!.docId)).toBe('names.md');
  });
});
