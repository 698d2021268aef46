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
  /** An "Adding N files" line: N, the files it stands for; replaced by what became of them once the queue is empty. */
  adding?: number;
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

/** What became of the files of a run: from the first file added while the queue was empty until it is empty again. */
export interface RunTally {
  indexed: number;
  updated: number;
  already: number;
  failed: number;
  /** Stored documents read again by a newer reader (optional: absent counts none). */
  readAgain?: number;
  /** A folder's pictures in which no text was found, left out (optional: absent counts none). */
  noText?: number;
}

export const emptyTally = (): RunTally => ({ indexed: 0, updated: 0, already: 0, failed: 0, readAgain: 0, noText: 0 });

/** Marks the "Adding N files" line of a drop, so the end of its run can replace it. */
export function addingNote(count: number): ActivityNote {
  return { text: `Adding ${count} file${count === 1 ? '' : 's'}`, adding: count };
}

/** "Done: 22 indexed, 1 updated, 1 already in library, 3 pictures without text left out, 1 failed"; parts with no file are left out. */
export function runSummary(t: RunTally): string {
  const parts = [
    t.indexed && `${t.indexed} indexed`,
    t.updated && `${t.updated} updated`,
    t.already && `${t.already} already in library`,
    t.readAgain && `${t.readAgain} read again`,
    t.noText && `${t.noText} picture${t.noText === 1 ? '' : 's'} without text left out`,
    t.failed && `${t.failed} failed`,
  ].filter(Boolean);
  return parts.length ? `Done: ${parts.join(', ')}` : 'Done: nothing added';
}

/**
 * The queue is empty: the "Adding N files" lines of the run give way to one line saying what became of
 * the files (they would otherwise say "Adding" for ever), where the newest of them stood. Failures keep
 * their own lines. Only the lines whose files the run counts go, oldest first (always the oldest, so a
 * drop some of whose files never reached the queue is closed too): a drop made just as a run ends may be
 * listed before the page hears that end, and its own run says what became of its files.
 */
export function finishRun(notes: readonly ActivityNote[], tally: RunTally): ActivityNote[] {
  const finished = tally.indexed + tally.updated + tally.already + tally.failed + (tally.readAgain ?? 0) + (tally.noText ?? 0);
  const ended = new Set<ActivityNote>();
  let counted = 0;
  // The list is newest first.
  for (const n of [...notes].reverse()) {
    if (n.adding === undefined) continue;
    counted += n.adding;
    if (ended.size > 0 && counted > finished) break;
    ended.add(n);
  }
  if (ended.size === 0) return [...notes];
  const out: ActivityNote[] = [];
  let summarised = false;
  for (const n of notes) {
    if (!ended.has(n)) out.push(n);
    else if (!summarised) {
      out.push({ text: runSummary(tally) });
      summarised = true;
    }
  }
  return out;
}
