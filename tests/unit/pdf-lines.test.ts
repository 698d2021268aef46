import { describe, expect, it } from 'vitest';
import { pageLines, type TextItemLike } from '../../src/ingest/pdf-lines.ts';

/**
 * Text items as pdf.js gives them for a page set in a 10 pt font, where one character is 5 pt wide: `x`, `y`
 * where a piece starts, its width from its length. Spaces between pieces are items of their own, as pdf.js
 * makes them (they carry no height). Modelled on the Debian Reference's PDF (tables set by LaTeX).
 */
function piece(str: string, x: number, y: number, eol = false): TextItemLike {
  return { str, transform: [10, 0, 0, 10, x, y], width: str.length * 5, height: str.trim() ? 10 : 0, hasEOL: eol };
}

/** One line of pieces at `y`, each at its x, with a space item between them. */
function line(y: number, ...cells: Array<[number, string]>): TextItemLike[] {
  const out: TextItemLike[] = [];
  cells.forEach(([x, str], i) => {
    const prev = cells[i - 1];
    if (prev) out.push({ str: ' ', transform: [10, 0, 0, 10, prev[0] + prev[1].length * 5, y], width: x - prev[0] - prev[1].length * 5, height: 0 });
    out.push(piece(str, x, y, i === cells.length - 1));
  });
  return out;
}

