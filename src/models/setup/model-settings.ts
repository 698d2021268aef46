/**
 * The settings the model setup keeps in the library database (shared by every tab), one record per key,
 * typed: `semantic` (the embedding model and reranker in use, the mirror, imported folders), `answer`
 * (which model writes answers) and `answer-imports` (GGUF files and ONNX folders imported as answer models). The store holds plain data of any shape (an older version's, a damaged
 * one); each record is checked as it is read, and one that is not of its key's shape reads as no setting.
 */
import { DocQaError } from '../../core/errors.ts';
import type { ModelId } from '../../core/ids.ts';
import type { SemanticSettings } from '../../core/library-api.ts';
import type { SettingsStore } from '../../store/settings-store.ts';
import type { EmbeddingModel, RerankerModel } from '../catalogue.ts';
import type { GgufGeneratorEntry, OnnxGeneratorEntry } from '../generator-catalogue.ts';

/** The `semantic` record: the page's view of it plus the models imported from folders. */
export interface StoredSemanticSettings extends SemanticSettings {
  imported?: EmbeddingModel[];
  importedRerankers?: RerankerModel[];
  /** The model used before a switch, whose vectors go once the new model has embedded every chunk. */
  replacing?: ModelId;
}

/**
 * Which model writes answers (settings key `answer`, shared by the tabs):
 * - none (the default): the extractive answer, which quotes the documents;
 * - `transformers`: a text-generation model in the generate worker (WASM, ONNX or GGUF; the fallback
 *   where WebLLM cannot run): a catalogue model, its files from `mirror` when set, else huggingface.co,
 *   or a GGUF file or ONNX folder imported from disk (`answer-imports`), from the model cache alone;
 * - `webllm`: a model of web-llm's prebuilt list (`model`: its `model_id`) on WebGPU, in the generate worker like the others;
 * - `scripted`: fixed replies, for the browser tests and for trying the answer pipeline without a model.
 */
export type AnswerSetting =
  | { generator?: undefined }
  | { generator: { kind: 'transformers'; model: ModelId; mirror?: string } }
  | { generator: { kind: 'webllm'; model: string } }
  | { generator: { kind: 'scripted'; replies: string[]; json?: string[]; filters?: string[]; delayMs?: number; contextTokens?: number; gullible?: boolean } };

/** The `answer-imports` record: GGUF files and ONNX folders the person imported as answer models (kept apart from `answer`, which a stop clears). */
export interface AnswerImports {
  imported?: Array<GgufGeneratorEntry | OnnxGeneratorEntry>;
}

/** Every key the model setup keeps, with its record. */
export interface ModelSettingRecords {
  semantic: StoredSemanticSettings;
  answer: AnswerSetting;
  'answer-imports': AnswerImports;
}

export type ModelSettingKey = keyof ModelSettingRecords;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const optional = (value: unknown, type: 'string' | 'number' | 'boolean') => value === undefined || typeof value === type;
const optionalArray = (value: unknown) => value === undefined || Array.isArray(value);

function isSemantic(value: Record<string, unknown>): boolean {
  return (['model', 'reranker', 'mirror', 'replacing'] as const).every((k) => optional(value[k], 'string')) && optionalArray(value.imported) && optionalArray(value.importedRerankers);
}

function isAnswer(value: Record<string, unknown>): boolean {
  const chosen = value.generator;
  if (chosen === undefined) return true;
  if (!isRecord(chosen)) return false;
  if (chosen.kind === 'transformers') return typeof chosen.model === 'string' && optional(chosen.mirror, 'string');
  if (chosen.kind === 'webllm') return typeof chosen.model === 'string';
  return chosen.kind === 'scripted' && Array.isArray(chosen.replies);
}

const isImports = (value: Record<string, unknown>) => optionalArray(value.imported) && ((value.imported as unknown[] | undefined) ?? []).every((m) => isRecord(m) && (m.format === 'gguf' || (m.format === 'onnx' && typeof m.dtype === 'string')) && typeof m.id === 'string' && typeof m.repo === 'string' && Array.isArray(m.files));

const CHECKS: { [K in ModelSettingKey]: (value: Record<string, unknown>) => boolean } = { semantic: isSemantic, answer: isAnswer, 'answer-imports': isImports };

/** The model setup's view of the settings store: each key's record, checked on the way in. */
export class ModelSettings {
  constructor(private readonly store: Pick<SettingsStore, 'get' | 'put'>) {}

  /** The record under `key`; `{}` (no setting) when there is none or it is not of the key's shape. */
  async get<K extends ModelSettingKey>(key: K): Promise<ModelSettingRecords[K]> {
    const value = await this.store.get(key);
    // The checks above narrow every field the setup reads; TypeScript cannot carry that to the key's type.
    return isRecord(value) && CHECKS[key](value) ? (value as ModelSettingRecords[K]) : {};
  }

  /**
   * Writes `key`'s record; `invalid-setting` (and nothing written) for a record {@link get} would not read
   * back, so a setting is never kept only to vanish on the next start.
   */
  async put<K extends ModelSettingKey>(key: K, record: ModelSettingRecords[K]): Promise<void> {
    if (!isRecord(record) || !CHECKS[key](record)) throw new DocQaError('invalid-setting', `the "${key}" setting was not saved: its record is not of the shape the app reads back`);
    await this.store.put(key, record);
  }
}
