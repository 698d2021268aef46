/**
 * Hostile and damaged library files, made from a real export: the unit tests give them to the importer in
 * Node, the browser test drops them on the page. Each is what an attacker or an accident could make of a
 * library file; the importer must refuse each, with what is wrong, before it writes anything.
 */
import { sha256HexOfBytes } from '../../src/ingest/sha256.ts';
import { ARCHIVE_VERSION, MANIFEST_ENTRY, type ArchiveManifest } from '../../src/store/library-archive-format.ts';
import { BlobReader, BlobWriter, Uint8ArrayReader, Uint8ArrayWriter, ZipReader, ZipWriter } from '../../src/store/zip.ts';

/** The archive's entries, to be altered and written again. */
export async function unzip(blob: Blob): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>();
  for (const e of await new ZipReader(new BlobReader(blob)).getEntries()) if (!e.directory) out.set(e.filename, await e.getData(new Uint8ArrayWriter()));
  return out;
}

export async function zip(entries: Map<string, Uint8Array>, level = 5): Promise<Blob> {
  const writer = new ZipWriter(new BlobWriter());
  for (const [name, bytes] of entries) await writer.add(name, new Uint8ArrayReader(bytes), { level });
  return writer.close();
}

export const manifestOf = (entries: Map<string, Uint8Array>) => JSON.parse(new TextDecoder().decode(entries.get(MANIFEST_ENTRY))) as ArchiveManifest;
export const withManifest = (entries: Map<string, Uint8Array>, manifest: ArchiveManifest) => new Map(entries).set(MANIFEST_ENTRY, new TextEncoder().encode(JSON.stringify(manifest)));

/** With an entry that would be written outside the library, were its name followed. */
export async function withDotDotEntry(file: Blob): Promise<Blob> {
  const entries = await unzip(file);
  entries.set('../../evil.js', new TextEncoder().encode('alert(1)'));
  return zip(entries);
}

/** With a 4 MB part of zeros, listed in the manifest with its true size and checksum, compressed about 1000 times. */
export async function withCompressionBomb(file: Blob): Promise<Blob> {
  const entries = await unzip(file);
  const zeros = new Uint8Array(4 * 2 ** 20);
  const manifest = manifestOf(entries);
  manifest.entries.push({ name: 'documents/000099.jsonl', bytes: zeros.byteLength, sha256: sha256HexOfBytes(zeros) });
  return zip(withManifest(entries, manifest).set('documents/000099.jsonl', zeros), 9);
}

export const cutShort = (file: Blob): Blob => file.slice(0, Math.floor(file.size * 0.6));

/**
 * With `from` replaced by `to` (of the same length: only the checksum can tell) in the part of lines that
 * holds it. Returns the file and the name of that part.
 */
export async function tampered(file: Blob, from: string, to: string): Promise<{ file: Blob; part: string }> {
  if (from.length !== to.length) throw new Error('tampered: the text must keep its length');
  const entries = await unzip(file);
  const found = [...entries].find(([name, bytes]) => name.endsWith('.jsonl') && new TextDecoder().decode(bytes).includes(from));
  if (!found) throw new Error(`tampered: no part holds "${from}"`);
  entries.set(found[0], new TextEncoder().encode(new TextDecoder().decode(found[1]).replace(from, to)));
  return { file: await zip(entries), part: found[0] };
}

/** Its manifest says a format version newer than this app reads. */
export async function newerFormat(file: Blob): Promise<Blob> {
  const entries = await unzip(file);
  const manifest = manifestOf(entries);
  manifest.formatVersion = ARCHIVE_VERSION + 1;
  return zip(withManifest(entries, manifest));
}

/** A ZIP of a million empty entries (ZIP64 end records), written by hand: no library would hold as many. */
export function millionEntryZip(): Blob {
  const n = 1_000_000;
  const name = (i: number) => `documents/${String(i).padStart(6, '0')}.jsonl`;
  const local = 30 + 22;
  const central = 46 + 22;
  const bytes = new Uint8Array(n * (local + central) + 56 + 20 + 22);
  const view = new DataView(bytes.buffer);
  const enc = new TextEncoder();
  for (let i = 0; i < n; i++) {
    const at = i * local;
    view.setUint32(at, 0x04034b50, true);
    view.setUint16(at + 26, 22, true);
    bytes.set(enc.encode(name(i)), at + 30);
  }
  const dir = n * local;
  for (let i = 0; i < n; i++) {
    const at = dir + i * central;
    view.setUint32(at, 0x02014b50, true);
    view.setUint16(at + 28, 22, true);
    view.setUint32(at + 42, i * local, true);
    bytes.set(enc.encode(name(i)), at + 46);
  }
  const z64 = dir + n * central;
  view.setUint32(z64, 0x06064b50, true);
  view.setBigUint64(z64 + 4, 44n, true);
  view.setBigUint64(z64 + 24, BigInt(n), true);
  view.setBigUint64(z64 + 32, BigInt(n), true);
  view.setBigUint64(z64 + 40, BigInt(n * central), true);
  view.setBigUint64(z64 + 48, BigInt(dir), true);
  const locator = z64 + 56;
  view.setUint32(locator, 0x07064b50, true);
  view.setBigUint64(locator + 8, BigInt(z64), true);
  view.setUint32(locator + 16, 1, true);
  const eocd = locator + 20;
  view.setUint32(eocd, 0x06054b50, true);
  view.setUint16(eocd + 8, 0xffff, true);
  view.setUint16(eocd + 10, 0xffff, true);
  view.setUint32(eocd + 12, 0xffffffff, true);
  view.setUint32(eocd + 16, 0xffffffff, true);
  return new Blob([bytes]);
}
