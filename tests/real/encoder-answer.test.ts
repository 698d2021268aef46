/**
 * The answer by meaning (src/generate/encoder-answer.ts) with the app's default embedding model and its
 * real weights (bge-small-en-v1.5 q8; `npm run test:real` fetches it first): on passages laid out as
 * PostgreSQL's and Debian Policy's manuals lay them out, it quotes the sentence that states the fact,
 * not the field name above it, reads a table row with its column names, and says "Not found" for a
 * question the passages do not answer, at the calibrated MIN_SIMILARITY
 * (docs/decisions/0014-extractive-answer-and-not-found.md). (bge-small does not find Policy's "under 80
 * characters" for "How long may a package's synopsis be?": it prefers "Do not include the package name
 * in the synopsis line."; the FORMAT and SYNOPSIS passages stay as distractors.)
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { asChunkId, asDocId } from '../../src/core/ids.ts';
import type { Passage } from '../../src/core/types.ts';
import { buildEncoderAnswer, type SentenceEncoder } from '../../src/generate/encoder-answer.ts';
import { buildExtractiveAnswer } from '../../src/generate/extractive-answer.ts';
import { loadFolderEmbedder } from '../../tools/model-folder.ts';
import { realModelsDir } from '../../tools/real-models/dirs.ts';

const folder = join(realModelsDir(), 'bge-small-en-v1.5');

function passage(window: string, docName: string, label: string): Passage {
  return { chunkId: asChunkId(`c-${docName}`), score: 1, docId: asDocId(`d-${docName}`), docName, docPath: docName, docType: 'html', block: 0, label, window, windowStart: 0, hitStart: 0, hitEnd: window.length, ranks: [], why: '' };
}

const WAL = passage(
  'checkpoint_timeout (integer)\n\nMaximum time between automatic WAL checkpoints. If this value is specified without units, it is taken as seconds. The valid range is between 30 seconds and one day. '
    + 'The default is five minutes (5min). Increasing this parameter can increase the amount of time needed for crash recovery.\n\n'
    + 'checkpoint_completion_target (floating point)\n\nSpecifies the target of checkpoint completion, as a fraction of total time between checkpoints. The default is 0.9, which spreads the checkpoint across almost all of the available interval.',
  'runtime-config-wal.html',
  '20.5. Write Ahead Log › 20.5.2. Checkpoints',
);
const DATETIME = passage(
  'PostgreSQL supports the full set of SQL date and time types, shown in Table 8.9.\n\nTable 8.9. Date/Time Types\n\nName | Storage Size | Description | Low Value | High Value | Resolution\n\n'
    + 'timestamp [ (p) ] [ without time zone ] | 8 bytes | both date and time (no time zone) | 4713 BC | 294276 AD | 1 microsecond\n\n'
    + 'date | 4 bytes | date (no time of day) | 4713 BC | 5874897 AD | 1 day\n\ntime [ (p) ] [ without time zone ] | 8 bytes | time of day (no date) | 00:00:00 | 24:00:00 | 1 microsecond',
  'datatype-datetime.html',
  '8.5. Date/Time Types',
);
const FORMAT = passage('Description: single line synopsis\n extended description over several lines\n\nThe description is intended to describe the program to a user who has never met it before.', 'ch-controlfields.html', '5.6.13. Description');
const SYNOPSIS = passage('The single line synopsis should be kept brief—certainly under 80 characters.\n\nDo not include the package name in the synopsis line. The display software knows how to display this already.', 'ch-binary.html', '3.4.1. The single line synopsis');

let encoder: SentenceEncoder;
beforeAll(async () => {
  expect(existsSync(join(folder, 'onnx', 'model_quantized.onnx')), `${folder} is missing: run npm run models:real first`).toBe(true);
  encoder = await loadFolderEmbedder(folder, 32, 'q8');
}, 120_000);

const first = async (question: string, passages: Passage[]) => (await buildEncoderAnswer(question, passages, undefined, encoder)).segments[0]?.text;

describe('the answer by meaning with bge-small-en-v1.5', () => {
  it('quotes the sentence stating the default, not the setting\'s name line', async () => {
    expect(await first('What is the default checkpoint_timeout?', [WAL])).toBe('The default is five minutes (5min).');
    expect(await first('How often does PostgreSQL run a checkpoint by default?', [WAL])).toBe('The default is five minutes (5min).');
  });

  it('reads a table row with its column names: the highest timestamp', async () => {
    expect(await first('What is the highest timestamp PostgreSQL can store?', [DATETIME])).toContain('294276 AD');
  });

  it("reads a sentence under no label line after its section's heading: the pronunciation section names Debian's founders", async () => {
    // "This word" is "Debian" only for a reader who knows the section's question.
    const pronounce = passage(
      "The project name is pronounced Deb'-ee-en, with a short e in Deb, and emphasis on the first syllable. This word is a contraction of the names of Debra and Ian Murdock, who founded the project.",
      'basic-defs.en.html',
      'Chapter 1. Definitions and overview › 1.7. How does one pronounce Debian and what does this word mean?',
    );
    const legal = passage(
      'Legally speaking, Debian is a project managed by an American not-for-profit, volunteer association. The project has around a thousand Debian developers, but brings together a far greater number of contributors.',
      'the-debian-project.html',
      '1.1. What Is Debian? › 1.1.3. The Legal Framework: A Non-Profit Organization',
    );
    const answer = await buildEncoderAnswer('Who started the Debian project?', [legal, pronounce], undefined, encoder);
    expect(answer.segments.map((s) => s.text).join(' ')).toContain('Ian Murdock');
  });

  it('says "Not found" for questions the passages do not answer, at the calibrated threshold', async () => {
    for (const question of ['How do I center a div with CSS flexbox?', 'What is the half-life of carbon-14?', 'What port does a Redis server listen on by default?']) {
      expect((await buildEncoderAnswer(question, [WAL, DATETIME, FORMAT, SYNOPSIS], undefined, encoder)).found, question).toBe(false);
    }
  });

  it('answers where words alone do not: the lexical answer misses the stating sentence', async () => {
    // Without a model the "highest" of the question is not the table's "High Value".
    expect(buildExtractiveAnswer('What is the highest timestamp PostgreSQL can store?', [DATETIME]).segments[0]?.text ?? '').not.toContain('294276 AD');
    expect(await first('What is the highest timestamp PostgreSQL can store?', [DATETIME])).toContain('294276 AD');
  });
});
