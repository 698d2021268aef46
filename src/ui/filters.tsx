import { memo } from 'preact/compat';
import { useMemo, useRef, useState } from 'preact/hooks';
import type { DocId } from '../core/ids.ts';
import { TYPE_LABELS } from '../core/query-filters.ts';
import type { DocType, SearchFilter } from '../core/types.ts';
import { narrowChoices, type Choice } from './filter-choices.ts';
import { withParents } from './library-view.ts';
import { documents } from './library-state.ts';

/**
 * Past this many choices a select gets a set width (styles.css `select.many`). Reason: a select as wide as
 * its widest option measures every option each time one is added, about 10 ms per change at 1,500
 * documents, on every refresh while files are indexed; at a set width the browser measures none.
 */
const MANY_CHOICES = 50;

const sameChoices = (a: readonly Choice[], b: readonly Choice[]) => a.length === b.length && a.every((c, i) => c.value === b[i]!.value && c.label === b[i]!.label);

/**
 * One filter's `<select>`; memoised (by its choices' contents) so that a library refresh re-renders only a
 * select whose choices changed. `note`, when given, is a last option that cannot be chosen (what the
 * narrowed list leaves out). `onPick` is left out of the comparison: {@link Filters} passes one that reads
 * the latest picks.
 */
const FilterSelect = memo(
  function FilterSelect({ label, all, choices, value, note, onPick }: { label: string; all: string; choices: Choice[]; value: string; note?: string; onPick: (v: string) => void }) {
    return (
      <label>
        {label}
        <select class={choices.length > MANY_CHOICES ? 'many' : undefined} value={value} onChange={(e) => onPick(e.currentTarget.value)}>
          <option value="">{all}</option>
          {choices.map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
          {note && <option disabled>{note}</option>}
        </select>
      </label>
    );
  },
  (a, b) => a.label === b.label && a.all === b.all && a.value === b.value && a.note === b.note && sameChoices(a.choices, b.choices),
);

/**
 * The document select's options past {@link MANY_CHOICES} documents: those whose path or title holds what
 * is typed in "Find a document" (`narrowChoices`), with a last line saying what is left out.
 */
function documentChoices(choices: readonly Choice[], find: string, picked: string): { shown: Choice[]; note?: string } {
  if (choices.length <= MANY_CHOICES) return { shown: [...choices] };
  const { shown, more, matching } = narrowChoices(choices, find, picked);
  const typed = find.trim();
  if (typed && matching === 0) return { shown, note: `No document's name holds “${typed}”` };
  if (more > 0) return { shown, note: `${more.toLocaleString('en')} more: type part of a name in “Find a document”` };
  return { shown };
}

type Picked = { doc?: string; folder?: string; type?: string; tag?: string };


/** Restricts the next questions to one document, folder, file type or tag (combined with AND). */
export function Filters({ onChange }: { onChange: (f: SearchFilter) => void }) {
  const docs = documents.value;
  const choices = useMemo(() => {
    const folderOf = (d: (typeof docs)[number]) => d.path.slice(0, Math.max(0, d.path.length - d.name.length - 1));
    // Every folder and the folders above it: "contracts" covers "contracts/2024" and "contracts/2025".
    const folders = [...new Set(docs.map(folderOf).filter(Boolean).flatMap(withParents))].sort();
    const types = [...new Set(docs.map((d) => d.type).filter((t): t is DocType => !!t))].sort();
    const tags = [...new Set(docs.flatMap((d) => d.tags ?? []))].sort();
    return {
      doc: docs.map((d) => ({ value: d.docId ?? '', label: d.path, title: d.title })),
      folder: folders.map((f) => ({ value: f, label: f })),
      type: types.map((t) => ({ value: t, label: TYPE_LABELS[t] })),
      tag: tags.map((t) => ({ value: t, label: t })),
    };
  }, [docs]);
  const [picked, setPicked] = useState<Picked>({});
  const [find, setFind] = useState('');
  const docChoices = useMemo(() => documentChoices(choices.doc, find, picked.doc ?? ''), [choices.doc, find, picked.doc]);
  // The selects keep the `onPick` of an earlier render (see FilterSelect): it reads the picks and `onChange` from here.
  const latest = useRef({ picked, onChange });
  latest.current = { picked, onChange };
  const pick = (key: keyof Picked) => (value: string) => {
    const next = { ...latest.current.picked, [key]: value || undefined };
    latest.current = { ...latest.current, picked: next };
    setPicked(next);
    latest.current.onChange({
      docIds: next.doc ? [next.doc as DocId] : undefined,
      folders: next.folder ? [next.folder] : undefined,
      types: next.type ? [next.type as DocType] : undefined,
      tags: next.tag ? [next.tag] : undefined,
    });
  };
  // No filter before there is a document, and none that offers nothing to choose (no tags yet).
  if (!docs.length) return null;
  return (
    <div class="filters">
      {choices.doc.length > MANY_CHOICES && (
        <label>
          Find a document
          <input type="search" value={find} placeholder="Name or title" onInput={(e) => setFind(e.currentTarget.value)} />
        </label>
      )}
      <FilterSelect label="Only in document" all="All documents" value={picked.doc ?? ''} note={docChoices.note} onPick={pick('doc')} choices={docChoices.shown} />
      {choices.folder.length > 0 && <FilterSelect label="Only in folder" all="All folders" value={picked.folder ?? ''} onPick={pick('folder')} choices={choices.folder} />}
      <FilterSelect label="Only of type" all="All types" value={picked.type ?? ''} onPick={pick('type')} choices={choices.type} />
      {choices.tag.length > 0 && <FilterSelect label="Only with tag" all="All tags" value={picked.tag ?? ''} onPick={pick('tag')} choices={choices.tag} />}
    </div>
  );
}
