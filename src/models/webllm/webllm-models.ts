/**
 * Which WebLLM models this device can run, chosen from web-llm's prebuilt model list
 * (`prebuiltAppConfig.model_list`, passed in: importing the value here would pull the whole engine into
 * the page's bundle). Pure: every function takes a {@link WebGpuDevice} description, which
 * {@link describeWebGpu} reads from the browser.
 *
 * What decides:
 * - **WebGPU**: none (or only a software fallback adapter, far too slow for a language model) → no model.
 * - **shader-f16**: without it only `q0f32`/`q4f32` variants run. A record's `required_features` is not
 *   enough: web-llm 0.2.86 lists it on 30 of 165 records, while every `f16` quantization needs it.
 * - **memory**: WebGPU does not say how much GPU memory there is. The budget is half of
 *   `navigator.deviceMemory` (a GPU sharing memory with the CPU, the common case on laptops and phones,
 *   cannot take all of it; Chromium reports at most 8, "8 or more"), or 4 GB when unknown (Firefox,
 *   Safari). A model whose `vram_required_MB` exceeds it is left out.
 * - **low resource**: a phone, or an adapter whose `maxStorageBufferBindingSize` is under 1 GiB (web-llm's
 *   own chat demo uses the same cut), runs only records marked `low_resource_required`; and a record's
 *   `buffer_size_required_bytes` must fit that limit.
 */
import type { ModelRecord } from '@mlc-ai/web-llm';

/** What the browser says about its WebGPU adapter and memory. */
export interface WebGpuDevice {
  /** `navigator.gpu` exists and returned an adapter. */
  webgpu: boolean;
  /** The adapter's features (`shader-f16`, ...). */
  features: readonly string[];
  /** The adapter's limits (bytes), when known. */
  limits?: { maxStorageBufferBindingSize?: number; maxBufferSize?: number };
  /** A software adapter (SwiftShader): correct, but a language model would take minutes a word. */
  isFallbackAdapter?: boolean;
  /** `navigator.deviceMemory` in GB (Chromium: 0.25–8, rounded, 8 meaning "8 or more"); absent when unknown. */
  deviceMemoryGB?: number;
  /** A phone or tablet (`navigator.userAgentData.mobile`). */
  mobile?: boolean;
}

/** GPU memory the app lets a model take, in MB, and what that figure is based on. */
export interface MemoryBudget {
  mb: number;
  basis: 'device-memory' | 'unknown';
}

/** A model the app offers, with what the person needs to know before downloading it. */
export interface WebLlmModel {
  /** web-llm's `model_id`, such as `Llama-3.2-1B-Instruct-q4f32_1-MLC`. */
  id: string;
  /** Shown to the person: "Llama 3.2 1B Instruct (4-bit)". */
  label: string;
  /** Context window in the model's tokens: the record's `context_window_size` override, else 4096. */
  contextTokens: number;
  /** GPU memory the model takes while running (web-llm's `vram_required_MB`). */
  vramMB: number;
  /**
   * About how much is downloaded (weights; tokenizer and model library add a few MB): web-llm's
   * config has no sizes, so parameters × bits per weight of the quantization (see {@link approximateDownloadBytes}).
   */
  downloadBytes: number;
  /** Languages the model is documented to handle (BCP 47). */
  languages: readonly string[];
  quantization: string;
  /** Runs without `shader-f16`. */
  f32: boolean;
  /** web-llm marks it as fit for limited devices (phones). */
  lowResource: boolean;
}

/** A model left out, and why, in words the person can read. */
export interface ExcludedModel {
  id: string;
  label: string;
  reason: string;
}

export interface ModelChoice {
  /** Smallest first. */
  runnable: WebLlmModel[];
  excluded: ExcludedModel[];
  budget: MemoryBudget;
}

/** A family of the short default list: one variant of each is offered. */
export interface ModelFamily {
  /** The `model_id` prefix before the quantization, such as `Llama-3.2-1B-Instruct`. */
  prefix: string;
  label: string;
  /** Parameters, for the approximate download size. */
  parameters: number;
  languages: readonly string[];
}