describe('PDF lines and table rows', () => {
  it('reads a table as one row a paragraph, cells between " | ", a cell of two lines whole', () => {
    const items = [
      ...line(700, [60, 'If you already had these packages installed, no new packages are installed.']),
      ...line(676, [68, 'package'], [170, 'popcon'], [237, 'size'], [276, 'description']),
      ...line(664, [68, 'mc'], [170, 'V:54, I:226'], [237, '1482'], [276, 'A text-mode full-screen file manager']),
      // A description of two lines is centred on its row: its first line sits above the row's baseline, its second below.
      ...line(652, [68, 'vim'], [170, 'V:97, I:390'], [237, '3570']).map((i) => ({ ...i, hasEOL: false })),
      piece('Unix text editor Vi IMproved (standard', 276, 658, true),
      piece('version)', 276, 646, true),
      // A size of five digits leaves only 1.2 line heights before the next column.
      ...line(634, [68, 'emacs-nox'], [170, 'V:3, I:18'], [237, '33819'], [276, 'GNU project Emacs']),
      ...line(610, [56, 'Table 1.1: List of interesting text-mode program packages']),
    ];
    expect(pageLines(items)).toEqual([
      'If you already had these packages installed, no new packages are installed.',
      '',
      'package | popcon | size | description',
      '',
      'mc | V:54, I:226 | 1482 | A text-mode full-screen file manager',
      '',
      'vim | V:97, I:390 | 3570 | Unix text editor Vi IMproved (standard version)',
      '',
      'emacs-nox | V:3, I:18 | 33819 | GNU project Emacs',
      '',
      'Table 1.1: List of interesting text-mode program packages',
    ]);
  });

  it('keeps a centred cell whole when its words change font (inline code) on its own baseline', () => {
    const items = [
      ...line(448, [68, '/etc/security/access.conf'], [270, 'set access limit by pam_access(8)']),
      ...line(424, [68, '/etc/security/pam_env.conf'], [270, 'set environment variables by pam_env(8)']),
      piece('/etc/default/locale', 68, 382),
      piece('set locale by', 270, 388),
      piece(' ', 335, 388),
      piece('pam_env', 338, 388),
      piece('(8) module with the "', 373, 388),
      piece('readenv=1', 478, 388, true),
      piece('envfile=/etc/default/locale', 270, 376),
      piece('" argument', 405, 376, true),
    ];
    expect(pageLines(items).filter(Boolean)).toEqual([
      '/etc/security/access.conf | set access limit by pam_access(8)',
      '/etc/security/pam_env.conf | set environment variables by pam_env(8)',
      '/etc/default/locale | set locale by pam_env(8) module with the "readenv=1 envfile=/etc/default/locale" argument',
    ]);
  });

  it('reads a table of two columns as rows when it has three lines or more', () => {
    const items = [
      ...line(700, [68, 'key'], [170, 'key binding']),
      ...line(688, [68, 'F1'], [170, 'help menu']),
      ...line(676, [68, 'F3'], [170, 'internal file viewer']),
    ];
    expect(pageLines(items).filter(Boolean)).toEqual(['key | key binding', 'F1 | help menu', 'F3 | internal file viewer']);
  });

  it('leaves lines that only look like cells as they were: contents entries, numbered headings, a running header, a stretched line', () => {
    const contents = [
      ...line(760, [95, '1.3.1'], [126, 'Customization of MC . . . . . . . . . . . .'], [557, '17']),
      ...line(742, [95, '1.3.2'], [126, 'Starting MC . . . . . . . . . . . . . . . . .'], [557, '17']),
      ...line(724, [95, '1.3.3'], [126, 'File manager in MC . . . . . . . . . . . . .'], [557, '17']),
    ];
    expect(pageLines(contents).filter(Boolean)).toEqual([
      '1.3.1 Customization of MC . . . . . . . . . . . . 17',
      '1.3.2 Starting MC . . . . . . . . . . . . . . . . . 17',
      '1.3.3 File manager in MC . . . . . . . . . . . . . 17',
    ]);
    const page = [
      ...line(796, [57, 'Debian Reference'], [550, 'xxiv']),
      ...line(750, [57, '1.1.9'], [83, 'Recovering a sane console']),
      ...line(726, [57, 'When the screen goes berserk, type reset at the command prompt.']),
      // A justified line stretched by a long unbreakable word: every gap is wide, and it is alone.
      ...line(714, [57, 'adding'], [105, 'the'], [140, 'line'], [180, 'to'], [210, '/etc/apt/sources.list.d/example-repository.list']),
      ...line(702, [57, 'and run apt update afterwards.']),
    ];
    expect(pageLines(page)).toEqual([
      'Debian Reference xxiv',
      '',
      '1.1.9 Recovering a sane console',
      '',
      'When the screen goes berserk, type reset at the command prompt.',
      'adding the line to /etc/apt/sources.list.d/example-repository.list',
      'and run apt update afterwards.',
    ]);
  });

  it('leaves a list whose markers stand apart from their text, and a page\'s footnotes, as lines', () => {
    const bullets = [
      ...line(700, [60, '•'], [80, 'The tenant pays the rent on the first day.']),
      ...line(688, [60, '•'], [80, 'The landlord repairs the heating.']),
      ...line(676, [60, '•'], [80, 'Pets need the landlord\'s consent.']),
    ];
    expect(pageLines(bullets)).toEqual(['• The tenant pays the rent on the first day.', '• The landlord repairs the heating.', '• Pets need the landlord\'s consent.']);
    const footnotes = [
      ...line(90, [72, '14'], [88, 'Recommended packages installed with R do use LTO.']),
      ...line(78, [72, '15'], [88, 'The Intel build used 2.7.11.']),
      ...line(66, [72, '16'], [88, 'But on Windows problems have been seen.']),
    ];
    expect(pageLines(footnotes).every((l) => !l.includes(' | '))).toBe(true);
  });

  it('leaves code in a fixed-pitch font as lines: its columns are runs of spaces, not cells', () => {
    const listing = [
      ...line(700, [72, 'INSTALL_FILE'], [158, '= $(INSTALL) -p'], [260, '-o root -g root'], [350, '-m 644']),
      ...line(689, [72, 'INSTALL_PROGRAM'], [158, '= $(INSTALL) -p'], [260, '-o root -g root'], [350, '-m 755']),
      ...line(678, [72, 'INSTALL_SCRIPT'], [158, '= $(INSTALL) -p'], [260, '-o root -g root'], [350, '-m 755']),
    ];
    const mono = listing.map((i) => ({ ...i, fontName: 'f3' }));
    expect(pageLines(mono, { f3: { fontFamily: 'monospace' } })).toEqual([
      'INSTALL_FILE = $(INSTALL) -p -o root -g root -m 644',
      'INSTALL_PROGRAM = $(INSTALL) -p -o root -g root -m 755',
      'INSTALL_SCRIPT = $(INSTALL) -p -o root -g root -m 755',
    ]);
    // The same lines in a proportional font are a table.
    expect(pageLines(mono, { f3: { fontFamily: 'sans-serif' } }).filter(Boolean)[0]).toBe('INSTALL_FILE | = $(INSTALL) -p | -o root -g root | -m 644');
  });

  it('reads lines of tens of thousands of spaced pieces without comparing every cell with every other', () => {
    // Each line's pieces a little right of the one above: no column is shared, every pair of cells is compared.
    const wide = (y: number, shift: number) => line(y, ...Array.from({ length: 60_000 }, (_, i): [number, string] => [i * 60 + shift, `w${i}`]));
    const lines = pageLines([...wide(700, 0), ...wide(688, 10), ...wide(676, 20)]);
    expect(lines).toHaveLength(3);
    expect(lines[0]!.startsWith('w0 w1 w2')).toBe(true);
  });

  it('keeps lines of prose, a new paragraph after a wide gap', () => {
    const items = [
      ...line(700, [57, 'The first line of a paragraph']),
      ...line(688, [57, 'and its second line.']),
      ...line(640, [57, 'A new paragraph.']),
    ];
    expect(pageLines(items)).toEqual(['The first line of a paragraph', 'and its second line.', '', 'A new paragraph.']);
  });
});
