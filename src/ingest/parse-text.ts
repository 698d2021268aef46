import { DocQaError } from '../core/errors.ts';
import type { Block, ParsedDoc } from '../core/types.ts';
import { textToParagraphs } from './clean.ts';

/** Plain-text files are cut into blocks of about this many characters, labelled by line numbers. */
const TEXT_BLOCK_CHARS = 20_000;

/**
 * Decodes text bytes: UTF-8 (BOM stripped), UTF-16 with a BOM, else Windows-1252 when the bytes are
 * not valid UTF-8 — the usual legacy encoding — so old files still index instead of failing.
 * Bytes with NUL characters are not text.
 */
export function decodeText(bytes: Uint8Array, name: string): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes);
  if (bytes.subarray(0, 8192).includes(0)) {
    throw new DocQaError('corrupt-file', `${name}: this does not look like a text file (it contains binary data)`);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return new TextDecoder('windows-1252').decode(bytes);
  }
}

/** Plain text: paragraphs at blank lines, grouped into blocks labelled "lines a–b". */
export function parseText(bytes: Uint8Array, name: string, onProgress?: (fraction: number) => void): ParsedDoc {
  const text = decodeText(bytes, name);
  const blocks: Block[] = [];
  let lineNo = 1;
  let current: string[] = [];
  let size = 0;
  let firstLine = 1;
  const flush = (lastLine: number) => {
    if (!current.length) return;
    blocks.push({ label: firstLine === lastLine ? `line ${firstLine}` : `lines ${firstLine}–${lastLine}`, text: current.join('\n\n') });
    current = [];
    size = 0;
  };
  // Walk raw paragraphs (split at blank lines) to keep line numbers exact.
  const raws = text.split(/\n[ \t]*\n/);
  for (const [i, raw] of raws.entries()) {
    if (onProgress && i % 2048 === 2047) onProgress(i / raws.length);
    const lines = raw.split('\n').length;
    const paras = textToParagraphs(raw);
    if (paras.length) {
      if (!current.length) firstLine = lineNo;
      current.push(...paras);
      size += raw.length;
    }
    lineNo += lines + 1;
    if (size >= TEXT_BLOCK_CHARS) flush(lineNo - 2);
  }
  flush(lineNo - 2);
  return { title: blocks[0]?.text.split('\n')[0]?.slice(0, 120), blocks };
}