/** Llama 3.2's officially supported languages (model card). */
const LLAMA_LANGUAGES = ['en', 'de', 'fr', 'it', 'pt', 'hi', 'es', 'th'];
/** Qwen2.5: "over 29 languages" (model card); the ones it names. */
const QWEN_LANGUAGES = ['zh', 'en', 'fr', 'es', 'pt', 'de', 'it', 'ru', 'ja', 'ko', 'vi', 'th', 'ar'];
/** Phi-3.5-mini's multilingual evaluation languages (model card). */
const PHI_LANGUAGES = ['ar', 'zh', 'cs', 'da', 'nl', 'en', 'fi', 'fr', 'de', 'he', 'hu', 'it', 'ja', 'ko', 'no', 'pl', 'pt', 'ru', 'es', 'sv', 'th', 'tr', 'uk'];

/** The short list the app offers (smallest first): small instruct models that cite well enough for Q&A. */
export const DEFAULT_FAMILIES: readonly ModelFamily[] = [
  { prefix: 'Qwen2.5-0.5B-Instruct', label: 'Qwen2.5 0.5B Instruct', parameters: 0.49e9, languages: QWEN_LANGUAGES },
  { prefix: 'Llama-3.2-1B-Instruct', label: 'Llama 3.2 1B Instruct', parameters: 1.24e9, languages: LLAMA_LANGUAGES },
  { prefix: 'Qwen2.5-1.5B-Instruct', label: 'Qwen2.5 1.5B Instruct', parameters: 1.54e9, languages: QWEN_LANGUAGES },
  { prefix: 'Qwen2.5-3B-Instruct', label: 'Qwen2.5 3B Instruct', parameters: 3.09e9, languages: QWEN_LANGUAGES },
  { prefix: 'Llama-3.2-3B-Instruct', label: 'Llama 3.2 3B Instruct', parameters: 3.21e9, languages: LLAMA_LANGUAGES },
  { prefix: 'Phi-3.5-mini-instruct', label: 'Phi-3.5 mini Instruct', parameters: 3.82e9, languages: PHI_LANGUAGES },
];

const MB = 1024 * 1024;
/** Budget when the browser does not tell its memory (Firefox, Safari). */
export const UNKNOWN_BUDGET_MB = 4096;
/** Context window when a record has no usable `context_window_size` override (web-llm's usual build). */
export const DEFAULT_CONTEXT_TOKENS = 4096;
/** Under this `maxStorageBufferBindingSize` a device is treated as low-resource (as web-llm's chat demo does). */
export const LOW_RESOURCE_BINDING_BYTES = 2 ** 30;

/** The memory budget for models on this device. */
export function memoryBudget(device: WebGpuDevice): MemoryBudget {
  const gb = device.deviceMemoryGB;
  if (gb === undefined || !Number.isFinite(gb) || gb <= 0) return { mb: UNKNOWN_BUDGET_MB, basis: 'unknown' };
  return { mb: Math.round(gb * 1024 * 0.5), basis: 'device-memory' };
}

/** A phone, or an adapter with small storage buffers: only web-llm's low-resource models. */
export function isLowResource(device: WebGpuDevice): boolean {
  const binding = device.limits?.maxStorageBufferBindingSize;
  return device.mobile === true || (binding !== undefined && binding < LOW_RESOURCE_BINDING_BYTES);
}

/** The quantization in a model id (`q4f16_1`, `q0f32`), or undefined. */
export function quantizationOf(modelId: string): { name: string; bits: number; float: 16 | 32 } | undefined {
  const m = /-(q(\d)f(16|32)(?:_\d+)?)(?=-|$)/.exec(modelId);
  if (!m) return undefined;
  return { name: m[1]!, bits: Number(m[2]), float: m[3] === '16' ? 16 : 32 };
}

/** The record needs `shader-f16`: listed in its features, or an f16 quantization. */
export function needsShaderF16(record: Pick<ModelRecord, 'model_id' | 'required_features'>): boolean {
  return (record.required_features ?? []).includes('shader-f16') || quantizationOf(record.model_id)?.float === 16;
}

