import { DocQaError } from '../core/errors.ts';
import type { DocType, ParsedDoc } from '../core/types.ts';
import { parseDocx } from './parse-docx.ts';
import { parseHtml } from './parse-html.ts';
import { parseMarkdown } from './parse-markdown.ts';
import { parsePdf } from './parse-pdf.ts';
import { parseText } from './parse-text.ts';

const EXTENSIONS: Record<string, DocType> = {
  pdf: 'pdf',
  docx: 'docx',
  html: 'html',
  htm: 'html',
  md: 'markdown',
  markdown: 'markdown',
  txt: 'text',
};

/**
 * Files that operating systems and editors leave in folders (".DS_Store", "Thumbs.db", "desktop.ini",
 * Office's "~$" lock files, other hidden files, and anything inside a hidden folder such as ".git"): a
 * dropped folder's copies of them are skipped rather than listed as unsupported.
 */
export function isSystemFile(path: string): boolean {
  return path.split('/').some((part) => part.startsWith('.') || part.startsWith('~$') || /^(thumbs\.db|desktop\.ini)$/i.test(part));
}

/** The document type for a file name, from its extension; undefined when unsupported. */
export function detectType(name: string): DocType | undefined {
  const ext = /\.([^./\\]+)$/.exec(name)?.[1]?.toLowerCase();
  return ext ? EXTENSIONS[ext] : undefined;
}

/** Parses a file's bytes by type. `onProgress` gets the fraction parsed (0–1) where the parser knows it. */
export async function parseFile(bytes: Uint8Array, name: string, onProgress?: (fraction: number) => void): Promise<{ type: DocType; parsed: ParsedDoc }> {
  const type = detectType(name);
  if (!type) throw new DocQaError('unsupported-type', `${name}: unsupported file type (supported: PDF, Word .docx, HTML, Markdown, text)`);
  if (bytes.byteLength === 0) throw new DocQaError('empty-file', `${name}: the file is empty`);
  let parsed: ParsedDoc;
  switch (type) {
    case 'pdf':
      parsed = await parsePdf(bytes, name, onProgress);
      break;
    case 'docx':
      parsed = await parseDocx(bytes, name);
      break;
    case 'html':
      parsed = parseHtml(bytes, name);
      break;
    case 'markdown':
      parsed = parseMarkdown(bytes, name);
      break;
    case 'text':
      parsed = parseText(bytes, name, onProgress);
      break;
  }
  if (!parsed.blocks.some((b) => /\S/.test(b.text))) {
    throw new DocQaError('empty-file', `${name}: no text found in this file`);
  }
  return { type, parsed };
}
