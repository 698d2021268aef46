import type { QueryableDoc } from '../core/query-filters.ts';

/** A file name without its extension ("lease" of "lease.md"; a leading dot is kept: ".env"). */
export const stemOf = (name: string): string => {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(0, dot) : name;
};

/** A document's name as questions are matched against it, worked out once per list of documents. */
export interface DocName {
  doc: QueryableDoc;
  /** The file name, lower case. */
  name: string;
  /** The name without its extension, lower case. */
  stem: string;
  /** How many documents of the list share that stem. */
  stemCount: number;
  /** The stem's words, filled in by the first reader that needs them. */
  stemWords?: string[];
}

const cache = new WeakMap<readonly QueryableDoc[], DocName[]>();

/**
 * The names of a list of documents, lower-cased and counted once: the library's list is kept until it
 * changes (`QuestionReader`), and the question is read at every keystroke, so at thousands of documents
 * the names are not worked out again each time.
 */
export function docNames(docs: readonly QueryableDoc[]): DocName[] {
  let names = cache.get(docs);
  if (names) return names;
  const stems = new Map<string, number>();
  names = docs.map((doc) => {
    const stem = stemOf(doc.name).toLowerCase();
    stems.set(stem, (stems.get(stem) ?? 0) + 1);
    return { doc, name: doc.name.toLowerCase(), stem, stemCount: 0 };
  });
  for (const n of names) n.stemCount = stems.get(n.stem)!;
  cache.set(docs, names);
  return names;
}

/** What a list of documents offers besides names: folders (every prefix of every path, longest first), types, tags. */
export interface DocFacets {
  folders: string[];
  /**
   * Every folder's last part, lower case. A document named as one of them ("sqlite.html" in "docs/sqlite")
   * is not read from its name without extension: "the maximum … in SQLite" asks about the subject of the
   * whole folder, not its one page named so.
   */
  folderNames: ReadonlySet<string>;
  types: ReadonlySet<string>;
  tags: string[];
}

const facetCache = new WeakMap<readonly QueryableDoc[], DocFacets>();

/** {@link DocFacets} of a list of documents, worked out once per list (as {@link docNames}). */
export function docFacets(docs: readonly QueryableDoc[]): DocFacets {
  let facets = facetCache.get(docs);
  if (facets) return facets;
  const folders = new Set<string>();
  for (const d of docs) {
    const parts = d.folder.split('/').filter(Boolean);
    for (let i = 1; i <= parts.length; i++) folders.add(parts.slice(0, i).join('/'));
  }
  const folderNames = new Set([...folders].map((f) => f.split('/').at(-1)!.toLowerCase()));
  facets = { folders: [...folders].sort((a, b) => b.length - a.length), folderNames, types: new Set(docs.map((d) => d.type)), tags: [...new Set(docs.flatMap((d) => d.tags))] };
  facetCache.set(docs, facets);
  return facets;
}