/**
 * About how many bytes a model's weights download: parameters × bits per weight. Group quantization
 * (`q4f16_1`, `q4f32_1`: groups of 32 weights with one scale) adds 16/32 or 32/32 bit per weight;
 * `q0` is unquantized (16 or 32 bits).
 */
export function approximateDownloadBytes(parameters: number, quantization: string): number {
  const q = quantizationOf(`-${quantization}`);
  if (!q) return 0;
  const bits = q.bits === 0 ? q.float : q.bits + q.float / 32;
  return Math.round((parameters * bits) / 8);
}

/** The record's context window: its `context_window_size` override when positive, else the default. */
export function contextTokensOf(record: Pick<ModelRecord, 'overrides'>): number {
  const size = record.overrides?.context_window_size;
  return size !== undefined && size > 0 ? size : DEFAULT_CONTEXT_TOKENS;
}

/**
 * Why this device cannot run `record`, or undefined when it can. `budget` defaults to
 * {@link memoryBudget} of the device.
 */
export function whyNotRunnable(record: ModelRecord, device: WebGpuDevice, budget = memoryBudget(device)): string | undefined {
  if (!device.webgpu) return 'this browser has no WebGPU';
  if (device.isFallbackAdapter) return 'WebGPU here is a software fallback, far too slow for a language model';
  if (record.model_type !== undefined && record.model_type !== 0) return 'not a chat model';
  const features = new Set(device.features);
  for (const feature of record.required_features ?? []) {
    if (!features.has(feature)) return `needs the WebGPU feature ${feature}, which this device lacks`;
  }
  if (needsShaderF16(record) && !features.has('shader-f16')) return 'needs the WebGPU feature shader-f16, which this device lacks: choose a q4f32 variant';
  const binding = device.limits?.maxStorageBufferBindingSize;
  if (record.buffer_size_required_bytes !== undefined && binding !== undefined && record.buffer_size_required_bytes > binding) {
    return `needs GPU buffers of ${Math.round(record.buffer_size_required_bytes / MB)} MB; this device allows ${Math.round(binding / MB)} MB`;
  }
  if (isLowResource(device) && record.low_resource_required !== true) return 'too demanding for this device (a phone or a GPU with small buffers)';
  const vram = record.vram_required_MB;
  if (vram !== undefined && vram > budget.mb) {
    const basis = budget.basis === 'unknown' ? 'the default budget' : 'the budget for this device';
    return `needs about ${formatMB(vram)} of GPU memory; ${basis} is ${formatMB(budget.mb)}`;
  }
  return undefined;
}

/** Every chat record of `list` this device can run, smallest memory first. */
export function runnableRecords(list: readonly ModelRecord[], device: WebGpuDevice): ModelRecord[] {
  const budget = memoryBudget(device);
  return list
    .filter((r) => whyNotRunnable(r, device, budget) === undefined)
    .sort((a, b) => (a.vram_required_MB ?? Infinity) - (b.vram_required_MB ?? Infinity));
}

/**
 * The short list for this device: for each of `families`, the best variant it can run (4-bit; f16 when
 * the device has `shader-f16`, being smaller and faster; the full context window before a `-1k` one),
 * or the family in `excluded` with the reason its least demanding variant cannot run.
 */
