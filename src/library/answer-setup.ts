import { DocQaError } from '../core/errors.ts';
import type { ModelId } from '../core/ids.ts';
import type { GeneratorLoadRequest, LoadedGenerator } from '../generate/generate-handler.ts';
import { remoteGenerator, type GeneratorPort } from '../generate/remote-generator.ts';
import { ScriptedGenerator } from '../generate/scripted-generator.ts';
import type { LoadProgress } from '../models/model-source.ts';
import { GENERATOR_CATALOGUE, type GeneratorModelEntry } from '../models/generator-catalogue.ts';
import type { SettingsStore } from '../store/settings-store.ts';
import type { Library } from './library.ts';

/**
 * Which model writes answers (settings key `answer`, shared by the tabs):
 * - none (the default): the extractive answer, which quotes the documents;
 * - `transformers`: a catalogue text-generation model in the generate worker (WASM; the fallback where
 *   WebLLM cannot run);
 * - `scripted`: fixed replies, for the browser tests and for trying the answer pipeline without a model.
 */
export type AnswerSetting =
  | { generator?: undefined }
  | { generator: { kind: 'transformers'; model: ModelId; mirror?: string } }
  | { generator: { kind: 'scripted'; replies: string[]; json?: string[]; delayMs?: number; contextTokens?: number } };

const SETTINGS_KEY = 'answer';

/** What answer setup needs of the generate worker (`generate/generate-worker-client.ts`). */
export interface GenerateHost extends GeneratorPort {
  load(request: GeneratorLoadRequest, onProgress?: (event: LoadProgress) => void): Promise<LoadedGenerator>;
  unload(): Promise<void>;
}

/**
 * The library worker's side of answer writing: reads the setting, builds the generator (loading a model
 * in the generate worker when one is chosen), and gives the library an answerer over it: context within
 * the model's window, a prompt that treats documents as quoted data, streaming, Stop, checked citations
 * (`generate/llm-answerer.ts`).
 */
export class AnswerSetup {
  constructor(
    private readonly library: Library,
    private readonly settings: SettingsStore,
    private readonly host: GenerateHost,
  ) {}

  async read(): Promise<AnswerSetting> {
    const value = await this.settings.get(SETTINGS_KEY);
    return value && typeof value === 'object' ? (value as AnswerSetting) : {};
  }

  /** Applies the setting (at start-up, and when another tab changed it). */
  async start(onProgress?: (event: LoadProgress) => void): Promise<void> {
    const { generator } = await this.read();
    if (!generator) {
      this.library.useGenerator(undefined);
      return;
    }
    if (generator.kind === 'scripted') {
      // The replies in turn, again from the first after the last; requests for JSON (rewriting, phrasings,
      // the multi-hop judgement) take theirs from `json` the same way.
      let next = 0;
      let nextJson = 0;
      const replies = generator.replies.length ? generator.replies : ['Not found in your documents.'];
      const json = generator.json?.length ? generator.json : ['{}'];
      const scripted = new ScriptedGenerator((_messages, request) => (request.json ? json[nextJson++ % json.length]! : replies[next++ % replies.length]!), {
        delayMs: generator.delayMs,
        // A small window makes a short document be read in parts (whole-document questions).
        model: { id: 'scripted', label: 'the scripted generator', ...(generator.contextTokens ? { contextTokens: generator.contextTokens } : {}) },
      });
      this.library.useGenerator(scripted);
      return;
    }
    const entry: GeneratorModelEntry | undefined = GENERATOR_CATALOGUE.find((m) => m.id === generator.model);
    if (!entry) throw new DocQaError('model-files-missing', `no answer-writing model "${generator.model}" in the catalogue`);
    const source = generator.mirror ? { kind: 'mirror' as const, baseUrl: generator.mirror } : { kind: 'hub' as const };
    const loaded = await this.host.load({ model: entry, source }, onProgress);
    const remote = remoteGenerator({ id: loaded.id, label: loaded.label, contextTokens: loaded.contextTokens }, this.host);
    this.library.useGenerator(remote);
  }

  async set(setting: AnswerSetting): Promise<void> {
    await this.settings.put(SETTINGS_KEY, setting);
    if (!setting.generator) await this.host.unload().catch(() => undefined);
    await this.start();
  }
}
