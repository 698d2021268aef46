import { describe, expect, it } from 'vitest';
import { addingNote, addNotes, alreadyNote, emptyTally, finishRun, runSummary } from '../../src/ui/activity.ts';

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

describe('the end of a run', () => {
  it('replaces the "Adding N files" lines with what became of the files, keeping failures and summaries', () => {
    let notes = addNotes([{ text: 'older line' }], [addingNote(24)]);
    notes = addNotes(notes, [{ text: 'bad.pdf: damaged', path: 'bad.pdf' }, alreadyNote('a.md', undefined, 1), alreadyNote('b.md', undefined, 1)]);
    notes = addNotes(notes, [addingNote(1)]);
    expect(notes.map((n) => n.text)).toEqual(['Adding 1 file', '2 already in library', 'bad.pdf: damaged', 'Adding 24 files', 'older line']);
    const done = finishRun(notes, { indexed: 21, updated: 1, already: 2, failed: 1 });
    expect(done.map((n) => n.text)).toEqual(['Done: 21 indexed, 1 updated, 2 already in library, 1 failed', '2 already in library', 'bad.pdf: damaged', 'older line']);
    // A run with no drop of this tab's (another tab's files) leaves the list alone.
    expect(finishRun(done, { indexed: 3, updated: 0, already: 0, failed: 0 })).toEqual(done);
  });

  it('closes only the drops the run counted: a drop listed just before the page hears the run end waits for its own run', () => {
    let notes = addNotes([], [addingNote(2)]);
    // The next drop is listed before the first run's end reaches the page.
    notes = addNotes(notes, [addingNote(30)]);
    notes = finishRun(notes, { indexed: 2, updated: 0, already: 0, failed: 0 });
    expect(notes.map((n) => n.text)).toEqual(['Adding 30 files', 'Done: 2 indexed']);
    notes = addNotes(notes, [alreadyNote('copy-0.md', 'original.md', 2)]);
    notes = finishRun(notes, { indexed: 0, updated: 0, already: 30, failed: 0 });
    expect(notes.map((n) => n.text)).toEqual(['copy-0.md: already in library as original.md', 'Done: 30 already in library', 'Done: 2 indexed']);
    // A drop some of whose files never reached the queue is closed all the same.
    expect(finishRun(addNotes([], [addingNote(5)]), { indexed: 3, updated: 0, already: 0, failed: 0 }).map((n) => n.text)).toEqual(['Done: 3 indexed']);
  });

  it('says only what happened', () => {
    expect(runSummary({ indexed: 5, updated: 0, already: 0, failed: 0 })).toBe('Done: 5 indexed');
    expect(runSummary({ indexed: 0, updated: 0, already: 3, failed: 2 })).toBe('Done: 3 already in library, 2 failed');
    expect(runSummary(emptyTally())).toBe('Done: nothing added');
    expect(runSummary({ ...emptyTally(), indexed: 4, readAgain: 2, noText: 3, failed: 1 })).toBe('Done: 4 indexed, 2 read again, 3 pictures without text left out, 1 failed');
  });
});
