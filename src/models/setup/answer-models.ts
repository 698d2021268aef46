/**
 * The answer-model chooser's list: the WASM models of the generator catalogue and the GGUF files
 * imported from disk, which run on this device's processor, and the WebLLM models `chooseModels` says this device's GPU can run, each with
 * its download size and the space its files take in this browser.
 */
import type { AnswerModelEntry, AnswerModelsView } from '../../core/library-api.ts';
import { chooseModels, DEFAULT_FAMILIES, describeModel, type WebGpuDevice, type WebLlmModel } from '../webllm/webllm-models.ts';
import { OFFERED_RECORDS } from '../webllm/webllm-offered.ts';
import type { WebLlmFacts } from '../webllm/webllm-caches.ts';
import { GENERATOR_CATALOGUE, type GeneratorModelEntry } from '../generator-catalogue.ts';

export type { WebLlmFacts } from '../webllm/webllm-caches.ts';

/** The label the chooser shows for a WebLLM model id (the id itself when it is not offered). */
export function webLlmLabel(id: string): string {
  const record = OFFERED_RECORDS.find((r) => r.model_id === id);
  const family = DEFAULT_FAMILIES.find((f) => id.startsWith(`${f.prefix}-`));
  return record && family ? describeModel(record, family).label : id;
}

/** One line for a device whose GPU cannot run WebLLM models, and nothing when it can. */
export function webGpuNote(device: WebGpuDevice): string | undefined {
  if (!device.webgpu) return 'This browser cannot use the graphics card: the models below write answers on the processor, more slowly.';
  if (device.isFallbackAdapter) return "This browser's graphics support is a software stand-in, far too slow for a language model: the models below write answers on the processor, more slowly.";
  return undefined;
}

/** The model files transformers.js keeps (the shared Cache API store, `models/model-cache.ts`). */
export interface ModelFiles {
  list(): Promise<Array<{ repo: string; bytes: number }>>;
  delete(repo: string): Promise<unknown>;
}

/**
 * The entries the chooser lists (WASM first, then WebLLM smallest first), WebGPU's availability, and the
 * WebLLM models offered (`offered`: what `useAnswerModel` accepts).
 */
export async function describeAnswerModels(parts: { files: ModelFiles; webllm: WebLlmFacts; inUse: string | undefined; imported: readonly GeneratorModelEntry[] }): Promise<{ entries: AnswerModelEntry[]; webgpu: AnswerModelsView['webgpu']; offered: WebLlmModel[] }> {
  const [cached, device] = await Promise.all([parts.files.list().catch(() => []), parts.webllm.device().catch((): WebGpuDevice => ({ webgpu: false, features: [] }))]);
  const wasm: AnswerModelEntry[] = [...GENERATOR_CATALOGUE, ...parts.imported].map((m) => ({
    id: m.id,
    kind: 'wasm',
    label: m.label,
    languages: m.languages,
    downloadBytes: m.files.reduce((sum, f) => sum + f.bytes, 0),
    cachedBytes: cached.filter((c) => c.repo === m.repo).reduce((sum, c) => sum + c.bytes, 0),
    ...(m.goodFor ? { goodFor: m.goodFor } : {}),
    inUse: parts.inUse === m.id,
  }));
  const note = webGpuNote(device);
  const offered = note ? [] : chooseModels(OFFERED_RECORDS, device).runnable;
  const webllm = await Promise.all(
    offered.map(
      async (m): Promise<AnswerModelEntry> => ({
        id: m.id,
        kind: 'webllm',
        label: m.label,
        languages: m.languages,
        downloadBytes: m.downloadBytes,
        cachedBytes: await parts.webllm.cachedBytes(m).catch(() => 0),
        vramMB: m.vramMB,
        inUse: parts.inUse === m.id,
      }),
    ),
  );
  return { entries: [...wasm, ...webllm], webgpu: note ? { available: false, note } : { available: true }, offered };
}
