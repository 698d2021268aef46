import { formatBytes } from './format.ts';

/** A model's download as the library worker reports it: bytes so far and in all, and each file's. */
export interface DownloadFigures {
  loaded: number;
  total: number;
  files: Array<{ file: string; loaded: number; total: number }>;
}

const pct = (loaded: number, total: number) => (total ? Math.min(100, Math.floor((loaded / total) * 100)) : 0);

/**
 * Per-file and total progress while a model downloads (the semantic-search and answer-model managers).
 * `name` names the region and the total's bar ("Download progress" / "Model download, total").
 */
export function DownloadProgress({ model, download: d, name, totalName }: { model: string | undefined; download: DownloadFigures; name: string; totalName: string }) {
  return (
    <div class="download" aria-label={name}>
      <p>
        <label>
          {model}: {formatBytes(d.loaded)} of {d.total ? formatBytes(d.total) : '…'} <progress max={100} value={pct(d.loaded, d.total)} aria-label={totalName} />
        </label>
      </p>
      <ul class="download-files">
        {d.files.map((f) => (
          <li key={f.file}>
            <bdi>{f.file}</bdi> <progress max={100} value={pct(f.loaded, f.total)} aria-label={`Download of ${f.file}`} /> {pct(f.loaded, f.total)} %
          </li>
        ))}
      </ul>
    </div>
  );
}
