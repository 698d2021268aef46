/**
 * The generated tiny models in a temporary folder, for tests that load them through transformers.js,
 * with every network call refused and recorded (`fetched`), so a test can assert that none happened.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { env } from '@huggingface/transformers';
import { generateTinyModel, writeTinyModels, type TinyModelName } from '../../tools/models/tiny-models.ts';

export interface TinyModelDir {
  dir: string;
  /** URLs transformers.js tried to fetch (each answered 404). */
  fetched: string[];
  /**
   * Writes a copy of `change.base` (default tiny-encoder) named `folder`, without `omit` files and with
   * `config` (`config.json`) or `tokenizerConfig` (`tokenizer_config.json`) fields changed (a field set
   * to undefined is removed).
   */
  variant(
    folder: string,
    change: { base?: TinyModelName; omit?: string[]; config?: Record<string, unknown>; tokenizerConfig?: Record<string, unknown> },
  ): Promise<void>;
  remove(): Promise<void>;
}

export async function createTinyModelDir(): Promise<TinyModelDir> {
  const dir = await mkdtemp(join(tmpdir(), 'tiny-models-'));
  await writeTinyModels(dir);
  const fetched: string[] = [];
  env.useFSCache = false;
  env.useBrowserCache = false;
  env.fetch = async (input: string | URL) => {
    fetched.push(String(input));
    return new Response('no network in unit tests', { status: 404, statusText: 'Not Found' });
  };
  return {
    dir,
    fetched,
    async variant(folder, change) {
      for (const [path, bytes] of generateTinyModel(change.base ?? 'tiny-encoder')) {
        if (change.omit?.includes(path)) continue;
        let out = bytes;
        const edit = path === 'config.json' ? change.config : path === 'tokenizer_config.json' ? change.tokenizerConfig : undefined;
        if (edit) {
          const config = { ...JSON.parse(new TextDecoder().decode(bytes)), ...edit };
          out = new TextEncoder().encode(JSON.stringify(config));
        }
        const file = join(dir, folder, path);
        await mkdir(dirname(file), { recursive: true });
        await writeFile(file, out);
      }
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
