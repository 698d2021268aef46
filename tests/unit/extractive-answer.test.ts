import { describe, expect, it } from 'vitest';
import { asChunkId, asDocId } from '../../src/core/ids.ts';
import type { Passage } from '../../src/core/types.ts';
import { answerSentences, kindOfLine } from '../../src/generate/answer-sentences.ts';
import { headingOf } from '../../src/core/block-label.ts';
import { buildExtractiveAnswer, rankSentences } from '../../src/generate/extractive-answer.ts';
import { completedWithFigure } from '../../src/generate/quote-choice.ts';
import { holdsQuantity } from '../../src/generate/quantity.ts';
import { callsOf, contentTermsOf, identifiersOf, symbolsOf } from '../../src/generate/question-units.ts';
import { indexFiles } from '../../src/eval/evaluate.ts';
import { retrievePassages } from '../../src/retrieve/retrieve.ts';
import { makePdf } from '../support/fixtures.ts';

function passage(window: string, hit: string, docName = 'lease.md', label = 'Payment'): Passage {
  const hitStart = window.indexOf(hit);
  return {
    chunkId: asChunkId(`c-${docName}-${hitStart}`),
    score: 1,
    docId: asDocId(`d-${docName}`),
    docName,
    docPath: docName,
    docType: 'markdown',
    block: 0,
    label,
    window,
    windowStart: 0,
    hitStart,
    hitEnd: hitStart + hit.length,
    ranks: [],
    why: '',
  };
}

const LEASE = 'The flat has two rooms. The tenant pays the rent on the first day of each month. The landlord repairs the heating.';

