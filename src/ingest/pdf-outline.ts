/**
 * Sections of a PDF from its outline (bookmarks): each outline entry that leads to a page starts a section
 * named by the path of titles from the top level ("Basic Shell Features › Shell Syntax"), the separator
 * the HTML and Markdown parsers use. A page is split where an entry's title is a line of its text, so a
 * citation names "page 4 · Security deposit". Pure except {@link readOutline}, which asks pdf.js.
 */
import { normalizeForId, normalizeText } from './clean.ts';

/** An outline item as pdf.js gives it (`getOutline()`), reduced to what sections need. */
export interface OutlineNode {
  title: string;
  /** A named destination, an explicit one (`[pageRef, /XYZ, …]`), or none (a link, an action). */
  dest: string | unknown[] | null;
  items: OutlineNode[];
}

/** What the outline is read through: pdf.js's document proxy, or a stand-in in tests. */
export interface OutlineReader {
  getOutline(): Promise<OutlineNode[] | null>;
  getDestination(id: string): Promise<unknown[] | null>;
  getPageIndex(ref: { num: number; gen: number }): Promise<number>;
}

/** An outline entry that starts a section on a page. */
export interface OutlineEntry {
  /** 1-based page the entry leads to. */
  page: number;
  /** Titles from the top level, joined by " › ". */
  section: string;
  /** The entry's own title as compared with the page's lines ({@link headingKey}). */
  key: string;
}

/**
 * Deeper entries are left out: HTML has six heading levels, a longer path is no name a person reads,
 * and an outline nested thousands deep would make the paths quadratic in its size.
 */
const MAX_DEPTH = 6;
/** A longer title is cut in the section name (a block stores its section; the key keeps the whole title). */
const MAX_TITLE_CHARS = 200;
const SEPARATOR = ' › ';

/** An outline title as shown: NFC, no control or bidi characters, one line, single spaces. */
function cleanTitle(title: unknown): string {
  if (typeof title !== 'string') return '';
  const clean = normalizeText(title).replace(/\n/g, ' ');
  return clean.length > MAX_TITLE_CHARS ? `${clean.slice(0, MAX_TITLE_CHARS - 1)}…` : clean;
}

/** Text compared with a title: NFC, case and whitespace ignored (pdf.js does not always emit the spaces). */
export function headingKey(text: string): string {
  return normalizeForId(text).toLowerCase().replace(/\s/g, '');
}

/**
 * A section number before a heading's title, which an outline often leaves out ("3.1 Shell Syntax",
 * "Chapter 3: Basic Shell Features", "A.2 The Restricted Shell" for the entries "Shell Syntax", "Basic
 * Shell Features", "The Restricted Shell"). Case-sensitive, so "Part of the deal" keeps its words.
 */
const NUMBER_PREFIX = /^(?:(?:[Cc]hapter|CHAPTER|[Aa]ppendix|APPENDIX|[Pp]art|PART|[Ss]ection|SECTION)\s+(?:\d+|[A-Z]|[IVXLC]+)|\d+(?:\.\d+)*|[A-Z](?:\.\d+)+)[.:]?\s+/;

interface Flat {
  node: OutlineNode;
  section: string;
  title: string;
}

/**
 * The entries of an outline in reading order (pre-order), each with its section path; titles left
 * empty by cleaning add nothing to the path. Iterative: a deep outline cannot overflow the stack.
 */
export function flattenOutline(nodes: readonly OutlineNode[]): Flat[] {
  const out: Flat[] = [];
  const stack: Array<{ node: OutlineNode; parent: string; depth: number }> = [];
  const pushAll = (items: unknown, parent: string, depth: number) => {
    if (!Array.isArray(items) || depth > MAX_DEPTH) return;
    for (let i = items.length - 1; i >= 0; i--) {
      const node = items[i] as OutlineNode | undefined;
      if (node && typeof node === 'object') stack.push({ node, parent, depth });
    }
  };
  pushAll(nodes, '', 1);
  for (let top = stack.pop(); top; top = stack.pop()) {
    const title = cleanTitle(top.node.title);
    const section = title ? (top.parent ? `${top.parent}${SEPARATOR}${title}` : title) : top.parent;
    out.push({ node: top.node, section, title });
    pushAll(top.node.items, section, top.depth + 1);
  }
  return out;
}

/** "12R0" for pdf.js's `{ num: 12, gen: 0 }`; undefined for anything else. */
export function refKey(ref: unknown): string | undefined {
  const r = ref as { num?: unknown; gen?: unknown } | null;
  return r && typeof r === 'object' && Number.isInteger(r.num) && Number.isInteger(r.gen) ? `${String(r.num)}R${String(r.gen)}` : undefined;
}

/**
 * The 1-based page a destination leads to, or undefined. The page's reference is looked up among the
 * pages already read (`pageOfRef`), then asked of pdf.js; a bare integer is a 0-based page index (as
 * pdf.js's viewer reads it). A destination that is not a page, or out of range, has none.
 */
async function pageOfDest(reader: OutlineReader, dest: unknown[] | null, pageOfRef: ReadonlyMap<string, number>, numPages: number): Promise<number | undefined> {
  const target = dest?.[0];
  let index: number | undefined;
  if (Number.isInteger(target)) index = target as number;
  else {
    const key = refKey(target);
    if (!key) return undefined;
    const known = pageOfRef.get(key);
    if (known !== undefined) return known;
    index = await reader.getPageIndex(target as { num: number; gen: number }).catch(() => undefined);
  }
  return index !== undefined && index >= 0 && index < numPages ? index + 1 : undefined;
}

