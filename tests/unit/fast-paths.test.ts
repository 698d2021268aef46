/**
 * The shortcuts the ingest path takes for speed give what the plain way gives: SHA-256 in JS equals
 * `crypto.subtle`, the cleaning passes that are skipped could not have changed the text, the Markdown
 * paragraphs that skip marked's inline lexer are the ones it would give back as they are, a title
 * accepted once is accepted again, and what the index remembers of the terms a batch of chunks looked
 * up never outlives the batch.
 */
import { webcrypto } from 'node:crypto';
import fc from 'fast-check';
import { Lexer, type Token } from 'marked';
import MiniSearch from 'minisearch';
import { describe, expect, it } from 'vitest';
import { asChunkId, asDocId } from '../../src/core/ids.ts';
import { LexicalIndex } from '../../src/index/lexical-index.ts';
import type { IndexEntry } from '../../src/index/search-index.ts';
import { normalizeForId, normalizeText } from '../../src/ingest/clean.ts';
import { sha256Hex } from '../../src/ingest/hash.ts';
import { isPlainInline } from '../../src/ingest/parse-markdown.ts';
import { sha256HexOfBytes, sha256HexOfText } from '../../src/ingest/sha256.ts';
import { plausibleTitle } from '../../src/ingest/title.ts';

const hex = (digest: ArrayBuffer) => Buffer.from(digest).toString('hex');
const subtle = async (bytes: Uint8Array) => hex(await webcrypto.subtle.digest('SHA-256', bytes));

describe('SHA-256 in JS', () => {
  it('matches the FIPS 180-4 examples', () => {
    expect(sha256HexOfText('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256HexOfText('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256HexOfText('abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu'))
      .toBe('cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1');
    expect(sha256HexOfText('a'.repeat(1_000_000))).toBe('cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0');
  });

  it('equals crypto.subtle for every length around the block and padding boundaries', async () => {
    for (let n = 0; n <= 200; n++) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 131 + n * 7) & 0xff);
      expect(sha256HexOfBytes(bytes), `${n} bytes`).toBe(await subtle(bytes));
    }
  });

  it('hashes a string as its UTF-8 bytes, lone surrogates as U+FFFD (property)', async () => {
    const text = fc.array(fc.constantFrom('a', 'é', '中', '😀', '\uD800', '\uDC00', '\u0000', '\n', ' '), { maxLength: 300 }).map((p) => p.join(''));
    await fc.assert(
      fc.asyncProperty(text, async (s) => {
        expect(sha256HexOfText(s)).toBe(await subtle(new TextEncoder().encode(s)));
      }),
      { numRuns: 200 },
    );
  });

  it('gives sha256Hex the same digest on both sides of the size where it hands over to crypto.subtle', async () => {
    for (const n of [64 * 1024 - 1, 64 * 1024, 64 * 1024 + 1, 300_000]) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 31) & 0xff);
      const expected = await subtle(bytes);
      expect(await sha256Hex(bytes)).toBe(expected);
      expect(sha256HexOfBytes(bytes)).toBe(expected);
    }
    const long = 'Grüße '.repeat(20_000);
    expect(await sha256Hex(long)).toBe(sha256HexOfText(long));
  });
});

