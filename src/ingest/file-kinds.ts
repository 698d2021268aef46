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

/** What the app reads, as messages name it. */
export const SUPPORTED_TYPES = 'PDF, Word .docx, HTML, Markdown, text, and images of text: PNG, JPEG, WebP, TIFF';

/** Most extensions a skipped-files summary names; the rest are counted together. */
const NAMED_EXTENSIONS = 4;

/**
 * One line for the files of a dropped folder that the app does not read, by extension, most first:
 * "skipped 163 files this app does not read: 97 .gif, 40 .css, 14 .js, 9 .svg and 3 of other types
 * (it reads PDF, …)".
 */
export function describeSkipped(names: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const name of names) {
    const ext = extensionOf(name);
    const key = ext ? `.${ext}` : 'without extension';
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const sorted = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const named = sorted.slice(0, NAMED_EXTENSIONS).map(([ext, n]) => `${n} ${ext}`);
  const others = sorted.slice(NAMED_EXTENSIONS).reduce((sum, [, n]) => sum + n, 0);
  const kinds = others ? `${named.join(', ')} and ${others} of other types` : named.join(', ');
  const files = names.length === 1 ? '1 file' : `${names.length} files`;
  return `skipped ${files} this app does not read: ${kinds} (it reads ${SUPPORTED_TYPES})`;
}

/** The document type for a file name, from its extension; undefined when unsupported. */
export function detectType(name: string): DocType | undefined {
  const ext = extensionOf(name);
  return ext ? EXTENSIONS[ext] : undefined;
}

/** A file name's extension, lower case, without its dot ("pdf" of "Report.PDF"); undefined when it has none. */
function extensionOf(name: string): string | undefined {
  return /\.([^./\\]+)$/.exec(name)?.[1]?.toLowerCase();
}

/** Joins folder and name into the path that identifies "the same file" across versions. */
export function joinPath(folder: string, name: string): string {
  return folder ? `${folder}/${name}` : name;
}
