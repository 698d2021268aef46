import { describe, expect, it } from 'vitest';
import type { LibraryItem } from '../../src/core/types.ts';
import { arrangeItems, folderOf, listRows, WINDOW_ABOVE, windowOf, withParents } from '../../src/ui/library-view.ts';

const doc = (path: string, type: LibraryItem['type']): LibraryItem => ({ key: `doc:${path}`, kind: 'document', path, name: path.slice(path.lastIndexOf('/') + 1), type });
const failed = (path: string): LibraryItem => ({ key: `queue:${path}`, kind: 'failed', path, name: path });

describe('Library list view', () => {
  const items = [doc('b/zeta.pdf', 'pdf'), doc('a/Alpha.md', 'markdown'), doc('file10.txt', 'text'), doc('file9.txt', 'text'), failed('broken.pdf')];

  it('sorts documents by date added (as listed), name (natural, any case) or type, failures after them', () => {
    const names = (sort: 'added' | 'name' | 'type') => arrangeItems(items, sort, '').map((i) => i.name);
    expect(names('added')).toEqual(['zeta.pdf', 'Alpha.md', 'file10.txt', 'file9.txt', 'broken.pdf']);
    expect(names('name')).toEqual(['Alpha.md', 'file9.txt', 'file10.txt', 'zeta.pdf', 'broken.pdf']);
    expect(names('type')).toEqual(['Alpha.md', 'zeta.pdf', 'file9.txt', 'file10.txt', 'broken.pdf']);
  });

  it('filters by any part of the path, ignoring case', () => {
    expect(arrangeItems(items, 'name', 'FILE').map((i) => i.name)).toEqual(['file9.txt', 'file10.txt']);
    expect(arrangeItems(items, 'added', 'b/').map((i) => i.path)).toEqual(['b/zeta.pdf']);
    expect(arrangeItems(items, 'added', 'nothing')).toEqual([]);
  });

  it('renders every row of a small library, and a window with overscan of a large one', () => {
    expect(windowOf(200, 5000, 800, 90)).toEqual({ start: 0, end: 200, before: 0, after: 0 });
    expect(windowOf(WINDOW_ABOVE, 0, 800, 90).end).toBe(WINDOW_ABOVE);
    const w = windowOf(10_000, 90 * 5000, 900, 90, 10);
    expect(w).toEqual({ start: 4990, end: 5020, before: 4990 * 90, after: (10_000 - 5020) * 90 });
    // Scrolled past the end (the list just shrank): still rows to show, never an empty window.
    const end = windowOf(10_000, 90 * 20_000, 900, 90, 10);
    expect(end.end).toBe(10_000);
    expect(end.start).toBeLessThan(end.end);
  });

  it('offers a folder and every folder above it to the folder filter', () => {
    expect(withParents('contracts/2024/q1')).toEqual(['contracts', 'contracts/2024', 'contracts/2024/q1']);
    expect(withParents('notes')).toEqual(['notes']);
  });

  it('sorts by size, largest first, and finds a document by its title as well as its path', () => {
    const sized = [
      { ...doc('a/small.md', 'markdown'), size: 10 },
      { ...doc('b/big.pdf', 'pdf'), size: 5000, title: 'Annual Report 2026' },
      { ...doc('mid.txt', 'text'), size: 300 },
      failed('broken.pdf'),
    ];
    expect(arrangeItems(sized, 'size', '').map((i) => i.name)).toEqual(['big.pdf', 'mid.txt', 'small.md', 'broken.pdf']);
    expect(arrangeItems(sized, 'added', 'annual').map((i) => i.name)).toEqual(['big.pdf']);
  });

  it('groups rows by folder, folders in name order, a folded folder showing only its heading', () => {
    const list = [doc('b/zeta.pdf', 'pdf'), doc('a/Alpha.md', 'markdown'), doc('file10.txt', 'text'), doc('a/beta.md', 'markdown')];
    expect(folderOf(list[0]!)).toBe('b');
    expect(folderOf(list[2]!)).toBe('');
    const shape = (rows: ReturnType<typeof listRows>) => rows.map((r) => (r.kind === 'folder' ? `[${r.folder}:${r.count}${r.folded ? ' folded' : ''}]` : r.item.name));
    expect(shape(listRows(list, false))).toEqual(['zeta.pdf', 'Alpha.md', 'file10.txt', 'beta.md']);
    expect(shape(listRows(list, true))).toEqual(['[:1]', 'file10.txt', '[a:2]', 'Alpha.md', 'beta.md', '[b:1]', 'zeta.pdf']);
    expect(shape(listRows(list, true, new Set(['a'])))).toEqual(['[:1]', 'file10.txt', '[a:2 folded]', '[b:1]', 'zeta.pdf']);
  });
});