describe('buildExtractiveAnswer', () => {
  it('quotes the sentence that best matches the question, cites it [1] and marks exactly it', () => {
    const p = passage(LEASE, LEASE);
    const answer = buildExtractiveAnswer('When is the rent paid?', [p]);
    expect(answer.question).toBe('When is the rent paid?');
    expect(answer.found).toBe(true);
    expect(answer.segments).toEqual([{ text: 'The tenant pays the rent on the first day of each month.', cite: 1 }]);
    const [quote] = answer.citations[0]!.quotes;
    expect(LEASE.slice(quote!.start, quote!.end)).toBe('The tenant pays the rent on the first day of each month.');
    expect(answer.citations[0]!.marks).toEqual(answer.citations[0]!.quotes);
  });

  it('picks the best sentences across all passages, not one per passage, best first', () => {
    const ps = [
      passage('The flat has two rooms. The rent is paid monthly.', 'The flat has two rooms.', 'lease.md'),
      passage('Pets are allowed. The deposit is two months of rent and is returned within fourteen days.', 'Pets are allowed.', 'rules.md'),
      passage('The deposit is returned within fourteen days of the keys being handed back.', 'The deposit', 'annex.md'),
    ];
    const answer = buildExtractiveAnswer('When is the deposit returned?', ps);
    expect(answer.segments.map((s) => s.text)).toEqual([
      'The deposit is returned within fourteen days of the keys being handed back.',
      'The deposit is two months of rent and is returned within fourteen days.',
    ]);
    expect(answer.citations.map((c) => c.passage.docName)).toEqual(['annex.md', 'rules.md']);
    expect(answer.segments.map((s) => s.cite)).toEqual([1, 2]);
  });

  it('never quotes the same sentence twice, also when two passages hold the same text', () => {
    const same = 'The deposit is returned within fourteen days.';
    const ps = [passage(`${same} The flat has two rooms.`, same, 'a.md'), passage(`Keys are kept by the agent. ${same}`, same, 'b.md'), passage(`${same.toUpperCase()}`, same.toUpperCase(), 'c.md')];
    const answer = buildExtractiveAnswer('deposit returned', ps);
    expect(answer.segments).toEqual([{ text: same, cite: 1 }]);
    expect(answer.citations).toHaveLength(1);
    expect(answer.citations[0]!.passage.docName).toBe('a.md');
  });

  it('numbers citations in order of first use; a passage quoted twice keeps one number and both ranges', () => {
    const a = 'Rent is due to the landlord on the first day. Rent is paid by bank transfer to the landlord.';
    const b = 'The landlord may raise the rent once a year.';
    // All three sentences hold both terms; the bonus inside the hit puts a's first sentence and b first.
    const answer = buildExtractiveAnswer('rent landlord', [passage(a, 'Rent is due to the landlord on the first day.', 'a.md'), passage(b, b, 'b.md')]);
    expect(answer.segments.map((s) => [s.text, s.cite])).toEqual([
      ['Rent is due to the landlord on the first day.', 1],
      ['The landlord may raise the rent once a year.', 2],
      ['Rent is paid by bank transfer to the landlord.', 1],
    ]);
    expect(answer.citations.map((c) => c.passage.docName)).toEqual(['a.md', 'b.md']);
    expect(answer.citations[0]!.quotes.map(({ start, end }) => a.slice(start, end))).toEqual([
      'Rent is due to the landlord on the first day.',
      'Rent is paid by bank transfer to the landlord.',
    ]);
  });

  it('quotes at most maxSentences, and no sentence much weaker than the best', () => {
    const window = 'Rent is due monthly. Rent includes heating. Rent rises yearly. Rent is paid in euros.';
    expect(buildExtractiveAnswer('rent', [passage(window, window)]).segments).toHaveLength(3);
    expect(buildExtractiveAnswer('rent', [passage(window, window)], { maxSentences: 1 }).segments).toHaveLength(1);
    // The second sentence holds half of the six terms (quotable), but scores 0.6 against the best's 1.1.
    const uneven = 'The heating is repaired by the landlord within ten days. The landlord checks the heating every ten years.';
    const question = 'heating repaired landlord within ten days';
    expect(buildExtractiveAnswer(question, [passage(uneven, uneven)]).segments.map((s) => s.text)).toEqual(['The heating is repaired by the landlord within ten days.']);
    expect(buildExtractiveAnswer(question, [passage(uneven, uneven)], { minShareOfBest: 0 }).segments).toHaveLength(2);
  });

  it('prefers the sentence inside the hit when two match equally', () => {
    const window = 'The rent is paid monthly. Something else entirely. The rent is paid monthly too.';
    const hit = 'The rent is paid monthly too.';
    const answer = buildExtractiveAnswer('rent paid', [passage(window, hit)], { maxSentences: 1 });
    expect(answer.segments[0]!.text).toBe(hit);
  });

  it('says not found for a question about something absent, and keeps the passages as the closest ones', () => {
    const ps = [passage(LEASE, LEASE), passage('Heating repairs take ten days.', 'Heating repairs take ten days.', 'rules.md')];
    const answer = buildExtractiveAnswer('What is the penalty for breaking the contract early?', ps);
    expect(answer.found).toBe(false);
    expect(answer.segments).toEqual([]);
    expect(answer.citations.map((c) => [c.n, c.passage.docName, c.quotes])).toEqual([
      [1, 'lease.md', []],
      [2, 'rules.md', []],
    ]);
  });

  it('answers a real question about the same passages', () => {
    const ps = [passage(LEASE, LEASE), passage('Heating repairs take ten days.', 'Heating repairs take ten days.', 'rules.md')];
    const answer = buildExtractiveAnswer('Who repairs the heating?', ps);
    expect(answer.found).toBe(true);
    expect(answer.segments[0]!.text).toBe('The landlord repairs the heating.');
  });

  it('needs half of the content terms in one sentence: one of two is enough, one of three is not', () => {
    const window = 'Le café du marché ouvre à sept heures.';
    expect(buildExtractiveAnswer('café march', [passage(window, window)]).found).toBe(true);
    expect(buildExtractiveAnswer('café march weekday', [passage(window, window)]).found).toBe(false);
    // Question words do not count: "when", "does", "open" leaves one content term, which is there.
    expect(buildExtractiveAnswer('When does the café open?', [passage(window, window)]).found).toBe(true);
  });

  it('weighs the relevance rule by collection IDF when given statistics: the rare terms must be there', () => {
    const window = 'The tenant pays the rent on time. A cat flap was fitted in 2019.';
    const ps = [passage(window, window)];
    // "tenant" and "rent" are in most chunks of this library, "cat" and "flap" in few.
    const stats = { documentCount: 1000, documentFrequency: (t: string) => ({ tenant: 800, rent: 700, cat: 2, flap: 1 })[t] ?? 0 };
    // Unweighted, two of four terms is half: the rent sentence would answer a question about cat flaps.
    expect(buildExtractiveAnswer('tenant rent cat door', ps).found).toBe(true);
    // Weighted, the common half weighs little and "door" (in no chunk) weighs most: not found.
    expect(buildExtractiveAnswer('tenant rent cat door', ps, { stats }).found).toBe(false);
    // The rare terms are there: found, and the sentence holding them is quoted.
    expect(buildExtractiveAnswer('tenant cat flap', ps, { stats }).segments.map((s) => s.text)).toEqual(['A cat flap was fitted in 2019.']);
  });

  it('counts a word no chunk holds as the rarest word some chunk holds, so a small library still answers', () => {
    // Three chunks; "short" is nowhere ("shorter" is written), "class" and "flight" are in one chunk each.
    const window = 'Economy class is required for flights shorter than six hours.';
    const stats = { documentCount: 3, documentFrequency: (t: string) => (t === 'class' || t === 'flight' ? 1 : 0) };
    expect(buildExtractiveAnswer('Which class for short flights?', [passage(window, window)], { stats }).found).toBe(true);
    const cafe = 'Le café du marché ouvre à sept heures.';
    const few = { documentCount: 3, documentFrequency: (t: string) => (t === 'café' ? 1 : 0) };
    expect(buildExtractiveAnswer('café march', [passage(cafe, cafe)], { stats: few }).found).toBe(true);
    expect(buildExtractiveAnswer('café march weekday', [passage(cafe, cafe)], { stats: few }).found).toBe(false);
  });

  it('does not quote a question: an FAQ heading or contents entry asks, the text under it answers', () => {
    const window = '1.7. How does one pronounce Debian and what does this word mean? The project name is pronounced Deb-ee-en, with a short e.';
    // In a library about Debian, "Debian" and "one" are common, "pronounce" is rare.
    const stats = { documentCount: 500, documentFrequency: (t: string) => (t === 'pronounc' ? 2 : 400) };
    const answer = buildExtractiveAnswer('How does one pronounce Debian?', [passage(window, window, 'faq.html', 'Definitions')], { stats });
    expect(answer.segments.map((s) => s.text)).toEqual(['The project name is pronounced Deb-ee-en, with a short e.']);
    expect(buildExtractiveAnswer('pronounce Debian', [passage('Wie spricht man Debian aus？', 'Wie')]).found).toBe(false);
  });

  it('does not quote a heading or line that only repeats the question', () => {
    const window = 'Security deposit\nThe landlord returns the security deposit within fourteen days.';
    const answer = buildExtractiveAnswer('When is the security deposit returned?', [passage(window, window, 'lease.pdf', 'page 2')]);
    expect(answer.segments.map((s) => s.text)).toEqual(['The landlord returns the security deposit within fourteen days.']);
    expect(buildExtractiveAnswer('security deposit', [passage('Security deposit', 'Security deposit')]).found).toBe(false);
  });

  it('weighs rare question terms more, with collection statistics when given', () => {
    const window = 'The tenant pays the rent. The tenant keeps a cat.';
    const ps = [passage(window, window)];
    const stats = { documentCount: 1000, documentFrequency: (t: string) => (t === 'cat' ? 3 : 900) };
    expect(buildExtractiveAnswer('tenant rent cat', ps, { stats, maxSentences: 1 }).segments[0]!.text).toBe('The tenant keeps a cat.');
    const common = { documentCount: 1000, documentFrequency: (t: string) => (t === 'cat' ? 900 : 3) };
    expect(buildExtractiveAnswer('tenant rent cat', ps, { stats: common, maxSentences: 1 }).segments[0]!.text).toBe('The tenant pays the rent.');
  });

  it('quotes whole sentences across decimals, versions and abbreviations', () => {
    const window = 'She started in 2019. The pay was raised to €8.65 an hour, e.g. for night shifts. Fig. 2 shows the rise. '
      + 'Connections use TLS 1.3 whenever the server offers it. Dr. Smith checked v2.10.1 of the client.';
    const pay = buildExtractiveAnswer('What is the hourly pay?', [passage(window, window)], { maxSentences: 1 });
    expect(pay.segments[0]!.text).toBe('The pay was raised to €8.65 an hour, e.g. for night shifts.');
    const tls = buildExtractiveAnswer('Which TLS version do connections use?', [passage(window, window)], { maxSentences: 1 });
    expect(tls.segments[0]!.text).toBe('Connections use TLS 1.3 whenever the server offers it.');
    const [quote] = tls.citations[0]!.quotes;
    expect(window.slice(quote!.start, quote!.end)).toBe('Connections use TLS 1.3 whenever the server offers it.');
    const smith = buildExtractiveAnswer('Who checked the client?', [passage(window, window)], { maxSentences: 1 });
    expect(smith.segments[0]!.text).toBe('Dr. Smith checked v2.10.1 of the client.');
  });

  it('does not let a field name win over the sentence under it that states the fact', () => {
    // As PostgreSQL's manual sets a setting: its name on a line, then what it does and its default.
    const wal = 'checkpoint_timeout (integer)\n\nMaximum time between automatic WAL checkpoints. If this value is specified without units, it is taken as seconds. '
      + 'The default is five minutes (5min). Increasing this parameter can increase the amount of time needed for crash recovery.\n\ncheckpoint_completion_target (floating point)\n\nSpecifies the target of checkpoint completion.';
    const answer = buildExtractiveAnswer('What is the default checkpoint_timeout?', [passage(wal, wal, 'runtime-config-wal.html', 'Settings')], { maxSentences: 1 });
    expect(answer.segments.map((s) => s.text)).toEqual(['The default is five minutes (5min).']);
    // Debian Policy: the field's format line holds the question's words; the sentence under the heading says how long.
    const format = passage('Description: single line synopsis\n extended description over several lines', 'Description', 'ch-controlfields.html', '5.6.13. Description');
    const rule = passage('The single line synopsis should be kept brief—certainly under 80 characters.\n\nDo not include the package name in the synopsis line.', 'The single line', 'ch-binary.html', '3.4.1. The single line synopsis');
    const stats = { documentCount: 900, documentFrequency: (t: string) => ({ synopsi: 12, line: 300, long: 200, packag: 600 })[t] ?? 1 };
    expect(buildExtractiveAnswer('How long may the single line synopsis of a package be?', [format, rule], { stats }).segments[0]!.text).toBe('The single line synopsis should be kept brief—certainly under 80 characters.');
  });

  it('quotes a field that states the value asked about ("Monthly rent: €950"), as a sentence, not as a label', () => {
    // A lease summary, a form, a product sheet: short "name: value" lines without a full stop.
    const summary = 'Lease summary\n\nMonthly rent: €950\nSecurity deposit: two months of rent\nNotice period: three months\n\nThe tenant may keep one cat.';
    const ask = (q: string) => buildExtractiveAnswer(q, [passage(summary, summary, 'lease.pdf', 'page 1')]);
    const rent = ask('What is the monthly rent?');
    expect(rent.found).toBe(true);
    expect(rent.segments[0]!.text).toBe('Monthly rent: €950');
    expect(ask('How long is the notice period?').segments[0]!.text).toBe('Notice period: three months');
    // A caption or a heading's number before the colon names what follows: it is a label still.
    expect(['Chapter 4: Results', 'Table 1.1: List of packages', 'Step 3: Restart'].map(kindOfLine)).toEqual(['label', 'label', 'label']);
    expect(['Monthly rent: €950', 'Depends: libc6'].map(kindOfLine)).toEqual(['prose', 'prose']);
  });

  it('never answers with a label alone, and never lets one lead the sentence that answers', () => {
    // A heading that holds the question's words (and more) says nothing about them.
    const heading = 'Security deposit and rent rules';
    expect(buildExtractiveAnswer('security deposit rules', [passage(heading, heading)]).found).toBe(false);
    const window = 'Security deposit rules\nThe landlord returns the deposit within fourteen days.';
    const answer = buildExtractiveAnswer('security deposit rules', [passage(window, window)], { minShareOfBest: 0 });
    expect(answer.segments[0]!.text).toBe('The landlord returns the deposit within fourteen days.');
  });

  it('quotes a table row, read with its header and caption, not the header', () => {
    const table = 'Table 8.9. Date/Time Types\n\nName | Storage Size | Description | Low Value | High Value\n\n'
      + 'timestamp | 8 bytes | both date and time | 4713 BC | 294276 AD\n\ndate | 4 bytes | date (no time of day) | 4713 BC | 5874897 AD';
    const answer = buildExtractiveAnswer('What is the storage size of a timestamp?', [passage(table, table, 'datatype-datetime.html', '8.5. Date/Time Types')]);
    expect(answer.segments[0]!.text).toBe('timestamp | 8 bytes | both date and time | 4713 BC | 294276 AD');
    expect(answer.segments.map((s) => s.text)).not.toContain('Name | Storage Size | Description | Low Value | High Value');
  });

  it('prefers prose to a line of code, and a sentence with a figure when the question asks for one', () => {
    const api = 'json.dump(obj, fp, *, skipkeys=False, ensure_ascii=True)\nIf ensure_ascii is true (the default), the output has all non-ASCII characters escaped.';
    expect(buildExtractiveAnswer('Does json.dump escape non-ASCII characters?', [passage(api, api, 'json.html', 'json')], { maxSentences: 1 }).segments[0]!.text)
      .toBe('If ensure_ascii is true (the default), the output has all non-ASCII characters escaped.');
    // Both name the subject; the one with the figure answers "how many".
    const gc = 'When there are more than this many loose objects in the repository, git gc will pack them. By default git gc waits for 6700 loose objects before it packs them.';
    expect(buildExtractiveAnswer('How many loose objects make git gc pack them?', [passage(gc, gc)], { maxSentences: 1 }).segments[0]!.text).toBe('By default git gc waits for 6700 loose objects before it packs them.');
    expect(buildExtractiveAnswer('Which loose objects make git gc pack them?', [passage(gc, gc)], { maxSentences: 1 }).segments[0]!.text).toMatch(/^When there are/);
  });

  it('matches a name written as one word only where it is written whole', () => {
    expect(identifiersOf('Is max_wal_size read by json.dumps, gc.auto or /etc/hostname? Not 3.14, and ischaemia/reperfusion is two words.'))
      .toEqual(['max_wal_size', 'json.dumps', 'gc.auto', '/etc/hostname']);
    // Its parts are in the first sentence too, inside another setting's name: that one does not name max_wal_size.
    const wal = 'max_slot_wal_keep_size (integer)\n\nIf max_slot_wal_keep_size is -1 (the default), replication slots may retain an unlimited amount of WAL files.\n\n'
      + 'max_wal_size (integer)\n\nMaximum size to let the WAL grow during automatic checkpoints. The default is 1 GB.';
    expect(buildExtractiveAnswer('What is the default max_wal_size?', [passage(wal, wal, 'runtime-config-wal.html', 'Settings')], { maxSentences: 1 }).segments.map((s) => s.text))
      .toEqual(['The default is 1 GB.']);
  });

  it('matches a function the question names by a call ("zip()") only where a text calls it, not a dotted one nor the word', () => {
    expect(callsOf('What does zip() return, and is it like os.path.join() or map ()?')).toEqual(['zip()']);
    const zip = 'Open a ZIP file, where file can be a path to a file.\n\nThe zipfile module reads ZIP archives; zipfile.zip() is not a function.\n\n'
      + 'zip(*iterables) returns an iterator of tuples, where the i-th tuple contains the i-th element from each argument.';
    expect(buildExtractiveAnswer('What does zip() return?', [passage(zip, zip, 'functions.html', 'Built-in Functions')]).segments.map((s) => s.text))
      .toEqual(['zip(*iterables) returns an iterator of tuples, where the i-th tuple contains the i-th element from each argument.']);
    // Where no text calls it, a sentence about ZIP files does not answer.
    const archives = 'Open a ZIP file, where file can be a path to a file. The ZIP file lists its members in order.';
    expect(buildExtractiveAnswer('What does zip() return?', [passage(archives, archives)]).found).toBe(false);
  });

  it('matches a symbol the question asks about standing alone: the row of "?" answers what "?" matches', () => {
    expect(symbolsOf('What does the ? glob pattern match?')).toEqual(['?']);
    expect(symbolsOf('What do := and `->` do, and what does $? hold?')).toEqual([':=', '->', '$?']);
    // Prose punctuation and the question's own mark are no symbols.
    expect(symbolsOf('Is the rent due - or late - on the 1st, … really?')).toEqual([]);
    // Every row names "exactly one character" and the question's words stand only in the header.
    const glob = 'Table 1.21. Shell glob patterns\n\nshell glob pattern | description of match rule\n\n* | filename (segment) not started with "."\n\n'
      + '[a-z] | exactly one character with any character between "a" and "z"\n\n? | exactly one character\n\n[…] | exactly one character with any character enclosed in brackets';
    expect(buildExtractiveAnswer('What does the ? glob pattern match?', [passage(glob, glob, 'reference.pdf', '1.5.6. Shell glob')]).segments.map((s) => s.text))
      .toEqual(['? | exactly one character']);
    // "?" inside a word or ending a sentence is not the symbol.
    const prose = 'Which pattern? The glob pattern matching files is given last? No glob pattern matches hidden files.';
    expect(rankSentences('What does the ? glob pattern match?', [passage(prose, prose)]).filter((s) => s.holds.size === 4)).toEqual([]);
  });

  it('never quotes a line of a table of contents (dot leaders): it names a section and states nothing', () => {
    const contents = 'List of Tables\n\n1.21 Shell glob patterns and what each of them matches in a filename . . . . . . . . . . 27\n\n'
      + 'The glob patterns match filenames: a star matches any string.';
    const answer = buildExtractiveAnswer('Which glob patterns match a filename?', [passage(contents, contents, 'reference.pdf', 'List of Tables')]);
    expect(answer.segments.map((s) => s.text)).toEqual(['The glob patterns match filenames: a star matches any string.']);
  });

  it('reads a sentence with its label and block: the default stated under the setting asked about comes first, not the one under another setting', () => {
    const wal = 'checkpoint_warning (integer)\n\nWrite a message to the server log if checkpoints happen too often, which suggests that max_wal_size ought to be raised. The default is 30 seconds (30s).\n\n'
      + 'max_wal_size (integer)\n\nThis is a soft limit; WAL size can exceed max_wal_size under heavy load. The default is 1 GB.';
    const answer = buildExtractiveAnswer('What is the default max_wal_size?', [passage(wal, wal, 'runtime-config-wal.html', 'Settings')]);
    // "The default is 1 GB." names neither word of the question but stands under "max_wal_size (integer)".
    expect(answer.segments.slice(0, 2).map((s) => s.text)).toEqual(['The default is 1 GB.', 'This is a soft limit; WAL size can exceed max_wal_size under heavy load.']);
    expect(answer.segments.map((s) => s.text)).not.toContain('The default is 30 seconds (30s).');
  });

  it('quotes the figure after the sentence that describes a setting, when the question asks how much, from its block only', () => {
    const vacuum = 'autovacuum_naptime (integer)\n\nSpecifies the minimum delay between autovacuum runs on any given database. In each round the daemon examines the database. The default is one minute (1min).\n\n'
      + 'autovacuum_max_workers (integer)\n\nSpecifies the maximum number of autovacuum processes that may be running at any one time. The default is three.';
    const p = passage(vacuum, vacuum, 'runtime-config-autovacuum.html', 'Automatic Vacuuming');
    const answer = buildExtractiveAnswer('How long does autovacuum wait between runs on one database?', [p], { maxSentences: 2 });
    expect(answer.segments.map((s) => s.text)).toEqual(['Specifies the minimum delay between autovacuum runs on any given database.', 'The default is one minute (1min).']);
    // Not asked how much: the description alone.
    expect(buildExtractiveAnswer('What does autovacuum_naptime specify between runs?', [p], { maxSentences: 2 }).segments[0]!.text).toMatch(/^Specifies the minimum delay/);
    // A paragraph without a label is a block of its own line: the figure on the next line is not its continuation.
    const lines = passage('The daemon sleeps between autovacuum runs on each database.\nThe archive keeps 12 files.', 'The daemon');
    expect(buildExtractiveAnswer('How long does the daemon sleep between autovacuum runs?', [lines], { maxSentences: 2 }).segments.map((s) => s.text))
      .toEqual(['The daemon sleeps between autovacuum runs on each database.']);
  });

  it('quotes a best sentence that points back ("It is…") after the sentence it points at, within its paragraph only', () => {
    const text = 'Python 3.8 changed the grammar. There is new syntax := that assigns values to variables as part of a larger expression. '
      + 'It is affectionately known as "the walrus operator" due to its resemblance to the eyes and tusks of a walrus.';
    const answer = buildExtractiveAnswer('What does the walrus operator do?', [passage(text, text, '3.8.html', 'Assignment expressions')], { maxSentences: 1 });
    expect(answer.segments.map((s) => s.text)).toEqual([
      'There is new syntax := that assigns values to variables as part of a larger expression.',
      'It is affectionately known as "the walrus operator" due to its resemblance to the eyes and tusks of a walrus.',
    ]);
    // A paragraph that opens with "It" points at nothing on the line above it.
    const apart = 'The grammar changed in Python 3.8.\n\nIt is affectionately known as the walrus operator.';
    expect(buildExtractiveAnswer('What is the walrus operator?', [passage(apart, apart)]).segments.map((s) => s.text)).toEqual(['It is affectionately known as the walrus operator.']);
  });

  it('reads the sentence after a list under the label above the list, not under its last item', () => {
    const limits = 'Maximum Number Of Columns\n\nThe SQLITE_MAX_COLUMN compile-time parameter is used to set an upper bound on:\n\nThe number of columns in a table\n\n'
      + 'The number of terms in the SET clause of an UPDATE statement\n\nThe number of values in an INSERT statement\n\nThe default setting for SQLITE_MAX_COLUMN is 2000.';
    const sentences = answerSentences([passage(limits, limits, 'limits.html', 'Limits In SQLite')]);
    expect(sentences.find((s) => s.text.startsWith('The default setting'))!.context).toBe('Maximum Number Of Columns');
    expect(sentences.find((s) => s.text.startsWith('The SQLITE_MAX_COLUMN'))!.context).toBe('Maximum Number Of Columns');
  });

  it('reads list items ending in ";" as prose, not as code that labels the items after them', () => {
    const options = 'Query options\n\n--listfiles package (or -L), which lists the files installed by this package;\n\n'
      + '--search file (or -S), which finds the package(s) containing the file;\n\n--status package (or -s), which displays the headers of an installed package;';
    const sentences = answerSentences([passage(options, options, 'dpkg.html', 'Querying dpkg')]);
    const items = sentences.filter((s) => s.text.startsWith('--'));
    expect(items.map((s) => s.kind)).toEqual(['prose', 'prose', 'prose']);
    expect(items.map((s) => s.context)).toEqual(['Query options', 'Query options', 'Query options']);
    // A statement of code keeps its kind.
    expect(answerSentences([passage('outs, errs = proc.communicate(timeout=15);', 'outs')])[0]!.kind).toBe('code');
  });

  it('completes a sentence under no label with the figure its section states in another paragraph, when that names something asked', () => {
    const synopsis = 'The single line synopsis should be kept brief—certainly under 80 characters.\n\n'
      + 'Do not include the package name in the synopsis line. The display software knows how to display this already.\n\nThe archive keeps 12 files.';
    const answer = buildExtractiveAnswer("How long may a package's synopsis be?", [passage(synopsis, synopsis, 'ch-binary.html', '3.4.1. The single line synopsis')]);
    expect(answer.segments.map((s) => s.text).slice(0, 2)).toEqual(['Do not include the package name in the synopsis line.', 'The single line synopsis should be kept brief—certainly under 80 characters.']);
    // A figure in the section that names nothing asked is no answer to it.
    const apart = 'Do not include the package name in the synopsis line.\n\nThe archive keeps 12 files.';
    expect(buildExtractiveAnswer("How long may a package's synopsis be?", [passage(apart, apart)]).segments.map((s) => s.text)).toEqual(['Do not include the package name in the synopsis line.']);
  });

  it('leads a quantity answer with a close sentence whose block states a figure when the best one states none', () => {
    const settings = 'max_connections (integer)\n\nDetermines the maximum number of concurrent connections to the database server. '
      + 'The default is typically 100 connections, but might be less if your kernel settings will not support it.';
    const kernel = 'The server uses one process per connection, so allow at least as many processes as allowed connections.';
    const passages = [passage(kernel, kernel, 'kernel-resources.html', 'Resource Limits'), passage(settings, settings, 'runtime-config-connection.html', 'Connection Settings')];
    const question = 'How many concurrent connections does PostgreSQL allow by default?';
    const ranked = rankSentences(question, passages);
    const pick = (start: string) => ranked.find((s) => s.text.startsWith(start))!;
    // As a model may rank them: the sentence about processes first, the setting's description close behind.
    const chosen = [pick('The server uses'), pick('Determines the maximum')];
    expect(completedWithFigure(question, chosen, ranked, 3).map((s) => s.text.slice(0, 40))).toEqual([
      'Determines the maximum number of concurr', 'The default is typically 100 connections', 'The server uses one process per connecti',
    ]);
    // Not asked how many: the best leads.
    expect(completedWithFigure('Which connections does the server allow?', chosen, ranked, 3)[0]!.text).toMatch(/^The server uses/);
  });

  it('takes digits inside a name for no figure: "sqlite3_limit" and "arg0" state no quantity, "5min" and "128MB" do; nor is "one" a figure', () => {
    expect(holdsQuantity('The server uses one process per connection; see one of these ways.')).toBe(false);
    expect(holdsQuantity('The default is three connections.')).toBe(true);
    expect(holdsQuantity('It is lowered at run-time with sqlite3_limit(db, arg0).')).toBe(false);
    expect(holdsQuantity('The default is five minutes (5min).')).toBe(true);
    expect(holdsQuantity('The default is typically 128MB.')).toBe(true);
  });

  it("reads a passage's heading from its label without the location parsers add: a page or line number is no heading", () => {
    expect(['20.5. Write Ahead Log › 20.5.1. Settings', 'page 4 · Deposit', 'Rent (lines 3–10)', 'page 4', 'lines 3–10', 'line 7', 'beginning'].map(headingOf))
      .toEqual(['20.5.1. Settings', 'Deposit', 'Rent', '', '', '', '']);
  });

  it('completes the best sentence with the figure in its block, though another passage quoted after it holds one', () => {
    const mem = 'work_mem (integer)\n\nSets the base maximum amount of memory used by a sort before writing to temporary files. '
      + 'If this value is specified without units, it is taken as kilobytes. The default value is four megabytes (4MB).';
    const probes = 'sort-start | (int, bool) | Probe that fires when a sort using memory before temporary files is started; arg2 is the number of sort keys, 0 to 32.';
    const passages = [passage(mem, mem, 'runtime-config-resource.html', 'Resource Consumption'), passage(`Name | Parameters | Overview\n${probes}`, probes, 'dynamic-trace.html', 'Probes')];
    const answer = buildExtractiveAnswer('How much memory can a sort use before writing to temporary files?', passages);
    expect(answer.segments.map((s) => s.text)).toContain('The default value is four megabytes (4MB).');
  });

  const WORK_MEM = 'Sets the base amount of memory used by a query operation before writing to temporary files. The default value is four megabytes (4MB). '
    + 'Note that a complex query might run several sort operations at once, each allowed as much memory as this value before it starts writing to temporary files.';
  it.each([
    { where: 'in its block, under a label line', window: `work_mem (integer)\n\n${WORK_MEM}`, label: 'Resource Consumption' },
    { where: 'in its paragraph, under no label line (a Markdown section)', window: WORK_MEM, label: 'Settings › work_mem (integer)' },
  ])('completes the best sentence with the figure stated before it $where', ({ window, label }) => {
    const answer = buildExtractiveAnswer('How much memory can a sort use before writing to temporary files?', [passage(window, window, 'settings', label)]);
    expect(answer.segments[0]!.text).toMatch(/^Note that a complex query/);
    expect(answer.segments.map((s) => s.text)).toContain('The default value is four megabytes (4MB).');
  });

  it('quotes what a sentence ending in a colon introduces, beside up to three sentences', () => {
    const venv = 'To create a virtual environment, run the venv module as a script with the directory path:\npython3 -m venv tutorial-env\n'
      + 'A virtual environment keeps its own packages. Activate the virtual environment before installing. Remove a virtual environment by deleting its folder.';
    const answer = buildExtractiveAnswer('How do I create a virtual environment?', [passage(venv, venv, 'venv.html', 'Creating Virtual Environments')]);
    const quoted = answer.segments.map((s) => s.text);
    expect(quoted.slice(0, 2)).toEqual(['To create a virtual environment, run the venv module as a script with the directory path:', 'python3 -m venv tutorial-env']);
    expect(quoted).toHaveLength(4);
    // A line of code quoted is marked as code, whether the parser marked it (a code block) or it reads as code.
    expect(answer.segments.map((s) => s.code ?? false)).toEqual([false, false, false, false]);
    const inBlock = { ...passage(venv, venv, 'venv.html', 'Creating Virtual Environments'), code: [{ start: venv.indexOf('python3'), end: venv.indexOf('tutorial-env') + 'tutorial-env'.length }] };
    expect(buildExtractiveAnswer('How do I create a virtual environment?', [inBlock]).segments.map((s) => s.code ?? false)).toEqual([false, true, false, false]);
    const shell = 'You can create the environment from a shell with this one command:\n$ python3 -m venv tutorial-env\nThe folder holds its own packages.';
    expect(buildExtractiveAnswer('How do I create the environment from a shell?', [passage(shell, shell)]).segments.find((s) => s.text.startsWith('$'))?.code).toBe(true);
  });

  it('never starts a quote with a PDF heading set over its sentence without a gap', async () => {
    const pdf = await makePdf([{ lines: ['Chapter 4. Results', 'The trial enrolled 120 patients at five sites between March and October.', 'Each was followed for one year after the first visit.'] }], 'Report');
    const indexed = await indexFiles([{ id: 'report.pdf', name: 'report.pdf', folder: '', bytes: pdf }]);
    const question = 'How many patients did the trial enroll?';
    const passages = await retrievePassages(indexed.search, indexed.source, { text: question }, { k: 5 });
    const answer = buildExtractiveAnswer(question, passages, { stats: indexed.lexical });
    expect(answer.segments[0]!.text).toBe('The trial enrolled 120 patients at five sites between March and October.');
  });

  it('reads "list", "find" and the other request verbs as what is asked about unless the question opens with one', () => {
    const dedupe = 'To remove duplicates, sort the records first and compare neighbours.';
    const inList = 'Duplicates are removed from a list by turning it into a set.';
    const answer = buildExtractiveAnswer('How do I remove duplicates from a list?', [passage(dedupe, dedupe, 'records.md'), passage(inList, inList, 'lists.md')]);
    expect(answer.segments[0]!.text).toBe(inList);
    expect(contentTermsOf('How can I list the files an installed package contains?')).toContain('list');
    expect(contentTermsOf('List the files an installed package contains.')).not.toContain('list');
    expect(contentTermsOf('Can you please tell me when the rent is due?')).toEqual(['rent', 'due']);
  });

  it('returns a not-found answer for no passages', () => {
    expect(buildExtractiveAnswer('anything', [])).toEqual({ question: 'anything', found: false, segments: [], citations: [] });
  });
});
