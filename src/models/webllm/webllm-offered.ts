/**
 * The records of web-llm's prebuilt model list that the app can offer (the 4-bit variants of
 * {@link DEFAULT_FAMILIES}), copied from `@mlc-ai/web-llm` 0.2.86's `prebuiltAppConfig.model_list`.
 * A copy, so that listing the models this device can run (`chooseModels`) does not load web-llm
 * itself (6.8 MB): only a person who chooses a WebLLM model downloads it. `tests/unit/webllm-offered.test.ts`
 * checks the copy against the installed web-llm, so an upgrade that changes a record fails there.
 */
import type { ModelRecord } from '@mlc-ai/web-llm';
import { DEFAULT_FAMILIES, quantizationOf } from './webllm-models.ts';

/** The records of `list` the app offers: 4-bit variants of the default families. */
export function offeredRecords(list: readonly ModelRecord[]): ModelRecord[] {
  return list.filter((r) => DEFAULT_FAMILIES.some((f) => r.model_id.startsWith(`${f.prefix}-`)) && quantizationOf(r.model_id)?.bits === 4);
}

/** {@link offeredRecords} of web-llm 0.2.86's prebuilt list. */
export const OFFERED_RECORDS: readonly ModelRecord[] = 
[
  {
    "model": "https://huggingface.co/mlc-ai/Llama-3.2-1B-Instruct-q4f32_1-MLC",
    "model_id": "Llama-3.2-1B-Instruct-q4f32_1-MLC",
    "model_lib": "https://raw.githubusercontent.com/mlc-ai/binary-mlc-llm-libs/main/web-llm-models/v0_2_86/base/Llama-3.2-1B-Instruct-q4f32_1_cs1k-webgpu.wasm",
    "vram_required_MB": 1128.82,
    "low_resource_required": true,
    "overrides": {
      "context_window_size": 4096
    }
  },
  {
    "model": "https://huggingface.co/mlc-ai/Llama-3.2-1B-Instruct-q4f16_1-MLC",
    "model_id": "Llama-3.2-1B-Instruct-q4f16_1-MLC",
    "model_lib": "https://raw.githubusercontent.com/mlc-ai/binary-mlc-llm-libs/main/web-llm-models/v0_2_86/base/Llama-3.2-1B-Instruct-q4f16_1_cs1k-webgpu.wasm",
    "vram_required_MB": 879.04,
    "low_resource_required": true,
    "overrides": {
      "context_window_size": 4096
    }
  },
  {
    "model": "https://huggingface.co/mlc-ai/Llama-3.2-3B-Instruct-q4f32_1-MLC",
    "model_id": "Llama-3.2-3B-Instruct-q4f32_1-MLC",
    "model_lib": "https://raw.githubusercontent.com/mlc-ai/binary-mlc-llm-libs/main/web-llm-models/v0_2_86/base/Llama-3.2-3B-Instruct-q4f32_1_cs1k-webgpu.wasm",
    "vram_required_MB": 2951.51,
    "low_resource_required": true,
    "overrides": {
      "context_window_size": 4096
    }
  },
  {
    "model": "https://huggingface.co/mlc-ai/Llama-3.2-3B-Instruct-q4f16_1-MLC",
    "model_id": "Llama-3.2-3B-Instruct-q4f16_1-MLC",
    "model_lib": "https://raw.githubusercontent.com/mlc-ai/binary-mlc-llm-libs/main/web-llm-models/v0_2_86/base/Llama-3.2-3B-Instruct-q4f16_1_cs1k-webgpu.wasm",
    "vram_required_MB": 2263.69,
    "low_resource_required": true,
    "overrides": {
      "context_window_size": 4096
    }
  },
  {
    "model": "https://huggingface.co/mlc-ai/Phi-3.5-mini-instruct-q4f16_1-MLC",
    "model_id": "Phi-3.5-mini-instruct-q4f16_1-MLC",
    "model_lib": "https://raw.githubusercontent.com/mlc-ai/binary-mlc-llm-libs/main/web-llm-models/v0_2_86/base/Phi-3.5-mini-instruct-q4f16_1_cs1k-webgpu.wasm",
    "vram_required_MB": 3672.07,
    "low_resource_required": false,
    "overrides": {
      "context_window_size": 4096
    }
  },
  {
    "model": "https://huggingface.co/mlc-ai/Phi-3.5-mini-instruct-q4f32_1-MLC",
    "model_id": "Phi-3.5-mini-instruct-q4f32_1-MLC",
    "model_lib": "https://raw.githubusercontent.com/mlc-ai/binary-mlc-llm-libs/main/web-llm-models/v0_2_86/base/Phi-3.5-mini-instruct-q4f32_1_cs1k-webgpu.wasm",
    "vram_required_MB": 5483.12,
    "low_resource_required": false,
    "overrides": {
      "context_window_size": 4096
    }
  },
  {
    "model": "https://huggingface.co/mlc-ai/Phi-3.5-mini-instruct-q4f16_1-MLC",
    "model_id": "Phi-3.5-mini-instruct-q4f16_1-MLC-1k",
    "model_lib": "https://raw.githubusercontent.com/mlc-ai/binary-mlc-llm-libs/main/web-llm-models/v0_2_86/base/Phi-3.5-mini-instruct-q4f16_1_cs1k-webgpu.wasm",
    "vram_required_MB": 2520.07,
    "low_resource_required": true,
    "overrides": {
      "context_window_size": 1024
    }
  },
  {
    "model": "https://huggingface.co/mlc-ai/Phi-3.5-mini-instruct-q4f32_1-MLC",
    "model_id": "Phi-3.5-mini-instruct-q4f32_1-MLC-1k",
    "model_lib": "https://raw.githubusercontent.com/mlc-ai/binary-mlc-llm-libs/main/web-llm-models/v0_2_86/base/Phi-3.5-mini-instruct-q4f32_1_cs1k-webgpu.wasm",
    "vram_required_MB": 3179.12,
    "low_resource_required": true,
    "overrides": {
      "context_window_size": 1024
    }
  },
  {
    "model": "https://huggingface.co/mlc-ai/Qwen2.5-0.5B-Instruct-q4f16_1-MLC",
    "model_id": "Qwen2.5-0.5B-Instruct-q4f16_1-MLC",
    "model_lib": "https://raw.githubusercontent.com/mlc-ai/binary-mlc-llm-libs/main/web-llm-models/v0_2_86/base/Qwen2-0.5B-Instruct-q4f16_1_cs1k-webgpu.wasm",
    "low_resource_required": true,
    "vram_required_MB": 944.62,
    "overrides": {
      "context_window_size": 4096
    }
  },
  {
    "model": "https://huggingface.co/mlc-ai/Qwen2.5-0.5B-Instruct-q4f32_1-MLC",
    "model_id": "Qwen2.5-0.5B-Instruct-q4f32_1-MLC",
    "model_lib": "https://raw.githubusercontent.com/mlc-ai/binary-mlc-llm-libs/main/web-llm-models/v0_2_86/base/Qwen2-0.5B-Instruct-q4f32_1_cs1k-webgpu.wasm",
    "low_resource_required": true,
    "vram_required_MB": 1060.2,
    "overrides": {
      "context_window_size": 4096
    }
  },
  {
    "model": "https://huggingface.co/mlc-ai/Qwen2.5-1.5B-Instruct-q4f16_1-MLC",
    "model_id": "Qwen2.5-1.5B-Instruct-q4f16_1-MLC",
    "model_lib": "https://raw.githubusercontent.com/mlc-ai/binary-mlc-llm-libs/main/web-llm-models/v0_2_86/base/Qwen2-1.5B-Instruct-q4f16_1_cs1k-webgpu.wasm",
    "low_resource_required": true,
    "vram_required_MB": 1629.75,
    "overrides": {
      "context_window_size": 4096
    }
  },
  {
    "model": "https://huggingface.co/mlc-ai/Qwen2.5-1.5B-Instruct-q4f32_1-MLC",
    "model_id": "Qwen2.5-1.5B-Instruct-q4f32_1-MLC",
    "model_lib": "https://raw.githubusercontent.com/mlc-ai/binary-mlc-llm-libs/main/web-llm-models/v0_2_86/base/Qwen2-1.5B-Instruct-q4f32_1_cs1k-webgpu.wasm",
    "low_resource_required": true,
    "vram_required_MB": 1888.97,
    "overrides": {
      "context_window_size": 4096
    }
  },
  {
    "model": "https://huggingface.co/mlc-ai/Qwen2.5-3B-Instruct-q4f16_1-MLC",
    "model_id": "Qwen2.5-3B-Instruct-q4f16_1-MLC",
    "model_lib": "https://raw.githubusercontent.com/mlc-ai/binary-mlc-llm-libs/main/web-llm-models/v0_2_86/base/Qwen2.5-3B-Instruct-q4f16_1_cs1k-webgpu.wasm",
    "low_resource_required": true,
    "vram_required_MB": 2504.76,
    "overrides": {
      "context_window_size": 4096
    }
  },
  {
    "model": "https://huggingface.co/mlc-ai/Qwen2.5-3B-Instruct-q4f32_1-MLC",
    "model_id": "Qwen2.5-3B-Instruct-q4f32_1-MLC",
    "model_lib": "https://raw.githubusercontent.com/mlc-ai/binary-mlc-llm-libs/main/web-llm-models/v0_2_86/base/Qwen2.5-3B-Instruct-q4f32_1_cs1k-webgpu.wasm",
    "low_resource_required": true,
    "vram_required_MB": 2893.64,
    "overrides": {
      "context_window_size": 4096
    }
  }
];
