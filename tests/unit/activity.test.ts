import { describe, expect, it } from 'vitest';
import { addNotes, alreadyNote } from '../../src/ui/activity.ts';

describe('Activity list', () => {
  it('names the stored document a renamed copy matches, and only then', () => {
    expect(alreadyNote('copy.md', 'notes/original.md', 1).text).toBe('copy.md: already in library as notes/original.md');
    expect(alreadyNote('notes/original.md', 'notes/original.md', 1).text).toBe('notes/original.md: already in library');
  });

  it("summarises one drop's repeated notices in one line, keeping failures and other drops apart", () => {
    let notes = addNotes([], [{ text: 'Adding 65 files' }]);
    notes = addNotes(notes, [alreadyNote('a.md', undefined, 1), { text: 'bad.pdf: damaged', path: 'bad.pdf' }]);
    for (let i = 0; i < 62; i++) notes = addNotes(notes, [alreadyNote(`n${i}.md`, undefined, 1)]);
    expect(notes.map((n) => n.text)).toEqual(['63 already in library', 'bad.pdf: damaged', 'Adding 65 files']);
    // Each file's own line is kept behind the summary.
    expect(notes[0]?.group?.lines).toHaveLength(63);
    expect(notes[0]?.group?.lines?.[0]).toBe('a.md: already in library');
    notes = addNotes(notes, [{ text: 'Adding 1 file' }, alreadyNote('x.md', 'y.md', 2)]);
    expect(notes.map((n) => n.text).slice(0, 3)).toEqual(['x.md: already in library as y.md', 'Adding 1 file', '63 already in library']);
  });
});
