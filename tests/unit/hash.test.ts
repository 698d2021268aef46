import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkIdOf, docIdOf, sha256Hex } from '../../src/ingest/hash.ts';

const enc = (s: string) => new TextEncoder().encode(s);

describe('sha256Hex', () => {
  it('matches the FIPS 180-2 test vectors', async () => {
    expect(await sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(await sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(await sha256Hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe('248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1');
  });

  it('hashes a string as its UTF-8 bytes, whether given as string, Uint8Array or ArrayBuffer', async () => {
    const s = 'Grüße, 世界 😀';
    const bytes = enc(s);
    const expected = await sha256Hex(s);
    expect(await sha256Hex(bytes)).toBe(expected);
    expect(await sha256Hex(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength))).toBe(expected);
    expect(expected).toMatch(/^[0-9a-f]{64}$/);
  });

  it('hashes only the viewed bytes of a Uint8Array that is a window into a larger buffer', async () => {
    const big = enc('xxabcxx');
    expect(await sha256Hex(big.subarray(2, 5))).toBe(await sha256Hex('abc'));
  });
});

describe('chunkIdOf', () => {
  it('gives the same id whatever the whitespace or Unicode normal form', async () => {
    const a = await chunkIdOf('Café  au\tlait\n\nis served  ');
    expect(await chunkIdOf(' Cafe\u0301 au lait is served')).toBe(a);
    expect(await chunkIdOf('Café au lait is served')).toBe(a);
  });

  it('gives different ids to different words', async () => {
    expect(await chunkIdOf('the tenant paid')).not.toBe(await chunkIdOf('the tenant paid.'));
  });

  it('is stable under any whitespace rewriting of the same words (property)', async () => {
    const word = fc.stringMatching(/^[a-zé中]{1,6}$/);
    const ws = fc.constantFrom(' ', '  ', '\n', '\t', '\n\n', ' \u00A0 ');
    await fc.assert(
      fc.asyncProperty(fc.array(word, { minLength: 1, maxLength: 8 }), fc.array(ws, { minLength: 9, maxLength: 9 }), async (words, gaps) => {
        const spaced = words.join(' ');
        const odd = gaps[0] + words.map((w, i) => w + gaps[i + 1]).join('');
        expect(await chunkIdOf(odd)).toBe(await chunkIdOf(spaced));
      }),
      { numRuns: 50 },
    );
  });
});

describe('docIdOf', () => {
  it('differs for different bytes and is equal for equal bytes', async () => {
    const a = await docIdOf(enc('version 1 of the contract'));
    expect(await docIdOf(enc('version 1 of the contract'))).toBe(a);
    expect(await docIdOf(enc('version 2 of the contract'))).not.toBe(a);
    // Bytes, not text: a trailing newline makes a different document.
    expect(await docIdOf(enc('version 1 of the contract\n'))).not.toBe(a);
  });
});
