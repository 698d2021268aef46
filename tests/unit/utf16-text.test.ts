import { describe, expect, it } from 'vitest';
import { parseFile } from '../../src/ingest/parse.ts';
import { decodeText } from '../../src/ingest/parse-text.ts';
import { junkBytes } from '../support/fixtures.ts';

/** `text` as UTF-16 code units in the given byte order, with no byte-order mark. */
function utf16(text: string, order: 'le' | 'be'): Uint8Array {
  const out = new Uint8Array(text.length * 2);
  const view = new DataView(out.buffer);
  for (let i = 0; i < text.length; i++) view.setUint16(i * 2, text.charCodeAt(i), order === 'le');
  return out;
}

const english = 'Fishing quotas\n\nThe treaty limits the catch of cod to 400 tonnes a year.\nInspections happen twice a season.';
const greek = 'Αλιευτικές ποσοστώσεις\n\nΗ συνθήκη περιορίζει την αλίευση μπακαλιάρου σε 400 τόνους τον χρόνο.';
// Chinese text has no spaces: only its line ends and digits store a zero high byte.
const chinese = '渔业配额\n\n条约将鳕鱼捕捞量限制为每年400吨。\n检查每季进行两次。\n违反规定将被处以罚款。';
// Outside the Basic Multilingual Plane: surrogate pairs (one cut at the 8 KB sample's end below).
const emoji = 'Notes 😀 on 𝔉𝔦𝔰𝔥 quotas\n';

describe('UTF-16 text without a byte-order mark', () => {
  for (const order of ['le', 'be'] as const) {
    for (const [script, text] of Object.entries({ english, greek, chinese, emoji })) {
      it(`decodes ${script} written as UTF-16${order.toUpperCase()}`, () => {
        expect(decodeText(utf16(text, order), 'notes.txt')).toBe(text);
      });
    }

    it(`indexes a long UTF-16${order.toUpperCase()} .txt file whose sample ends inside a surrogate pair`, async () => {
      const text = 'x'.repeat(4089) + emoji.repeat(200);
      expect(text.charCodeAt(4095)).toBe(0xd83d); // the 8 KB sample ends after this high surrogate
      expect(decodeText(utf16(text, order), 'long.txt')).toBe(text);
      const { parsed } = await parseFile(utf16(greek, order), 'greek.txt');
      expect(parsed.blocks.map((b) => b.text).join('\n')).toContain('Η συνθήκη περιορίζει την αλίευση');
    });
  }

  it('still decodes UTF-16 with a byte-order mark, UTF-8 and Windows-1252 as before', () => {
    expect(decodeText(Uint8Array.from([0xff, 0xfe, ...utf16(greek, 'le')]), 'bom.txt')).toBe(greek);
    expect(decodeText(new TextEncoder().encode(chinese), 'utf8.txt')).toBe(chinese);
    expect(decodeText(Uint8Array.from([0x63, 0x61, 0x66, 0xe9]), 'latin1.txt')).toBe('café');
  });
});

describe('binary data stays refused', () => {
  const refused = (bytes: Uint8Array) => expect(() => decodeText(bytes, 'data.txt')).toThrow(/does not look like a text file/);

  it('refuses random bytes', () => refused(junkBytes(8192, 11)));

  it('refuses an array of small 16-bit numbers (zeros on one side only, but control characters)', () => {
    const numbers = new Uint16Array(2000).map((_, i) => (i * 37) % 200);
    refused(new Uint8Array(numbers.buffer));
  });

  it('refuses a PNG-like header followed by zero-padded records', () => {
    const bytes = new Uint8Array(4096);
    bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    for (let i = 16; i < bytes.length; i += 16) bytes.set([0, 0, 0, i & 0xff, 0x49, 0x44, 0x41, 0x54], i);
    refused(bytes);
  });

  it('refuses UTF-8 text with a stray NUL, and UTF-32 text', () => {
    const text = new TextEncoder().encode(english.repeat(20));
    text[500] = 0;
    refused(text);
    const utf32 = new Uint8Array(new Uint32Array([...english].map((c) => c.codePointAt(0)!)).buffer);
    refused(utf32);
  });
});
