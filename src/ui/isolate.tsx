/**
 * Bidi isolation for text that comes from files (names, paths, titles, passages). Such text may be
 * right-to-left or hold bidirectional control characters (U+202E RIGHT-TO-LEFT OVERRIDE, say); shown
 * inline next to our own words it could reorder them ("lines 1–2" reading "2–1 lines"). A `<bdi>` element
 * keeps it to itself and takes its direction from its own first strong character.
 */

/**
 * Shows `text` with a leading file name or path isolated, for messages built as "name: what happened".
 * The first of `names` that `text` starts with is isolated; text that starts with none is shown as is.
 *
 * @example <PrefixIsolated text="שלום.md: already in library" names={['docs/שלום.md', 'שלום.md']} />
 */
export function PrefixIsolated({ text, names }: { text: string; names: Array<string | undefined> }) {
  const name = names.find((n) => n && text.startsWith(n));
  if (!name) return <>{text}</>;
  return (
    <>
      <bdi>{name}</bdi>
      {text.slice(name.length)}
    </>
  );
}

/** The last segment of a path ("docs/a.pdf" → "a.pdf"): error messages name files by it. */
export function fileNameOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}
