import { DocQaError } from '../core/errors.ts';
import type { DocType, PageReading, ParsedDoc, ReadProgress } from '../core/types.ts';
import { detectType, SUPPORTED_TYPES } from './file-kinds.ts';
import { parseDocx } from './parse-docx.ts';
import { parseHtml } from './parse-html.ts';
import { parseImage } from './parse-image.ts';
import { parseMarkdown } from './parse-markdown.ts';
import { parsePdf } from './parse-pdf.ts';
import { parseText } from './parse-text.ts';
import { DEFAULT_READ_LIMITS, type ReadLimits } from './read-limits.ts';
import { isStackOverflow, tooDeeplyNested } from './structure-limits.ts';
import { plausibleTitle } from './title.ts';

export interface ParseOptions {
  /** Receives the fraction parsed (0–1) where the parser knows it, and the stage where it has one (OCR). */
  onProgress?: ReadProgress;
  /** Size caps checked before decompressing; default {@link DEFAULT_READ_LIMITS}. */
  limits?: ReadLimits;
  /** PDF or TIFF pages already recognised by an earlier read of the same file (by page): not recognised again. */
  recognised?: ReadonlyMap<number, PageReading>;
  /** Receives each PDF or TIFF page as OCR finishes it, to be kept until the document is stored. */
  onRecognised?: (reading: PageReading) => void;
}

/**
 * Parses a file's bytes by type. The result always has a title and its source: the parser's when it is
 * plausible (`ingest/title.ts`; Markdown's first heading is checked here), else the file name with
 * `titleSource` 'file-name'.
 */
export async function parseFile(bytes: Uint8Array, name: string, options: ParseOptions = {}): Promise<{ type: DocType; parsed: ParsedDoc }> {
  const { limits = DEFAULT_READ_LIMITS } = options;
  const type = detectType(name);
  if (!type) throw new DocQaError('unsupported-type', `${name}: unsupported file type (supported: ${SUPPORTED_TYPES})`);
  if (bytes.byteLength === 0) throw new DocQaError('empty-file', `${name}: the file is empty`);
  let parsed: ParsedDoc;
  try {
    parsed = await parseByType(type, bytes, name, options, limits);
  } catch (error) {
    // Whatever a parser does not bound itself must not surface as "Maximum call stack size exceeded".
    if (isStackOverflow(error)) throw tooDeeplyNested(name, error);
    throw error;
  }
  if (!parsed.blocks.some((b) => /\S/.test(b.text))) {
    throw new DocQaError('empty-file', `${name}: no text found in this file`);
  }
  const title = plausibleTitle(parsed.title, name);
  return { type, parsed: { ...parsed, ...(title ? { title, titleSource: parsed.titleSource ?? 'heading' } : { title: name, titleSource: 'file-name' }) } };
}

/** The parser for `type` (see `file-kinds.ts`). */
async function parseByType(type: DocType, bytes: Uint8Array, name: string, options: ParseOptions, limits: ReadLimits): Promise<ParsedDoc> {
  const { onProgress } = options;
  switch (type) {
    case 'pdf':
      return await parsePdf(bytes, name, onProgress, { limits, recognised: options.recognised, onRecognised: options.onRecognised });
    case 'docx':
      return await parseDocx(bytes, name, limits);
    case 'html':
      return parseHtml(bytes, name);
    case 'markdown':
      return parseMarkdown(bytes, name);
    case 'text':
      return parseText(bytes, name, onProgress);
    case 'image':
      return await parseImage(bytes, name, onProgress, { limits, recognised: options.recognised, onRecognised: options.onRecognised });
  }
}
