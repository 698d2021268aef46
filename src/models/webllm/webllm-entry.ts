/**
 * A WebLLM model as the model host's entry (`format: 'mlc'`), made where the model is chosen (the
 * library worker) without importing the runtime that loads it (`webllm-runtime.ts`, generate worker).
 */
import { asModelId } from '../../core/ids.ts';
import type { WebLlmGeneratorEntry } from '../generator-catalogue.ts';
import type { WebLlmModel } from './webllm-models.ts';

/** The `repo` of every WebLLM entry starts so: what the host's `deleteCached` hands to web-llm. */
export const WEBLLM_REPO_PREFIX = 'web-llm:';

/** The repo standing for WebLLM model `modelId`'s files (in web-llm's caches, not the app's model cache). */
export const webLlmRepo = (modelId: string) => `${WEBLLM_REPO_PREFIX}${modelId}`;

/** A WebLLM model this device can run (`chooseModels`) as the model host's entry. */
export function webLlmEntry(model: WebLlmModel): WebLlmGeneratorEntry {
  return {
    id: asModelId(model.id),
    format: 'mlc',
    label: model.label,
    repo: webLlmRepo(model.id),
    revision: 'main',
    files: [],
    contextTokens: model.contextTokens,
    languages: [...model.languages],
    downloadBytes: model.downloadBytes,
  };
}
