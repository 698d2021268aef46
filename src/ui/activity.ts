/** Lines of the Activity list, with repeated notices of one drop summarised (pure: unit-tested in Node). */

/** A line of the Activity list; `path` is the file it is about, if any (shown isolated: see isolate.tsx). */
export interface ActivityNote {
  text: string;
  path?: string;
  /** Another path the text ends with ("… already in library as notes/a.md"), shown isolated too. */
  endsWith?: string;
  /**
   * Notes of one kind from one drop ("already in library") are summarised in one line: the group they
   * share, the summary's wording ("already in library"), how many there are, and their own lines (the
   * first {@link MAX_GROUP_LINES}), shown when the summary is opened.
   */
  group?: { key: string; summary: string; count: number; lines?: string[] };
}

/** Most lines the Activity list keeps. */
const MAX_NOTES = 50;
/** Most lines a summary keeps of the notes it stands for. */
const MAX_GROUP_LINES = 1000;

/**
 * Puts `fresh` (newest last) on top of `notes`. A grouped note joins the earlier line of its group,
 * which moves to the top and becomes "63 already in library"; a single one reads as itself.
 */
export function addNotes(notes: readonly ActivityNote[], fresh: readonly ActivityNote[]): ActivityNote[] {
  let next = [...notes];
  for (const n of fresh) {
    const key = n.group?.key;
    const earlier = key === undefined ? undefined : next.find((m) => m.group?.key === key);
    if (earlier?.group) {
      const count = earlier.group.count + 1;
      const lines = [...(earlier.group.lines ?? [earlier.text]), n.text].slice(0, MAX_GROUP_LINES);
      next = [{ text: `${count} ${earlier.group.summary}`, group: { ...earlier.group, count, lines } }, ...next.filter((m) => m !== earlier)];
    } else next = [n, ...next];
  }
  return next.slice(0, MAX_NOTES);
}

/** The Activity line of a file found already in the library: names the stored copy when it has another path. */
export function alreadyNote(path: string, matches: string | undefined, drop: number): ActivityNote {
  const text = matches && matches !== path ? `${path}: already in library as ${matches}` : `${path}: already in library`;
  return { text, path, endsWith: matches && matches !== path ? matches : undefined, group: { key: `already:${drop}`, summary: 'already in library', count: 1 } };
}
