import { useState } from 'preact/hooks';
import type { DocId } from '../core/ids.ts';
import type { DocType, SearchFilter } from '../core/types.ts';
import { withParents } from './library-view.ts';
import { items } from './state.ts';

interface Choice {
  value: string;
  label: string;
}

function FilterSelect({ label, all, choices, value, onPick }: { label: string; all: string; choices: Choice[]; value: string; onPick: (v: string) => void }) {
  return (
    <label>
      {label}
      <select value={value} onChange={(e) => onPick(e.currentTarget.value)}>
        <option value="">{all}</option>
        {choices.map((c) => (
          <option key={c.value} value={c.value}>
            {c.label}
          </option>
        ))}
      </select>
    </label>
  );
}

type Picked = { doc?: string; folder?: string; type?: string; tag?: string };

const TYPE_LABELS: Record<DocType, string> = { pdf: 'PDF', docx: 'Word', html: 'HTML', markdown: 'Markdown', text: 'Text' };

/** Restricts the next questions to one document, folder, file type or tag (combined with AND). */
export function Filters({ onChange }: { onChange: (f: SearchFilter) => void }) {
  const docs = items.value.filter((i) => i.kind === 'document');
  const folderOf = (d: (typeof docs)[number]) => d.path.slice(0, Math.max(0, d.path.length - d.name.length - 1));
  // Every folder and the folders above it: "contracts" covers "contracts/2024" and "contracts/2025".
  const folders = [...new Set(docs.map(folderOf).filter(Boolean).flatMap(withParents))].sort();
  const types = [...new Set(docs.map((d) => d.type).filter((t): t is DocType => !!t))].sort();
  const tags = [...new Set(docs.flatMap((d) => d.tags ?? []))].sort();
  const [picked, setPicked] = useState<Picked>({});
  const pick = (key: keyof Picked) => (value: string) => {
    const next = { ...picked, [key]: value || undefined };
    setPicked(next);
    onChange({
      docIds: next.doc ? [next.doc as DocId] : undefined,
      folders: next.folder ? [next.folder] : undefined,
      types: next.type ? [next.type as DocType] : undefined,
      tags: next.tag ? [next.tag] : undefined,
    });
  };
  return (
    <div class="filters">
      <FilterSelect label="Only in document" all="All documents" value={picked.doc ?? ''} onPick={pick('doc')} choices={docs.map((d) => ({ value: d.docId ?? '', label: d.path }))} />
      <FilterSelect label="Only in folder" all="All folders" value={picked.folder ?? ''} onPick={pick('folder')} choices={folders.map((f) => ({ value: f, label: f }))} />
      <FilterSelect label="Only of type" all="All types" value={picked.type ?? ''} onPick={pick('type')} choices={types.map((t) => ({ value: t, label: TYPE_LABELS[t] }))} />
      <FilterSelect label="Only with tag" all="All tags" value={picked.tag ?? ''} onPick={pick('tag')} choices={tags.map((t) => ({ value: t, label: t }))} />
    </div>
  );
}
