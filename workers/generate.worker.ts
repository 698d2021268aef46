import { expose } from 'comlink';
import wasmUrl from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.wasm?url';
import multiThread from '@wllama/wllama/esm/multi-thread/wllama.wasm?url';
import singleThread from '@wllama/wllama/esm/single-thread/wllama.wasm?url';
import { installErrorTransfer } from '../src/core/error-transfer.ts';
import { createGenerateHandler } from '../src/models/generator/generate-handler.ts';
import { measureCores, type ProbeWorker } from '../src/models/host/cpu-probe.ts';
import { lazyWebLlmDeps } from '../src/models/webllm/webllm-runtime.ts';

installErrorTransfer();
// The WASM binaries the bundled onnxruntime-web and llama.cpp (wllama) need, served by the app (never a
// CDN); web-llm imported on the first WebLLM load (its model libraries come with its models).
// CPU-probe workers measure the free cores for llama.cpp's threads.
const probe = () => new Worker(new URL('./cpu-probe.worker.ts', import.meta.url), { type: 'module', name: 'cpu-probe' }) as unknown as ProbeWorker;
expose(createGenerateHandler({ wasmUrl, gguf: { singleThread, multiThread }, webllm: lazyWebLlmDeps(), measureCores: (upTo) => measureCores(probe, upTo) }));
