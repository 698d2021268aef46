/** Where the Node tools, benches and tests find real data and weights, outside the repository. */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Real model folders (`npm run models:real`): `DOCQA_MODELS`, else ~/.cache/docqa-models. */
export function realModelsDir(): string {
  return process.env.DOCQA_MODELS || join(homedir(), '.cache', 'docqa-models');
}

/** SciFact in BEIR layout: `SCIFACT_DIR`, else `../shared/data/scifact` next to the repository, else /work/shared. */
export function scifactDir(): string {
  const candidates = [process.env.SCIFACT_DIR, join(REPO_ROOT, '../shared/data/scifact'), '/work/shared/data/scifact'];
  const found = candidates.find((d): d is string => !!d && existsSync(join(d, 'corpus.jsonl')));
  if (!found) throw new Error(`SciFact not found (looked in ${candidates.filter(Boolean).join(', ')}); set SCIFACT_DIR`);
  return found;
}
