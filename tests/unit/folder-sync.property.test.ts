// Folder sync by a second drop (or a linked folder read through): applying the difference to the library equals rebuilding the folder from
// the drop (property test), unchanged files are exactly those with the same size and time, and the
// summary says what changed.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeDiff, folderDiff, topFolder, type Fingerprint } from '../../src/library/folder-sync.ts';

const path = fc.tuple(fc.constantFrom('', 'Contracts/', 'Contracts/2024/', 'Course/'), fc.constantFrom('a.pdf', 'b.md', 'c.txt', 'd.docx')).map(([f, n]) => f + n);
const print = fc.record({ size: fc.integer({ min: 0, max: 3 }), modified: fc.option(fc.integer({ min: 0, max: 2 }), { nil: undefined }) }).map((p): Fingerprint => (p.modified === undefined ? { size: p.size } : { size: p.size, modified: p.modified }));
const files = fc.array(fc.tuple(path, print)).map((entries) => new Map(entries));

describe('folder sync by a second drop', () => {
  it('applying the difference equals rebuilding the dropped folders from the drop, and leaves the rest alone', () => {
    fc.assert(
      // `whole`: linked folders read whole, which may be empty now (the drop holds nothing of them).
      fc.property(files, files, fc.subarray(['Contracts', 'Course']), (stored, dropped, whole) => {
        const diff = folderDiff(stored, dropped, whole);
        const after = new Map(stored);
        for (const p of diff.remove) after.delete(p);
        for (const p of [...diff.add, ...diff.change]) after.set(p, dropped.get(p)!);
        const folders = new Set([...[...dropped.keys()].map(topFolder).filter(Boolean), ...whole]);
        const rebuilt = new Map([...stored].filter(([p]) => !folders.has(topFolder(p)) && !dropped.has(p)));
        for (const [p, f] of dropped) rebuilt.set(p, diff.unchanged.includes(p) ? stored.get(p)! : f);
        expect(after).toEqual(rebuilt);
        // Every dropped file is in exactly one of add, change, unchanged; unchanged only when size and time match.
        expect([...diff.add, ...diff.change, ...diff.unchanged].sort()).toEqual([...dropped.keys()].sort());
        for (const p of diff.unchanged) expect(stored.get(p)!.modified ?? NaN).toBe(dropped.get(p)!.modified);
        // Loose files are never removed.
        for (const p of diff.remove) expect(topFolder(p)).toBeDefined();
      }),
    );
  });

  it('says what changed in words', () => {
    const stored = new Map<string, Fingerprint>([
      ['Contracts/a.pdf', { size: 10, modified: 1 }],
      ['Contracts/b.md', { size: 5, modified: 1 }],
      ['Contracts/old.txt', { size: 5, modified: 1 }],
      ['notes.txt', { size: 1, modified: 1 }],
    ]);
    const dropped = new Map<string, Fingerprint>([
      ['Contracts/a.pdf', { size: 10, modified: 1 }],
      ['Contracts/b.md', { size: 6, modified: 2 }],
      ['Contracts/new.md', { size: 3, modified: 2 }],
    ]);
    const diff = folderDiff(stored, dropped);
    expect(diff).toEqual({ add: ['Contracts/new.md'], change: ['Contracts/b.md'], unchanged: ['Contracts/a.pdf'], remove: ['Contracts/old.txt'] });
    expect(describeDiff(diff)).toBe('1 added, 1 changed, 1 removed, 1 unchanged');
    expect(describeDiff(folderDiff(stored, new Map([['Contracts/a.pdf', { size: 10, modified: 1 }], ['Contracts/b.md', { size: 5, modified: 1 }], ['Contracts/old.txt', { size: 5, modified: 1 }]])))).toBe(
      'nothing changed (3 unchanged, not read again)',
    );
  });
});