/** The cleaning passes one after the other, each over the whole text: what normalizeText must equal. */
function normalizeTextReference(text: string): string {
  return text
    .normalize('NFC')
    .replace(/\r\n?|\u2028|\u2029/g, '\n')
    // eslint-disable-next-line no-control-regex -- as in clean.ts
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\u200B\uFEFF]/g, '')
    .replace(/[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g, '')
    .replace(/[ \t\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000]+/g, ' ')
    .replace(/ ?\n ?/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function normalizeForIdReference(text: string): string {
  return text.normalize('NFC').replace(/[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g, '').replace(/\s+/g, ' ').trim();
}

describe('cleaning passes that run only where they can change something', () => {
  const piece = fc.constantFrom(
    'a', 'é', 'e\u0301', '中', '.', ' ', '  ', '\t', '\n', '\n\n\n', '\r', '\r\n', '\u2028', '\u2029', '\u0000', '\u0007', '\u000B',
    '\u000C', '\u007F', '\u200B', '\uFEFF', '\u061C', '\u200E', '\u202E', '\u2066', '\u00A0', '\u1680', '\u2003', '\u202F', '\u3000', '\u0085',
  );

  it('normalizeText and normalizeForId equal all passes run in a row (property)', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (parts) => {
        const text = parts.join('');
        expect(normalizeText(text)).toBe(normalizeTextReference(text));
        expect(normalizeForId(text)).toBe(normalizeForIdReference(text));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('Markdown inline source that skips the inline lexer', () => {
  /** Text, punctuation, and the starts of links, URLs and markup, some plain and some not. */
  const piece = fc.constantFrom(
    'word', 'x', 'http', 'https', 'ftp', 'www', 'mailto', 'xmpp', ':', '/', '.', ',', ' ', '  ', '\n', ' \n', '(', ')', ']', '#', '>', '|',
    '+', '-', '=', "'", '"', '?', ';', '%', '$', '{{', '}}', '9', 'é', '😀', '&', '<', '[', '*', '_', '~', '`', '!', '\\', '@',
  );

  it('is exactly what marked would give back as its own text (property)', () => {
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 30 }), (parts) => {
        const src = parts.join('').trim();
        if (!src || !isPlainInline(src)) return;
        const tokens: Token[] = new Lexer({ gfm: true }).inlineTokens(src, []);
        expect(tokens.every((t) => t.type === 'text' && !('tokens' in t && t.tokens?.length))).toBe(true);
        expect(tokens.map((t) => ('text' in t ? t.text : '')).join('')).toBe(src);
      }),
      { numRuns: 3000 },
    );
  });

  it('leaves markup, references, URLs and hard breaks to the lexer', () => {
    for (const src of ['a *b*', 'a_b', 'x < y', '[a]', '![a]', 'a `b`', '~~a~~', 'a &amp; b', 'a\\*', 'a  \nb', 'see https://x.org', 'www.x.org', 'a@b.org']) {
      expect(isPlainInline(src), src).toBe(false);
    }
    expect(isPlainInline('Plain prose, with (brackets), 3.5 % and: a colon.')).toBe(true);
  });
});

describe('plausibleTitle, checked twice', () => {
  it('accepts an accepted title again, but only for the same file name', () => {
    const title = plausibleTitle('  Tenancy   agreement ', 'lease.md');
    expect(title).toBe('Tenancy agreement');
    expect(plausibleTitle(title, 'lease.md')).toBe(title);
    expect(plausibleTitle(title, 'tenancy agreement')).toBeUndefined();
  });
});

describe('LexicalIndex adding a batch (each term looked up in MiniSearch once per batch)', () => {
  const entry = (chunk: string, doc: string, text: string, title = ''): IndexEntry => ({ chunkId: asChunkId(chunk), docId: asDocId(doc), text, title });
  const chunks = [
    entry('c1', 'a', 'Harbour cranes, harbour tides: the harbour master logs cranes daily.', 'Harbour'),
    entry('c2', 'a', 'Daily logs of the harbour master, cranes and pilots.', 'Harbour'),
    entry('c3', 'b', 'Pilots board ships; pilots and tides, tides and pilots.', 'Pilots'),
  ];

  it('builds the same index in one batch as chunk by chunk', () => {
    const whole = new LexicalIndex();
    whole.add(chunks);
    const single = new LexicalIndex();
    for (const c of chunks) single.add([c]);
    expect(whole.serialize()).toEqual(single.serialize());
  });

  it('does not carry a term into the next batch after a vacuum removed it', async () => {
    const ix = new LexicalIndex();
    ix.add([entry('z1', 'a', 'zebra zebra zebra')]);
    await ix.remove([asChunkId('z1')]);
    ix.add([entry('z2', 'b', 'zebra crossing zebra')]);
    const fresh = new LexicalIndex();
    fresh.add([entry('z2', 'b', 'zebra crossing zebra')]);
    expect(ix.searchNow('zebra', 5)).toEqual(fresh.searchNow('zebra', 5));
    expect(ix.searchNow('zebra', 5).map((h) => h.chunkId)).toEqual(['z2']);
  });

  it("finds MiniSearch's term map where it looks for it (else adding is slower, not wrong)", () => {
    const internals = new MiniSearch({ fields: ['text'] }) as unknown as { _index?: { fetch?: unknown } };
    expect(typeof internals._index?.fetch).toBe('function');
  });
});