export function chooseModels(list: readonly ModelRecord[], device: WebGpuDevice, families: readonly ModelFamily[] = DEFAULT_FAMILIES): ModelChoice {
  const budget = memoryBudget(device);
  const runnable: WebLlmModel[] = [];
  const excluded: ExcludedModel[] = [];
  const f16 = device.features.includes('shader-f16');
  for (const family of families) {
    const variants = list
      .filter((r) => r.model_id.startsWith(`${family.prefix}-`) && quantizationOf(r.model_id)?.bits === 4)
      .sort((a, b) => preference(a, f16) - preference(b, f16));
    if (variants.length === 0) {
      excluded.push({ id: family.prefix, label: family.label, reason: 'not in this version of WebLLM' });
      continue;
    }
    const chosen = variants.find((r) => whyNotRunnable(r, device, budget) === undefined);
    if (chosen) {
      runnable.push(describeModel(chosen, family));
      continue;
    }
    // Explain with the least demanding variant the device's features allow (else any).
    const featureOk = variants.filter((r) => !needsShaderF16(r) || f16);
    const closest = [...(featureOk.length > 0 ? featureOk : variants)].sort((a, b) => (a.vram_required_MB ?? 0) - (b.vram_required_MB ?? 0))[0]!;
    excluded.push({ id: closest.model_id, label: family.label, reason: whyNotRunnable(closest, device, budget)! });
  }
  runnable.sort((a, b) => a.vramMB - b.vramMB);
  return { runnable, excluded, budget };
}

/** Lower is preferred: f16 first when the device has it, f32 otherwise; full context before `-1k`. */
function preference(record: ModelRecord, f16: boolean): number {
  const q = quantizationOf(record.model_id)!;
  const floatRank = (q.float === 16) === f16 ? 0 : 1;
  const shortContext = /-\d+k$/.test(record.model_id) ? 1 : 0;
  return floatRank * 2 + shortContext;
}

/** The offered model for a record of a family. */
export function describeModel(record: ModelRecord, family: ModelFamily): WebLlmModel {
  const q = quantizationOf(record.model_id);
  const contextTokens = contextTokensOf(record);
  const context = contextTokens < DEFAULT_CONTEXT_TOKENS ? `, ${Math.round(contextTokens / 1024)}k context` : '';
  return {
    id: record.model_id,
    label: `${family.label} (${q ? `${q.bits === 0 ? 'unquantized' : `${q.bits}-bit`}${q.float === 32 ? ', f32' : ''}` : record.model_id}${context})`,
    contextTokens,
    vramMB: record.vram_required_MB ?? 0,
    downloadBytes: q ? approximateDownloadBytes(family.parameters, q.name) : 0,
    languages: family.languages,
    quantization: q?.name ?? 'unknown',
    f32: q?.float === 32 && !(record.required_features ?? []).includes('shader-f16'),
    lowResource: record.low_resource_required === true,
  };
}

function formatMB(mb: number): string {
  return mb >= 1024 ? `${(mb / 1024).toFixed(1)} GB` : `${Math.round(mb)} MB`;
}

/** What {@link describeWebGpu} reads: `navigator` in a page or worker (typed loosely: WebGPU types are not in TypeScript's DOM library). */
export interface NavigatorLike {
  gpu?: { requestAdapter(options?: { powerPreference?: 'high-performance' | 'low-power' }): Promise<AdapterLike | null> };
  deviceMemory?: number;
  userAgentData?: { mobile?: boolean };
}

interface AdapterLike {
  features: Iterable<string>;
  limits: { maxStorageBufferBindingSize?: number; maxBufferSize?: number };
  isFallbackAdapter?: boolean;
  info?: { isFallbackAdapter?: boolean };
}

/** Reads the device description from `navigator`: the adapter's features and limits, memory, phone or not. */
export async function describeWebGpu(nav: NavigatorLike): Promise<WebGpuDevice> {
  const common = {
    ...(nav.deviceMemory !== undefined ? { deviceMemoryGB: nav.deviceMemory } : {}),
    ...(nav.userAgentData?.mobile !== undefined ? { mobile: nav.userAgentData.mobile } : {}),
  };
  const adapter = await nav.gpu?.requestAdapter({ powerPreference: 'high-performance' }).catch(() => null);
  if (!adapter) return { webgpu: false, features: [], ...common };
  return {
    webgpu: true,
    features: [...adapter.features],
    limits: { maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize, maxBufferSize: adapter.limits.maxBufferSize },
    isFallbackAdapter: adapter.info?.isFallbackAdapter ?? adapter.isFallbackAdapter ?? false,
    ...common,
  };
}
