import type { DocType } from '../core/types.ts';

const EXTENSIONS: Record<string, DocType> = {
  pdf: 'pdf',
  docx: 'docx',
  html: 'html',
  htm: 'html',
  md: 'markdown',
  markdown: 'markdown',
  txt: 'text',
  // reStructuredText is read as plain text: its underlined headings become sections.
  rst: 'text',
  // Photographed or scanned pages, read by OCR (`parse-image.ts`).
  png: 'image',
  jpg: 'image',
  jpeg: 'image',
  webp: 'image',
  tif: 'image',
  tiff: 'image',
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

/** Joins folder and name into the path that identifies "the same file" across versions. */
export function joinPath(folder: string, name: string): string {
  return folder ? `${folder}/${name}` : name;
}
