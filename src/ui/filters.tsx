import { memo } from 'preact/compat';
import { useMemo, useRef, useState } from 'preact/hooks';
import type { DocId } from '../core/ids.ts';
import { TYPE_LABELS } from '../core/query-filters.ts';
import type { DocType, SearchFilter } from '../core/types.ts';
import { withParents } from './library-view.ts';
import { documents } from './library-state.ts';

interface Choice {
  value: string;
  label: string;
}

/**
 * Past this many choices a select gets a set width (styles.css `select.many`). Reason: a select as wide as
 * its widest option measures every option each time one is added, about 10 ms per change at 1,500
 * documents, on every refresh while files are indexed; at a set width the browser measures none.
 */
const MANY_CHOICES = 50;

const sameChoices = (a: readonly Choice[], b: readonly Choice[]) => a.length === b.length && a.every((c, i) => c.value === b[i]!.value && c.label === b[i]!.label);

/**
 * One filter's `<select>`; memoised (by its choices' contents) so that a library refresh re-renders only a
 * select whose choices changed: the document select holds an option per document, thousands of them.
 * `onPick` is left out of the comparison: {@link Filters} passes one that reads the latest picks.
 */
const FilterSelect = memo(
  function FilterSelect({ label, all, choices, value, onPick }: { label: string; all: string; choices: Choice[]; value: string; onPick: (v: string) => void }) {
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
        </select>
      </label>
    );
  },
  (a, b) => a.label === b.label && a.all === b.all && a.value === b.value && sameChoices(a.choices, b.choices),
);

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
      doc: docs.map((d) => ({ value: d.docId ?? '', label: d.path })),
      folder: folders.map((f) => ({ value: f, label: f })),
      type: types.map((t) => ({ value: t, label: TYPE_LABELS[t] })),
      tag: tags.map((t) => ({ value: t, label: t })),
    };
  }, [docs]);
  const [picked, setPicked] = useState<Picked>({});
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
      <FilterSelect label="Only in document" all="All documents" value={picked.doc ?? ''} onPick={pick('doc')} choices={choices.doc} />
      {choices.folder.length > 0 && <FilterSelect label="Only in folder" all="All folders" value={picked.folder ?? ''} onPick={pick('folder')} choices={choices.folder} />}
      <FilterSelect label="Only of type" all="All types" value={picked.type ?? ''} onPick={pick('type')} choices={choices.type} />
      {choices.tag.length > 0 && <FilterSelect label="Only with tag" all="All tags" value={picked.tag ?? ''} onPick={pick('tag')} choices={choices.tag} />}
    </div>
  );
}