/**
 * The outline's entries that lead to a page, in outline order. Entries without a destination (links,
 * actions) or whose destination does not resolve are skipped; an outline that cannot be read at all
 * gives none: a broken outline costs the sections, never the document.
 */
export async function readOutline(reader: OutlineReader, pageOfRef: ReadonlyMap<string, number>, numPages: number): Promise<OutlineEntry[]> {
  try {
    const flat = flattenOutline((await reader.getOutline()) ?? []).filter((f) => f.title);
    const named = new Map<string, Promise<unknown[] | null>>();
    for (const { node } of flat) {
      if (typeof node.dest === 'string' && !named.has(node.dest)) named.set(node.dest, reader.getDestination(node.dest).catch(() => null));
    }
    const pages = await Promise.all(
      flat.map(async ({ node }) => {
        const dest = typeof node.dest === 'string' ? await named.get(node.dest)! : Array.isArray(node.dest) ? node.dest : null;
        return pageOfDest(reader, dest, pageOfRef, numPages);
      }),
    );
    const entries: OutlineEntry[] = [];
    flat.forEach((f, i) => {
      const page = pages[i];
      const key = headingKey(typeof f.node.title === 'string' ? f.node.title : '');
      if (page !== undefined) entries.push({ page, section: f.section, key });
    });
    return entries;
  } catch {
    return [];
  }
}

/** Entries by 1-based page (index 0 unused), each page's in outline order. */
export function entriesByPage(entries: readonly OutlineEntry[], numPages: number): OutlineEntry[][] {
  const byPage: OutlineEntry[][] = Array.from({ length: numPages + 1 }, () => []);
  for (const e of entries) byPage[e.page]?.push(e);
  return byPage;
}

/** Where a heading was found: its first line and how many lines it spans (1 or 2). */
interface HeadingAt {
  at: number;
  span: number;
}

/**
 * The page's possible heading lines by {@link headingKey}: each non-empty line, the same without a
 * section number, and each two consecutive lines together (a title wrapped over two lines). Ascending.
 */
function headingCandidates(lines: readonly string[]): Map<string, HeadingAt[]> {
  const found = new Map<string, HeadingAt[]>();
  const add = (key: string, at: number, span: number) => {
    if (!key) return;
    const list = found.get(key);
    if (list) list.push({ at, span });
    else found.set(key, [{ at, span }]);
  };
  const keys = lines.map((line) => (line.trim() ? headingKey(line) : ''));
  lines.forEach((line, i) => {
    if (!keys[i]) return;
    const bare = line.trim().replace(NUMBER_PREFIX, '');
    const bareKey = bare === line.trim() ? keys[i]! : headingKey(bare);
    add(keys[i]!, i, 1);
    if (bareKey !== keys[i]) add(bareKey, i, 1);
    if (keys[i + 1]) {
      add(keys[i]! + keys[i + 1]!, i, 2);
      if (bareKey !== keys[i]) add(bareKey + keys[i + 1]!, i, 2);
    }
  });
  return found;
}

/** A run of a page's lines and the section they belong to. */
export interface PageSegment {
  section?: string;
  lines: readonly string[];
}

/**
 * A page's lines cut into sections. Each entry starting on the page (in outline order) is looked for as
 * a line (or two) after the previous one found: there a new segment starts, the heading its own paragraph.
 * An entry whose title is not in the text starts where the previous one of the page did (the page's top
 * for the first): its section takes over the open segment. Lines before the first heading keep `inForce`,
 * the section of the earlier pages. Linear in the page's lines and entries: each key's candidates are
 * passed once, as the search only moves forward.
 *
 * @example
 * splitPage(['Rent is due.', 'Deposit', 'It is returned.'], [{ page: 1, section: 'Lease › Deposit', key: 'deposit' }], 'Lease')
 * // → { segments: [{ section: 'Lease', lines: ['Rent is due.'] },
 * //                { section: 'Lease › Deposit', lines: ['Deposit', '', 'It is returned.'] }],
 * //     inForce: 'Lease › Deposit' }
 */
export function splitPage(lines: readonly string[], entries: readonly OutlineEntry[], inForce: string | undefined): { segments: PageSegment[]; inForce: string | undefined } {
  if (!entries.length) return { segments: [{ section: inForce, lines }], inForce };
  const candidates = headingCandidates(lines);
  const next = new Map<string, number>();
  const cuts: Array<{ at: number; span: number; section: string }> = [];
  let top = inForce;
  let cursor = 0;
  for (const entry of entries) {
    const list = candidates.get(entry.key);
    let k = next.get(entry.key) ?? 0;
    while (list && k < list.length && list[k]!.at < cursor) k++;
    next.set(entry.key, k);
    const hit = list?.[k];
    if (hit) {
      cuts.push({ ...hit, section: entry.section });
      cursor = hit.at + hit.span;
    } else if (cuts.length) cuts[cuts.length - 1]!.section = entry.section;
    else top = entry.section;
  }
  const segments: PageSegment[] = [{ section: top, lines: lines.slice(0, cuts[0]?.at ?? lines.length) }];
  cuts.forEach((cut, i) => {
    const end = cuts[i + 1]?.at ?? lines.length;
    segments.push({ section: cut.section, lines: [...lines.slice(cut.at, cut.at + cut.span), '', ...lines.slice(cut.at + cut.span, end)] });
  });
  return { segments, inForce: cuts.at(-1)?.section ?? top };
}
